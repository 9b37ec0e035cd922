import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import TernCore
import TernRuntime
import Testing

@testable import WebUI

/// Every endpoint's success and failure answers, in process (issue 17), on an empty store of its
/// own. The same guards against real sockets and a real browser are in SystemTests/integration.
@Suite struct WebRoutesTests {
    static let token = "route-test-token-0123456789"

    /// A browser signed in through the token exchange: its cookie, and the app's secret base.
    struct SignedIn: Sendable {
        let cookie: String
        let csrfToken: String
        let base: String

        /// An app path (`/mail`) as the browser asks for it (`/s/…/mail`).
        func path(_ appPath: String) -> String { base + appPath.dropFirst() }

        func headers(_ more: HTTPFields = [:]) -> HTTPFields {
            var fields: HTTPFields = [.cookie: "tern_session=\(cookie)"]
            fields.append(contentsOf: more)
            return fields
        }
    }

    func withApp(
        lifetime: WebSessionLifetime = .standard, now: @escaping @Sendable () -> Date = Date.init,
        _ test: @Sendable (any TestClientProtocol, SignedIn) async throws -> Void
    ) async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("tern-web-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let services = try TernServices.open(environment: ["TERN_HOME": home.path])
        let server = try TernWebServer(
            services: services,
            configuration: WebServerConfiguration(
                port: 8025, token: Self.token, runSync: false,
                sessionLifetime: lifetime), now: now)
        let app = Application(responder: server.responder(port: 8025, hosts: ["localhost"]))
        try await app.test(.router) { client in
            let signedIn = try await Self.signIn(client, csrfToken: server.secrets.csrfToken)
            try await test(client, signedIn)
        }
    }

    static func signIn(_ client: any TestClientProtocol, csrfToken: String) async throws -> SignedIn {
        try await client.execute(uri: "/?token=\(token)", method: .get) { response in
            let location = try #require(response.headers[.location])
            let cookie = try #require(response.headers[.setCookie])
            let value = try #require(cookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last)
            return SignedIn(cookie: String(value), csrfToken: csrfToken, base: String(location.dropLast("mail".count)))
        }
    }

