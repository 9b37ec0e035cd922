import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import TernCore

/// The headers every answer of the app carries: its own pages run only its own script and style
/// (no inline script, nothing remote), are never framed, never sniffed, never cached, and send no
/// Referer anywhere. Message bodies replace the policy with their own (`BodyDocument`).
enum SecurityHeaders {
    static let appPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "frame-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"

    static let cspName = HTTPField.Name("Content-Security-Policy")!
    static let nosniffName = HTTPField.Name("X-Content-Type-Options")!
    static let referrerName = HTTPField.Name("Referrer-Policy")!
    static let frameOptionsName = HTTPField.Name("X-Frame-Options")!
    static let csrfHeaderName = HTTPField.Name("X-CSRF-Token")!
    static let secFetchSiteName = HTTPField.Name("Sec-Fetch-Site")!
    static let originName = HTTPField.Name("Origin")!
    static let crossOriginOpenerName = HTTPField.Name("Cross-Origin-Opener-Policy")!
    static let crossOriginResourceName = HTTPField.Name("Cross-Origin-Resource-Policy")!

    static func apply(to response: inout Response) {
        if response.headers[cspName] == nil { response.headers[cspName] = appPolicy }
        if response.headers[frameOptionsName] == nil { response.headers[frameOptionsName] = "DENY" }
        response.headers[nosniffName] = "nosniff"
        // same-origin, not no-referrer: a page's own form posts (the Settings screen has no script)
        // then carry their true Origin, where no-referrer made it "null" and the origin check
        // refused them. Nothing is ever sent to another origin either way; mail bodies keep
        // no-referrer in their own documents.
        response.headers[referrerName] = "same-origin"
        response.headers[crossOriginOpenerName] = "same-origin"
        response.headers[crossOriginResourceName] = "same-origin"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
    }
}

/// Where the app answers: its own address only. A page on any other site that makes a browser
/// resolve its name to 127.0.0.1 (DNS rebinding) sends its own name as Host and is refused; so is
/// a request another site makes from the user's browser (Origin, Sec-Fetch-Site), whatever its path.
struct LoopbackGuardMiddleware<Context: RequestContext>: RouterMiddleware {
    let allowedHosts: Set<String>
    let allowedOrigins: Set<String>
    /// Issue 35: the OAuth provider's answer, a cross-site navigation answered for its state alone.
    var oauthCallback: OAuthCallbackHandoff?

    init(port: Int) {
        self.init(hosts: ["127.0.0.1:\(port)", "localhost:\(port)"])
    }

    /// The in-process route tests' requests name `localhost` without a port.
    init(hosts: Set<String>) {
        allowedHosts = hosts
        allowedOrigins = Set(hosts.map { "http://\($0)" })
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let host = request.head.authority?.lowercased(), allowedHosts.contains(host) else {
            return WebErrorPage.refusal(.misdirectedRequest, "This address is not Tern's.")
        }
        if let oauthCallback, let handoff = await oauthCallback.answer(request) { return handoff }
        // `same-site` is refused too: another program's page on 127.0.0.1 at another port is the
        // same site as this one.
        if let site = request.headers[SecurityHeaders.secFetchSiteName]?.lowercased(), site != "same-origin", site != "none" {
            if let handoff = MailtoHandoff.page(for: request) { return handoff }
            return WebErrorPage.refusal(.forbidden, "Requests from other sites are refused.")
        }
        if let origin = request.headers[SecurityHeaders.originName]?.lowercased(), !allowedOrigins.contains(origin) {
            return WebErrorPage.refusal(.forbidden, "Requests from other sites are refused.")
        }
        var response = try await next(request, context)
        SecurityHeaders.apply(to: &response)
        return response
    }
}

/// The session (issue 32): the token in the printed address is exchanged for a new random session
/// in an HttpOnly, SameSite=Strict cookie whose `Path` is the app's secret base, and a redirect into
/// the app. Every other request must be under the base and carry a live session; the base is taken
/// off before routing, so the routes speak the app's own paths (`/mail`), and put back on any
/// redirect they answer. Every request that changes something also needs the CSRF token. The app's
/// assets need no session (they hold nothing of the person's).
struct SessionMiddleware<Context: RequestContext>: RouterMiddleware {
    static var cookieName: String { "tern_session" }
    static var formFieldLimit: Int { 64 * 1024 }

