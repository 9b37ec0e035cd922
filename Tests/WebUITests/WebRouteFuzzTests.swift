import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TernCore
import Testing

@testable import TernBenchmarks
@_spi(Tooling) @testable import TernRuntime
@testable import WebUI

/// issue 32: one GET (`/fragments/earlier?page=9223372036854775807`) trapped and took `tern serve`
/// and its sync engine down. Every route the router knows, GET and POST, signed in and with the
/// CSRF token, gets extreme, negative, non-numeric, huge, encoded and repeated values in its path
/// parameters and in every query and form field the app reads, on a store holding a 500-message
/// thread (so paging code is reached). Each answer must be worded (below 500), and the app must
/// still serve afterwards. A trap fails the whole test run.
@Suite struct WebRouteFuzzTests {
    static let hostileValues = [
        "0", "-1", "1", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "18446744073709551616",
        "99999999999999999999999999", "1e308", "NaN", "0x10", "abc", "t1", "%00", "%FF%FE", "%0D%0ASet-Cookie:%20x=1",
        "..%2F..%2Fetc%2Fpasswd", "%3Cscript%3E", String(repeating: "9", count: 4_096), String(repeating: "a%2C", count: 2_000), "",
        "1,2,3,9223372036854775807", "-5,-6"
    ]
    /// Every field name a route or `MailLocation` reads.
    static let fieldNames = [
        "thread", "page", "id", "message", "email", "folder", "account", "earlier", "open", "images", "q", "before", "compose",
        "view", "draft", "from", "server", "suggestion", "location", "return", "change", "expanded", "confirmed", "address",
        "to", "cc", "bcc", "subject", "body", "attachment", "undo-send-delay", "catch-up", "metered", "mode", "mailto", "when", "at",
        "state", "oauth-state", "sign-in", "sign-in-with", "oauth-client-id-google", "oauth-client-id-microsoft"
    ]
    /// Streams that never end by themselves.
    static let skipped: Set<String> = ["/events"]

    @Test func everyRouteAnswersHostileParametersAndTheAppKeepsServing() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("tern-web-fuzz-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let services = try TernServices.open(environment: ["TERN_HOME": home.path])
        let (small, large) = try await ReadingBenchmark.populate(services.database)
        let server = try TernWebServer(
            services: services, configuration: WebServerConfiguration(port: 8025, token: WebRoutesTests.token, runSync: false))
        // (method, path components): the router's descriptions are not Sendable.
        let routes = server.router().routes.filter { !Self.skipped.contains($0.path.description) }
            .map { ($0.method, $0.path.components.map(\.description)) }
        #expect(routes.count > 30)
        let app = Application(responder: server.responder(port: 8025, hosts: ["localhost"]))
        try await app.test(.router) { client in
            let s = try await WebRoutesTests.signIn(client, csrfToken: server.secrets.csrfToken)
            var headers = s.headers([.contentType: "application/x-www-form-urlencoded"])
            headers[SecurityHeaders.csrfHeaderName] = s.csrfToken
            var answered = 0
            for (method, components) in routes {
                for value in Self.hostileValues {
                    let path = components.map { component in
                        component.hasPrefix(":") || component.hasPrefix("{") ? (value.isEmpty ? "0" : value) : component
                    }.joined(separator: "/")
                    let everyField = Self.fieldNames.map { "\($0)=\(value)" }
                    // Valid ids first (a form reads the first of a repeated name), so the hostile
                    // value reaches the code past the lookup: paging, flags, settings.
                    let validIds = ["thread=\(large)", "email=\(small)", "message=\(small)", "id=\(small)"]
                    for fields in [everyField, validIds + everyField, everyField + validIds + everyField] {
                        let query = fields.joined(separator: "&")
                        let uri = s.path("/" + path) + "?" + query
                        try await client.execute(
                            uri: uri, method: method, headers: headers,
                            body: method == .post ? ByteBuffer(string: query) : nil
                        ) { response in
                            #expect(
                                response.status.code < 500,
                                "\(method) /\(path) value \(value.prefix(40)): \(response.status) \(String(buffer: response.body).prefix(300))")
                        }
                    }
                    answered += 1
                }
            }
            #expect(answered == routes.count * Self.hostileValues.count)
            try await client.execute(uri: s.path("/mail?thread=\(large)"), method: .get, headers: s.headers()) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("Show earlier messages"))
            }
        }
    }
}