    @Test func theTokenIsExchangedForAStrictHttpOnlyCookieOfTheSecretPath() async throws {
        try await withApp { client, s in
            #expect(s.base.range(of: #"^/s/[0-9a-f]{32}/$"#, options: .regularExpression) != nil)
            try await client.execute(uri: "/?token=\(Self.token)", method: .get) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == s.path("/mail"))
                let cookie = try #require(response.headers[.setCookie])
                #expect(cookie.range(of: #"^tern_session=[0-9a-f]{64};"#, options: .regularExpression) != nil)
                // issue 32: a new session at every exchange, never one derived from the token.
                #expect(!cookie.contains(s.cookie))
                // Attributes come in any order.
                let attributes = Set(cookie.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) })
                #expect(
                    attributes.isSuperset(of: [
                        "Path=\(s.base)", "Max-Age=\(Int(WebSessionLifetime.standard.absolute))", "HttpOnly",
                        "SameSite=Strict"
                    ]), "\(cookie)")
            }
            try await client.execute(uri: "/?token=wrong-token-0123456789", method: .get) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.setCookie] == nil)
            }
        }
    }

    @Test func withoutTheCookieNothingButTheAssetsIsServed() async throws {
        try await withApp { client, s in
            for path in ["/mail", "/events", "/bodies/1", "/settings", "/fragments/folders", "/attachments/1/file"] {
                try await client.execute(uri: s.path(path), method: .get) { response in #expect(response.status == .unauthorized, "\(path)") }
                // The app is only under its secret path, whatever the cookie.
                try await client.execute(uri: path, method: .get, headers: s.headers()) { response in
                    #expect(response.status == .unauthorized, "\(path)")
                }
            }
            try await client.execute(uri: s.path("/mail"), method: .get, headers: [.cookie: "tern_session=guess"]) { response in
                #expect(response.status == .unauthorized)
            }
            for path in ["/assets/app.css", s.path("/assets/app.css")] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType]?.hasPrefix("text/css") == true)
                }
            }
            try await client.execute(uri: "/assets/nothing.js", method: .get) { response in #expect(response.status == .notFound) }
        }
    }

    /// issue 32: a cookie kept from another `tern serve` process, even one with the same
    /// `TERN_SERVE_TOKEN`, opens nothing here; nor does its secret path.
    @Test func aSessionOfAnEarlierProcessIsRefused() async throws {
        let earlier = try await withAppReturningSession()
        try await withApp { client, s in
            #expect(earlier.base != s.base)
            try await client.execute(uri: s.path("/mail"), method: .get, headers: earlier.headers()) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: earlier.path("/mail"), method: .get, headers: s.headers()) { #expect($0.status == .unauthorized) }
        }
    }

    func withAppReturningSession() async throws -> SignedIn {
        let kept = Mutex<SignedIn?>(nil)
        try await withApp { _, s in kept.withLock { $0 = s } }
        return try #require(kept.withLock { $0 })
    }

    /// issue 32: a session unused for the idle limit ends; the next exchange opens a new one.
    @Test func anIdleSessionExpires() async throws {
        let clock = Mutex(Date(timeIntervalSince1970: 0))
        try await withApp(lifetime: WebSessionLifetime(idle: 10, absolute: 600), now: { clock.withLock { $0 } }) { client, s in
            clock.withLock { $0 += 9 }
            try await client.execute(uri: s.path("/mail"), method: .get, headers: s.headers()) { #expect($0.status == .ok) }
            clock.withLock { $0 += 11 }
            try await client.execute(uri: s.path("/mail"), method: .get, headers: s.headers()) { #expect($0.status == .unauthorized) }
            let again = try await Self.signIn(client, csrfToken: s.csrfToken)
            try await client.execute(uri: again.path("/mail"), method: .get, headers: again.headers()) { #expect($0.status == .ok) }
        }
    }

    @Test func sessionsEndAtTheirAbsoluteLimitAndWhenReplaced() async {
        let clock = Mutex(Date(timeIntervalSince1970: 0))
        let sessions = WebSessions(lifetime: WebSessionLifetime(idle: 100, absolute: 250), now: { clock.withLock { $0 } })
        let first = await sessions.open()
        for _ in 0..<2 {
            clock.withLock { $0 += 99 }
            #expect(await sessions.isValid([first]))
        }
        clock.withLock { $0 += 99 }
        #expect(await !sessions.isValid([first]), "297 s after the exchange, though used every 99 s")
        let second = await sessions.open()
        let third = await sessions.open(replacing: [second])
        #expect(await !sessions.isValid([second]))
        #expect(await sessions.isValid(["guess", third]))
        for _ in 0..<WebSessions.limit {
            clock.withLock { $0 += 1 }
            _ = await sessions.open()
        }
        #expect(await !sessions.isValid([third]), "the least recently used of more than the limit ends")
    }

    @Test func pagesCarryTheLockedDownHeadersAndNoInlineScript() async throws {
        try await withApp { client, s in
            try await client.execute(uri: s.path("/mail"), method: .get, headers: s.headers()) { response in
                #expect(response.status == .ok)
                let policy = try #require(response.headers[SecurityHeaders.cspName])
                #expect(policy.contains("default-src 'self'"))
                #expect(policy.contains("script-src 'self'"))
                #expect(!policy.contains("unsafe-inline"))
                #expect(!policy.contains("http:") && !policy.contains("https:"))
                #expect(response.headers[SecurityHeaders.frameOptionsName] == "DENY")
                #expect(response.headers[SecurityHeaders.nosniffName] == "nosniff")
                #expect(response.headers[SecurityHeaders.referrerName] == "same-origin")
                let page = String(buffer: response.body)
                #expect(page.contains("<h2 id=\"list-title\">Inbox</h2>"))
                #expect(page.contains("No conversations here."))
                // Every script is a file of the app's own; no handler attributes.
                #expect(page.components(separatedBy: "<script").count == 2)
                #expect(page.contains("<script type=\"module\" src=\"/assets/app.js\"></script>"))
                #expect(page.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil)
                #expect(page.contains("name=\"csrf-token\" content=\"\(s.csrfToken)\""))
            }
        }
    }

    @Test func changesNeedTheCSRFToken() async throws {
        try await withApp { client, s in
            let form = HTTPFields([HTTPField(name: .contentType, value: "application/x-www-form-urlencoded")])
            try await client.execute(uri: s.path("/actions/undo"), method: .post, headers: s.headers(form), body: ByteBuffer(string: "token=x")) {
                response in
                #expect(response.status == .forbidden)
            }
            try await client.execute(
                uri: s.path("/actions/undo"), method: .post, headers: s.headers(form),
                body: ByteBuffer(string: "token=x&csrf=\(String(repeating: "0", count: 64))")
            ) { response in
                #expect(response.status == .forbidden)
            }
            // The token as a form field (a page without script): refused only by the use case.
            try await client.execute(
                uri: s.path("/actions/undo"), method: .post, headers: s.headers(form),
                body: ByteBuffer(string: "csrf=\(s.csrfToken)")
            ) { response in
                #expect(response.status == .conflict)
                #expect(String(buffer: response.body).contains("Nothing to undo"))
            }
            // As a header (the app's script): JSON.
            var scripted = s.headers(form)
            scripted[SecurityHeaders.csrfHeaderName] = s.csrfToken
            try await client.execute(uri: s.path("/actions/undo"), method: .post, headers: scripted, body: ByteBuffer()) { response in
                #expect(response.status == .conflict)
                #expect(response.headers[.contentType] == "application/json")
                #expect(String(buffer: response.body).contains("\"ok\":false"))
            }
            try await client.execute(uri: s.path("/settings"), method: .post, headers: s.headers(form), body: ByteBuffer(string: "undo-send-delay=0"))
            {
                #expect($0.status == .forbidden)
            }
        }
    }

    @Test func crossSiteRequestsAreRefusedWhateverThePath() async throws {
        try await withApp { client, s in
            for path in ["/mail", "/assets/app.js", "/?token=\(Self.token)", "/nothing"] {
                for (name, value) in [
                    (SecurityHeaders.secFetchSiteName, "cross-site"), (SecurityHeaders.secFetchSiteName, "same-site"),
                    (SecurityHeaders.originName, "http://evil.example"), (SecurityHeaders.originName, "null")
                ] {
                    try await client.execute(uri: path, method: .get, headers: s.headers([name: value])) { response in
                        #expect(response.status == .forbidden, "\(path) \(name): \(value)")
                    }
                }
            }
            var sameOrigin = s.headers([SecurityHeaders.secFetchSiteName: "same-origin"])
            sameOrigin[SecurityHeaders.originName] = "http://localhost"
            try await client.execute(uri: s.path("/mail"), method: .get, headers: sameOrigin) { #expect($0.status == .ok) }
        }
    }

    /// Issue 36: the mailto: handler's address opens a new message with the link; the cross-site
    /// navigation a handler makes is answered with a page that only carries the link on, re-encoded.
    @Test func aMailtoLinkOpensANewMessageAndTheHandlersCrossSiteNavigationIsHandedOn() async throws {
        try await withApp { client, s in
            let link = #"mailto:bob@example.org?subject="><script>x</script>"#
            let encoded = try #require(link.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            try await client.execute(uri: s.path("/compose?mailto=\(encoded)"), method: .get, headers: s.headers()) { response in
                #expect(response.status == .seeOther)
                let location = try #require(response.headers[.location])
                #expect(location.hasPrefix(s.path("/mail?")) && location.contains("compose=new") && location.contains("mailto=mailto"), "\(location)")
            }
            try await client.execute(
                uri: s.path("/compose?mailto=\(encoded)"), method: .get, headers: [SecurityHeaders.secFetchSiteName: "cross-site"]
            ) { response in
                #expect(response.status == .ok)
                let body = String(buffer: response.body)
                let refresh = #"content="0; url=compose?mailto=mailto%3Abob%40example.org%3Fsubject%3D%22%3E%3Cscript%3Ex%3C%2Fscript%3E">"#
                #expect(body.contains(#"<meta http-equiv="refresh" "# + refresh), "\(body)")
                #expect(!body.contains("<script"))
                #expect(response.headers[SecurityHeaders.cspName] != nil)
            }
            for headers: HTTPFields in [
                [SecurityHeaders.secFetchSiteName: "cross-site", SecurityHeaders.originName: "http://evil.example"],
                [SecurityHeaders.secFetchSiteName: "cross-site"]
            ] {
                try await client.execute(uri: s.path("/compose/schedule"), method: .post, headers: headers) { #expect($0.status == .forbidden) }
            }
            try await client.execute(uri: s.path("/mail"), method: .get, headers: s.headers([SecurityHeaders.secFetchSiteName: "cross-site"])) {
                #expect($0.status == .forbidden)
            }
        }
    }

    @Test func aMessageBodyIsADocumentWithItsOwnPolicy() async throws {
        try await withApp { client, s in
            try await client.execute(uri: s.path("/bodies/424242"), method: .get, headers: s.headers()) { response in
                #expect(response.status == .ok)
                let policy = try #require(response.headers[SecurityHeaders.cspName])
                #expect(policy.hasPrefix("default-src 'none'; style-src 'unsafe-inline'; img-src data:;"))
                // Issue 39: the sandbox keeps the app's origin so the page can read the body's height;
                // it never allows scripts, so nothing in a body runs (decisions.md).
                #expect(policy.hasSuffix("; sandbox allow-same-origin allow-popups allow-popups-to-escape-sandbox"))
                #expect(!policy.contains("script"))
                #expect(response.headers[SecurityHeaders.frameOptionsName] == "SAMEORIGIN")
                #expect(String(buffer: response.body).contains("This message is no longer here."))
            }
            #expect(BodyDocument.policy(remoteImages: true).contains("img-src data: https: http:;"))
        }
    }

    @Test func fragmentsAndPagesAnswerTheirFailures() async throws {
        try await withApp { client, s in
            try await client.execute(uri: s.path("/mail?thread=999999"), method: .get, headers: s.headers()) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("This conversation appears empty"))
            }
            try await client.execute(uri: s.path("/fragments/message"), method: .get, headers: s.headers()) { #expect($0.status == .badRequest) }
            try await client.execute(uri: s.path("/fragments/earlier?thread=1"), method: .get, headers: s.headers()) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: s.path("/fragments/threads?folder=INBOX"), method: .get, headers: s.headers()) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: s.path("/fragments/bodies?thread=5"), method: .get, headers: s.headers()) {
                #expect($0.status == .noContent)
            }
            try await client.execute(uri: s.path("/attachments/77/file"), method: .get, headers: s.headers()) { #expect($0.status == .notFound) }
            try await client.execute(uri: s.path("/mail?q=nothing%20here"), method: .get, headers: s.headers()) { response in
                #expect(String(buffer: response.body).contains("No messages match your search."))
            }
            try await client.execute(uri: s.path("/settings"), method: .get, headers: s.headers()) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("No trusted senders."))
            }
        }
    }

    @Test func settingsChangeThroughTheForm() async throws {
        try await withApp { client, s in
            let form = s.headers([.contentType: "application/x-www-form-urlencoded"])
            try await client.execute(
                uri: s.path("/settings"), method: .post, headers: form,
                body: ByteBuffer(string: "csrf=\(s.csrfToken)&undo-send-delay=10&metered=yes")
            ) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == s.path("/settings?saved=1"))
            }
            try await client.execute(uri: s.path("/settings"), method: .get, headers: s.headers()) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("<option value=\"10\" selected>10 seconds</option>"))
                #expect(page.contains("<option value=\"yes\" selected>Always metered</option>"))
            }
            try await client.execute(
                uri: s.path("/settings"), method: .post, headers: form,
                body: ByteBuffer(string: "csrf=\(s.csrfToken)&undo-send-delay=7")
            ) { response in
                #expect(response.status == .badRequest)
            }
        }
    }

    /// Issue 39: theme, density and text size are saved like the other settings and written on the
    /// root of the app's pages and of message bodies; a value outside the choices is refused.
    @Test func appearanceSettingsReachEveryPageAndBody() async throws {
        try await withApp { client, s in
            try await client.execute(uri: s.path("/mail"), method: .get, headers: s.headers()) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("<html lang=\"en\" data-density=\"comfortable\" data-text-size=\"100\">"))
            }
            let form = s.headers([.contentType: "application/x-www-form-urlencoded"])
            try await client.execute(
                uri: s.path("/settings"), method: .post, headers: form,
                body: ByteBuffer(string: "csrf=\(s.csrfToken)&theme=dark&density=compact&text-size=150")
            ) { response in
                #expect(response.headers[.location] == s.path("/settings?saved=1#appearance-title"))
            }
            let root = "<html lang=\"en\" data-theme=\"dark\" data-density=\"compact\" data-text-size=\"150\">"
            for path in ["/mail", "/settings"] {
                try await client.execute(uri: s.path(path), method: .get, headers: s.headers()) { response in
                    #expect(String(buffer: response.body).contains(root), "\(path)")
                }
            }
            try await client.execute(uri: s.path("/settings"), method: .get, headers: s.headers()) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("<option value=\"dark\" selected>Dark</option>"))
                #expect(page.contains("<option value=\"compact\" selected>Compact</option>"))
                #expect(page.contains("<option value=\"150\" selected>150 %</option>"))
            }
            try await client.execute(uri: s.path("/bodies/424242"), method: .get, headers: s.headers()) { response in
                #expect(String(buffer: response.body).contains("<html data-theme=\"dark\" data-density=\"compact\" data-text-size=\"150\">"))
            }
            try await client.execute(
                uri: s.path("/settings"), method: .post, headers: form, body: ByteBuffer(string: "csrf=\(s.csrfToken)&text-size=400")
            ) { response in
                #expect(response.status == .badRequest)
            }
        }
    }

    /// Issue 39: a body that paints its own colours keeps a light surface in the dark theme; one
    /// that sets none (plain text among them) takes the theme's.
    @Test func aBodyWithColoursOfItsOwnKeepsALightSurface() {
        for coloured in [
            "<table bgcolor=\"#ffcc00\"><tr><td>Sale</td></tr></table>", "<p style=\"color: #333333\">Hi</p>",
            "<font color=\"red\">Hi</font>", "<style>td { background: #eee; }</style><p>Hi</p>"
        ] {
            #expect(BodyColours.setOwn(coloured), "\(coloured)")
        }
        for plain in ["<p>Hello</p>", "<pre>My favourite color: blue, background: none</pre>", "<p class=\"tern-quote\">Hi</p>"] {
            #expect(!BodyColours.setOwn(plain), "\(plain)")
        }
    }

    /// Issue 37: "Never ask" on the Settings page; Send receipt and Ignore refuse what they cannot act on.
    @Test func readReceiptsSettingAndRoutes() async throws {
        try await withApp { client, s in
            let form = s.headers([.contentType: "application/x-www-form-urlencoded"])
            try await client.execute(
                uri: s.path("/settings"), method: .post, headers: form, body: ByteBuffer(string: "csrf=\(s.csrfToken)&read-receipts=never")
            ) { response in
                #expect(response.status == .seeOther)
            }
            try await client.execute(uri: s.path("/settings"), method: .get, headers: s.headers()) { response in
                #expect(String(buffer: response.body).contains("<option value=\"never\" selected>Never ask</option>"))
            }
            try await client.execute(
                uri: s.path("/receipts/send"), method: .post, headers: form, body: ByteBuffer(string: "csrf=\(s.csrfToken)")
            ) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(
                uri: s.path("/receipts/ignore"), method: .post, headers: form, body: ByteBuffer(string: "csrf=\(s.csrfToken)&message=99")
            ) { response in
                #expect(response.status == .conflict)
                #expect(String(buffer: response.body).contains("not found: message 99"))
            }
            try await client.execute(
                uri: s.path("/receipts/forward"), method: .post, headers: form, body: ByteBuffer(string: "csrf=\(s.csrfToken)&message=99")
            ) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test func redirectsStayOnThisApp() {
        for hostile in [
            "//evil.example/x", "https://evil.example", "/\\evil.example", "/\t/evil.example", "/ /evil.example", "/\n/evil.example",
            "/\r//evil.example", "/mail\t", "\t//evil.example", " /mail", "/", "", "mail", "/\u{200B}/evil.example", "/\u{0}"
        ] {
            #expect(WebResponse.redirect(to: hostile).headers[.location] == "/mail", "\(hostile.debugDescription)")
        }
        #expect(WebResponse.redirect(to: "/mail?thread=4").headers[.location] == "/mail?thread=4")
        #expect(WebResponse.redirect(to: "/settings#trusted-senders").headers[.location] == "/settings#trusted-senders")
    }

    @Test func markupEscapesEveryStrangersString() {
        let name = "<img src=x onerror=alert(1)> & \"quoted\""
        let markup: HTMLText = "<p title=\"\(name)\">\(name)</p>"
        #expect(!markup.markup.contains("<img"))
        #expect(markup.markup.contains("&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quoted&quot;"))
    }

    @Test func theServerRefusesToListenBeyondLoopback() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("tern-web-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let services = try TernServices.open(environment: ["TERN_HOME": home.path])
        for host in ["0.0.0.0", "::", "192.168.1.4", "localhost"] {
            #expect(throws: WebServerError.notLoopback(host)) {
                try TernWebServer(services: services, configuration: WebServerConfiguration(host: host, runSync: false))
            }
        }
        #expect(throws: WebServerError.weakToken) { try WebServerConfiguration.token(from: ["TERN_SERVE_TOKEN": "short"]) }
    }
}