    let secrets: WebAppSecrets
    let sessions: WebSessions

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let offeredSessions = Self.sessionValues(request)
        if let offered = request.uri.queryParameters["token"] {
            guard WebAppSecrets.constantTimeEquals(offered, secrets.token) else {
                return WebErrorPage.refusal(.unauthorized, "This token is not the one tern serve printed.")
            }
            let value = await sessions.open(replacing: offeredSessions)
            var response = Response(status: .seeOther, headers: [.location: secrets.publicPath("/mail")])
            response.setCookie(
                Cookie(
                    name: Self.cookieName, value: value, maxAge: Int(sessions.lifetime.absolute), path: secrets.basePath,
                    secure: false, httpOnly: true, sameSite: .strict))
            return response
        }
        let publicPath = request.uri.path[...]
        let appPath = secrets.appPath(forPublicPath: publicPath)
        if (appPath ?? publicPath).hasPrefix("/assets/") && request.method == .get {
            return try await next(request.at(appPath), context)
        }
        guard let appPath, await sessions.isValid(offeredSessions) else {
            return WebErrorPage.refusal(
                .unauthorized,
                "Open the address tern serve printed, with its token "
                    + "(tern serve --print-url prints it again).")
        }
        var request = request.at(appPath)
        if appPath == "/events" && request.method == .get { return try await keepingSessionAlive(offeredSessions, answer(request, context, next)) }
        guard request.method != .get, request.method != .head else { return try await answer(request, context, next) }
        if let header = request.headers[SecurityHeaders.csrfHeaderName], WebAppSecrets.constantTimeEquals(header, secrets.csrfToken) {
            return try await answer(request, context, next)
        }
        if request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true {
            let body = try await request.collectBody(upTo: Self.formFieldLimit)
            let form = FormFields(String(buffer: body))
            if let field = form["csrf"], WebAppSecrets.constantTimeEquals(field, secrets.csrfToken) {
                return try await answer(request, context, next)
            }
        }
        return WebErrorPage.refusal(.forbidden, "This request lacks the page's CSRF token.")
    }

    /// The route's answer, its redirect put back under the base.
    private func answer(_ request: Request, _ context: Context, _ next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        if let location = response.headers[.location] { response.headers[.location] = secrets.publicPath(location) }
        return response
    }

    /// The change feed is one long request: each thing it sends (an event, or the 20 s heartbeat)
    /// counts as use, so a tab left open stays signed in; a session that has ended ends the stream.
    private func keepingSessionAlive(_ offered: [String], _ response: Response) -> Response {
        var response = response
        let sessions = sessions
        response.body = response.body.map { buffer in
            guard await sessions.isValid(offered) else { throw HTTPError(.unauthorized) }
            return buffer
        }
        return response
    }

    /// Every `tern_session` the browser sent: an older cookie of another path may come first.
    static func sessionValues(_ request: Request) -> [String] {
        request.headers[values: .cookie].flatMap { $0.split(separator: ";") }.compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == cookieName else { return nil }
            return parts[1].trimmingCharacters(in: .whitespaces)
        }
    }
}

extension Request {
    /// The same request for the app's own path (the secret base taken off), its query kept.
    func at(_ appPath: Substring?) -> Request {
        guard let appPath, appPath != uri.path[...] else { return self }
        var head = head
        head.path = String(appPath) + (uri.query.map { "?" + $0 } ?? "")
        return Request(head: head, body: body)
    }
}

/// An `application/x-www-form-urlencoded` body or query, read as the browser wrote it.
struct FormFields: Sendable {
    private(set) var pairs: [(String, String)] = []

    init(_ encoded: String) {
        for part in encoded.split(separator: "&", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(pieces[0])
            let value = pieces.count > 1 ? Self.decode(pieces[1]) : ""
            pairs.append((name, value))
        }
    }

    subscript(name: String) -> String? { pairs.first { $0.0 == name }?.1 }
    func all(_ name: String) -> [String] { pairs.filter { $0.0 == name }.map(\.1) }

    static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}

/// Issue 36: a `mailto:` link clicked on another site reaches Tern, its registered handler, as a
/// navigation from that site: refused by the guard like any cross-site request, and without the
/// SameSite=Strict session cookie. Only that navigation, a GET of `…/compose` with no Origin, is
/// answered instead with this page, which reads nothing, changes nothing and shows nothing of the
/// person's: it carries the link, re-encoded, on to the same address from Tern's own origin (a
/// refresh, or the link for a person who disabled refreshes), where the session applies and the
/// composer opens prefilled. Nothing is sent without Send.
enum MailtoHandoff {
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func page(for request: Request) -> Response? {
        guard request.method == .get, request.headers[SecurityHeaders.originName] == nil, request.uri.path.hasSuffix("/compose") else { return nil }
        let link = FormFields(request.uri.query ?? "")["mailto"] ?? ""
        guard link.utf8.count <= MailtoURI.maximumLength, let encoded = link.addingPercentEncoding(withAllowedCharacters: unreserved) else {
            return WebErrorPage.refusal(.forbidden, "This email link is too long.")
        }
        // Only unreserved characters and `%`: nothing here can end the attribute or the refresh's URL.
        let target = "compose?mailto=\(encoded)"
        var response = WebResponse.html(
            """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=\(target)">\
            <title>Opening Tern</title></head><body><main><h1>Opening Tern</h1>\
            <p><a href="\(target)">Write the message in Tern</a></p></main></body></html>
            """)
        SecurityHeaders.apply(to: &response)
        return response
    }
}
