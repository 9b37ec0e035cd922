import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// The secrets of one `tern serve`: the token printed in its address (as Jupyter does: another local
/// user who can reach the port cannot read your mail without it), and the session cookie and CSRF
/// token derived from it. Derived, not random, so that with `TERN_SERVE_TOKEN` fixed a browser stays
/// signed in across restarts; with a random token every run starts a new session.
struct WebSessionKeys: Sendable {
    let token: String
    let sessionValue: String
    let csrfToken: String

    init(token: String) {
        self.token = token
        let key = SymmetricKey(data: SHA256.hash(data: Data("tern-serve-session-key\u{0}\(token)".utf8)))
        sessionValue = Self.mac("session", key: key)
        csrfToken = Self.mac("csrf", key: key)
    }

    /// 32 random bytes as hex.
    static func randomToken() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
    }

    private static func mac(_ purpose: String, key: SymmetricKey) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(purpose.utf8), using: key).map { String(format: "%02x", $0) }.joined()
    }

    /// Compared in time independent of where the strings differ.
    static func constantTimeEquals(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}

/// The headers every answer of the app carries: its own pages run only its own script and style
/// (no inline script, nothing remote), are never framed, never sniffed, never cached, and send no
/// Referer anywhere. Message bodies replace the policy with their own (`BodyDocument`).
enum SecurityHeaders {
    static let appPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "frame-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

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
        // `same-site` is refused too: another program's page on 127.0.0.1 at another port is the
        // same site as this one.
        if let site = request.headers[SecurityHeaders.secFetchSiteName]?.lowercased(), site != "same-origin", site != "none" {
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

/// The session: the token in the printed address is exchanged once for an HttpOnly, SameSite=Strict
/// cookie (and the address without it); every other request needs that cookie, and every request
/// that changes something also needs the CSRF token (a header from the app's script, or a form
/// field from a page without script).
struct SessionMiddleware<Context: RequestContext>: RouterMiddleware {
    static var cookieName: String { "tern_session" }
    static var formFieldLimit: Int { 64 * 1024 }

    let keys: WebSessionKeys

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let offered = request.uri.queryParameters["token"] {
            guard WebSessionKeys.constantTimeEquals(offered, keys.token) else {
                return WebErrorPage.refusal(.unauthorized, "This token is not the one tern serve printed.")
            }
            var response = Response(status: .seeOther, headers: [.location: "/mail"])
            response.setCookie(Cookie(name: Self.cookieName, value: keys.sessionValue, path: "/", secure: false, httpOnly: true,
                                      sameSite: .strict))
            return response
        }
        if request.uri.path.hasPrefix("/assets/") && request.method == .get { return try await next(request, context) }
        guard let cookie = request.cookies[Self.cookieName]?.value, WebSessionKeys.constantTimeEquals(cookie, keys.sessionValue) else {
            return WebErrorPage.refusal(.unauthorized, "Open the address tern serve printed, with its token.")
        }
        guard request.method != .get, request.method != .head else { return try await next(request, context) }
        var request = request
        if let header = request.headers[SecurityHeaders.csrfHeaderName], WebSessionKeys.constantTimeEquals(header, keys.csrfToken) {
            return try await next(request, context)
        }
        if request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true {
            let body = try await request.collectBody(upTo: Self.formFieldLimit)
            let form = FormFields(String(buffer: body))
            if let field = form["csrf"], WebSessionKeys.constantTimeEquals(field, keys.csrfToken) { return try await next(request, context) }
        }
        return WebErrorPage.refusal(.forbidden, "This request lacks the page's CSRF token.")
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