/// The composer's endpoints (issue 18) on an empty store: what they refuse and why.
@Suite struct ComposeRouteTests {
    @Test func theComposerNeedsAnAccountAndAMessage() async throws {
        try await WebRoutesTests().withApp { client, s in
            let session = s.headers()
            try await client.execute(uri: s.path("/fragments/composer?compose=reply"), method: .get, headers: session) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: s.path("/fragments/composer?compose=reply&message=5"), method: .get, headers: session) {
                #expect($0.status == .notFound)
            }
            // No account: the use case's error, worded.
            try await client.execute(uri: s.path("/mail?compose=new"), method: .get, headers: session) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("Couldn't load this conversation") == false)
                #expect(String(buffer: response.body).contains("open the composer"))
                #expect(String(buffer: response.body).contains("There is no account yet"))
            }
            try await client.execute(uri: s.path("/contacts?q=an"), method: .get, headers: session) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "[]")
            }
        }
    }

    @Test func uploadsAndChecksNeedTheCSRFToken() async throws {
        try await WebRoutesTests().withApp { client, s in
            let session = s.headers([.contentType: "application/octet-stream"])
            try await client.execute(uri: s.path("/compose/attachments"), method: .post, headers: session, body: ByteBuffer(string: "x")) {
                #expect($0.status == .forbidden)
            }
            var scripted = session
            scripted[SecurityHeaders.csrfHeaderName] = s.csrfToken
            scripted[ComposeRoutes.fileNameHeader] = "report%20%C3%A9.pdf"
            try await client.execute(uri: s.path("/compose/attachments"), method: .post, headers: scripted, body: ByteBuffer(string: "%PDF-1.4")) {
                response in
                #expect(response.status == .ok)
                let body = String(buffer: response.body)
                #expect(body.contains("\"name\":\"report é.pdf\""))
                #expect(body.contains("\"size\":8"))
            }
            // Issue 32: CR LF and a path in the name are gone on upload, as from a received attachment's.
            scripted[ComposeRoutes.fileNameHeader] = "..%2Fevil%0D%0AX%3A%20y.txt"
            try await client.execute(uri: s.path("/compose/attachments"), method: .post, headers: scripted, body: ByteBuffer(string: "text")) {
                response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("\"name\":\"evilX: y.txt\""))
            }
            // CO01-16: pasted into the text, a PNG (by its bytes, whatever the page says) gets a Content-ID; text does not.
            scripted[ComposeRoutes.inlineImageHeader] = "1"
            scripted[ComposeRoutes.fileNameHeader] = "image.png"
            scripted[.contentType] = "application/octet-stream"
            let png = ByteBuffer(bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
            try await client.execute(uri: s.path("/compose/attachments"), method: .post, headers: scripted, body: png) { response in
                #expect(response.status == .ok)
                let body = String(buffer: response.body)
                #expect(body.contains("\"type\":\"image\\/png\"") || body.contains("\"type\":\"image/png\""), "\(body)")
                #expect(body.contains("\"contentId\":\"image.") && body.contains("@tern.invalid\""), "\(body)")
            }
            scripted[.contentType] = "image/png"
            try await client.execute(uri: s.path("/compose/attachments"), method: .post, headers: scripted, body: ByteBuffer(string: "not a png")) {
                response in
                #expect(response.status == .ok)
                #expect(!String(buffer: response.body).contains("contentId"))
            }
            try await client.execute(uri: s.path("/compose/undo"), method: .post, headers: scripted, body: ByteBuffer(string: "email=99")) {
                response in
                #expect(response.status == .conflict)
                #expect(String(buffer: response.body).contains("Too late to undo"))
            }
        }
    }
}

