import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TernCore
import TernRuntime
@testable import WebUI

/// Every endpoint's success and failure answers, in process (issue 17), on an empty store of its
/// own. The same guards against real sockets and a real browser are in SystemTests/integration.
@Suite struct WebRouteTests {
    static let token = "route-test-token-0123456789"
    let keys = WebSessionKeys(token: WebRouteTests.token)

    func withApp(_ test: @Sendable (any TestClientProtocol, WebSessionKeys) async throws -> Void) async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("tern-web-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let services = try TernServices.open(environment: ["TERN_HOME": home.path])
        let server = try TernWebServer(services: services, configuration: WebServerConfiguration(port: 8025, token: Self.token, runSync: false))
        let app = Application(router: server.router(port: 8025, hosts: ["localhost"]))
        let keys = self.keys
        try await app.test(.router) { client in try await test(client, keys) }
    }

    func session(_ keys: WebSessionKeys, _ more: HTTPFields = [:]) -> HTTPFields {
        var fields: HTTPFields = [.cookie: "tern_session=\(keys.sessionValue)"]
        fields.append(contentsOf: more)
        return fields
    }

    @Test func theTokenIsExchangedForAStrictHttpOnlyCookie() async throws {
        try await withApp { client, keys in
            try await client.execute(uri: "/?token=\(Self.token)", method: .get) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/mail")
                let cookie = try #require(response.headers[.setCookie])
                #expect(cookie.contains("tern_session=\(keys.sessionValue)"))
                #expect(cookie.contains("HttpOnly"))
                #expect(cookie.contains("SameSite=Strict"))
            }
            try await client.execute(uri: "/?token=wrong-token-0123456789", method: .get) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.setCookie] == nil)
            }
        }
    }

    @Test func withoutTheCookieNothingButTheAssetsIsServed() async throws {
        try await withApp { client, _ in
            for path in ["/mail", "/events", "/bodies/1", "/settings", "/fragments/folders", "/attachments/1/file"] {
                try await client.execute(uri: path, method: .get) { response in #expect(response.status == .unauthorized, "\(path)") }
            }
            try await client.execute(uri: "/mail", method: .get, headers: [.cookie: "tern_session=guess"]) { response in
                #expect(response.status == .unauthorized)
            }
            try await client.execute(uri: "/assets/app.css", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/css") == true)
            }
            try await client.execute(uri: "/assets/nothing.js", method: .get) { response in #expect(response.status == .notFound) }
        }
    }

    @Test func pagesCarryTheLockedDownHeadersAndNoInlineScript() async throws {
        try await withApp { client, keys in
            try await client.execute(uri: "/mail", method: .get, headers: session(keys)) { response in
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
                #expect(page.contains("name=\"csrf-token\" content=\"\(keys.csrfToken)\""))
            }
        }
    }

    @Test func changesNeedTheCSRFToken() async throws {
        try await withApp { client, keys in
            let form = HTTPFields([HTTPField(name: .contentType, value: "application/x-www-form-urlencoded")])
            try await client.execute(uri: "/actions/undo", method: .post, headers: session(keys, form), body: ByteBuffer(string: "token=x")) { response in
                #expect(response.status == .forbidden)
            }
            try await client.execute(uri: "/actions/undo", method: .post, headers: session(keys, form),
                                     body: ByteBuffer(string: "token=x&csrf=\(String(repeating: "0", count: 64))")) { response in
                #expect(response.status == .forbidden)
            }
            // The token as a form field (a page without script): refused only by the use case.
            try await client.execute(uri: "/actions/undo", method: .post, headers: session(keys, form),
                                     body: ByteBuffer(string: "csrf=\(keys.csrfToken)")) { response in
                #expect(response.status == .conflict)
                #expect(String(buffer: response.body).contains("Nothing to undo"))
            }
            // As a header (the app's script): JSON.
            var scripted = session(keys, form)
            scripted[SecurityHeaders.csrfHeaderName] = keys.csrfToken
            try await client.execute(uri: "/actions/undo", method: .post, headers: scripted, body: ByteBuffer()) { response in
                #expect(response.status == .conflict)
                #expect(response.headers[.contentType] == "application/json")
                #expect(String(buffer: response.body).contains("\"ok\":false"))
            }
            try await client.execute(uri: "/settings", method: .post, headers: session(keys, form), body: ByteBuffer(string: "undo-send-delay=0")) {
                #expect($0.status == .forbidden)
            }
        }
    }

    @Test func crossSiteRequestsAreRefusedWhateverThePath() async throws {
        try await withApp { client, keys in
            for path in ["/mail", "/assets/app.js", "/?token=\(Self.token)", "/nothing"] {
                for (name, value) in [(SecurityHeaders.secFetchSiteName, "cross-site"), (SecurityHeaders.secFetchSiteName, "same-site"),
                                      (SecurityHeaders.originName, "http://evil.example"), (SecurityHeaders.originName, "null")] {
                    try await client.execute(uri: path, method: .get, headers: session(keys, [name: value])) { response in
                        #expect(response.status == .forbidden, "\(path) \(name): \(value)")
                    }
                }
            }
            var sameOrigin = session(keys, [SecurityHeaders.secFetchSiteName: "same-origin"])
            sameOrigin[SecurityHeaders.originName] = "http://localhost"
            try await client.execute(uri: "/mail", method: .get, headers: sameOrigin) { #expect($0.status == .ok) }
        }
    }

    @Test func aMessageBodyIsADocumentWithItsOwnPolicy() async throws {
        try await withApp { client, keys in
            try await client.execute(uri: "/bodies/424242", method: .get, headers: session(keys)) { response in
                #expect(response.status == .ok)
                let policy = try #require(response.headers[SecurityHeaders.cspName])
                #expect(policy.hasPrefix("default-src 'none'; style-src 'unsafe-inline'; img-src data:;"))
                #expect(policy.contains("sandbox allow-popups allow-popups-to-escape-sandbox"))
                #expect(!policy.contains("script"))
                #expect(response.headers[SecurityHeaders.frameOptionsName] == "SAMEORIGIN")
                #expect(String(buffer: response.body).contains("This message is no longer here."))
            }
            #expect(BodyDocument.policy(remoteImages: true).contains("img-src data: https: http:;"))
        }
    }

    @Test func fragmentsAndPagesAnswerTheirFailures() async throws {
        try await withApp { client, keys in
            try await client.execute(uri: "/mail?thread=999999", method: .get, headers: session(keys)) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("This conversation appears empty"))
            }
            try await client.execute(uri: "/fragments/message", method: .get, headers: session(keys)) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/fragments/earlier?thread=1", method: .get, headers: session(keys)) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/fragments/threads?folder=INBOX", method: .get, headers: session(keys)) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/fragments/bodies?thread=5", method: .get, headers: session(keys)) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/attachments/77/file", method: .get, headers: session(keys)) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/mail?q=nothing%20here", method: .get, headers: session(keys)) { response in
                #expect(String(buffer: response.body).contains("No messages match your search."))
            }
            try await client.execute(uri: "/settings", method: .get, headers: session(keys)) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("No trusted senders."))
            }
        }
    }

    @Test func settingsChangeThroughTheForm() async throws {
        try await withApp { client, keys in
            let form = session(keys, [.contentType: "application/x-www-form-urlencoded"])
            try await client.execute(uri: "/settings", method: .post, headers: form,
                                     body: ByteBuffer(string: "csrf=\(keys.csrfToken)&undo-send-delay=10&metered=yes")) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/settings?saved=1")
            }
            try await client.execute(uri: "/settings", method: .get, headers: session(keys)) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("<option value=\"10\" selected>10 seconds</option>"))
                #expect(page.contains("<option value=\"yes\" selected>Always metered</option>"))
            }
            try await client.execute(uri: "/settings", method: .post, headers: form,
                                     body: ByteBuffer(string: "csrf=\(keys.csrfToken)&undo-send-delay=7")) { response in
                #expect(response.status == .badRequest)
            }
        }
    }

    @Test func redirectsStayOnThisApp() {
        #expect(WebResponse.redirect(to: "//evil.example/x").headers[.location] == "/mail")
        #expect(WebResponse.redirect(to: "https://evil.example").headers[.location] == "/mail")
        #expect(WebResponse.redirect(to: "/\\evil.example").headers[.location] == "/mail")
        #expect(WebResponse.redirect(to: "/mail?thread=4").headers[.location] == "/mail?thread=4")
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
        try await WebRouteTests().withApp { client, keys in
            let session = WebRouteTests().session(keys)
            try await client.execute(uri: "/fragments/composer?compose=reply", method: .get, headers: session) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/fragments/composer?compose=reply&message=5", method: .get, headers: session) {
                #expect($0.status == .notFound)
            }
            // No account: the use case's error, worded.
            try await client.execute(uri: "/mail?compose=new", method: .get, headers: session) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("Couldn't load this conversation") == false)
                #expect(String(buffer: response.body).contains("open the composer"))
                #expect(String(buffer: response.body).contains("There is no account yet"))
            }
            try await client.execute(uri: "/contacts?q=an", method: .get, headers: session) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "[]")
            }
        }
    }

    @Test func uploadsAndChecksNeedTheCSRFToken() async throws {
        try await WebRouteTests().withApp { client, keys in
            let session = WebRouteTests().session(keys, [.contentType: "application/octet-stream"])
            try await client.execute(uri: "/compose/attachments", method: .post, headers: session, body: ByteBuffer(string: "x")) {
                #expect($0.status == .forbidden)
            }
            var scripted = session
            scripted[SecurityHeaders.csrfHeaderName] = keys.csrfToken
            scripted[ComposeRoutes.fileNameHeader] = "report%20%C3%A9.pdf"
            try await client.execute(uri: "/compose/attachments", method: .post, headers: scripted, body: ByteBuffer(string: "%PDF-1.4")) { response in
                #expect(response.status == .ok)
                let body = String(buffer: response.body)
                #expect(body.contains("\"name\":\"report é.pdf\""))
                #expect(body.contains("\"size\":8"))
            }
            // Issue 32: CR LF and a path in the name are gone on upload, as from a received attachment's.
            scripted[ComposeRoutes.fileNameHeader] = "..%2Fevil%0D%0AX%3A%20y.txt"
            try await client.execute(uri: "/compose/attachments", method: .post, headers: scripted, body: ByteBuffer(string: "text")) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("\"name\":\"evilX: y.txt\""))
            }
            try await client.execute(uri: "/compose/undo", method: .post, headers: scripted, body: ByteBuffer(string: "email=99")) { response in
                #expect(response.status == .conflict)
                #expect(String(buffer: response.body).contains("Too late to undo"))
            }
        }
    }
}