/// issue 32 review: the change feed is one long request; what it sends keeps the session alive, so a
/// tab left open overnight is still signed in, and a session that ended stops the stream.
@Suite struct SessionKeepAliveTests {
    /// A request context with no channel: the middleware alone, outside a server.
    struct PlainSource: RequestContextSource { let logger: Logger }
    struct PlainContext: RequestContext {
        typealias Source = PlainSource
        var coreContext: CoreRequestContextStorage
        init(source: PlainSource) { coreContext = .init(source: source) }
    }

    final class Collected: Sendable {
        let chunks = Mutex<[String]>([])
    }

    struct CollectingWriter: ResponseBodyWriter {
        let collected: Collected
        mutating func write(_ buffer: ByteBuffer) async throws { collected.chunks.withLock { $0.append(String(buffer: buffer)) } }
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }

    @Test func theChangeFeedKeepsItsSessionAliveAndEndsWithIt() async throws {
        let clock = Mutex(Date(timeIntervalSince1970: 0))
        let sessions = WebSessions(lifetime: WebSessionLifetime(idle: 10, absolute: 100), now: { clock.withLock { $0 } })
        let secrets = WebAppSecrets(token: "keep-alive-token-0123456789")
        let middleware = SessionMiddleware<PlainContext>(secrets: secrets, sessions: sessions)
        let value = await sessions.open()
        let request = Request(
            head: HTTPRequest(
                method: .get, scheme: "http", authority: "localhost", path: secrets.basePath + "events",
                headerFields: [.cookie: "tern_session=\(value)"]), body: .init(buffer: ByteBuffer()))
        let context = PlainContext(source: PlainSource(logger: .init(label: "test")))
        let response = try await middleware.handle(request, context: context) { request, _ in
            #expect(request.uri.path == "/events")
            return Response(
                status: .ok,
                body: ResponseBody { writer in
                    for beat in 0..<12 { // a beat every 9 s, past the 10 s idle limit more than ten times over, then past 100 s
                        clock.withLock { $0 += 9 }
                        try await writer.write(ByteBuffer(string: "beat \(beat)"))
                    }
                    try await writer.finish(nil)
                })
        }
        let collected = Collected()
        await #expect(throws: HTTPError.self) { try await response.body.write(CollectingWriter(collected: collected)) }
        // Alive through 99 s of beats; the 100 s absolute limit ends it at the twelfth.
        #expect(collected.chunks.withLock { $0.count } == 11)
        #expect(await !sessions.isValid([value]))
    }
}
