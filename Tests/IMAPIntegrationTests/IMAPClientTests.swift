import Foundation
import MailTransport
import Sync
import TernCore
import Testing

@testable import IMAP

/// Against the real Dovecot started by `make test` (scripts/mailservers). Skipped when run
/// without the servers (plain `swift test`).
enum TestServers {
    static let environment = ProcessInfo.processInfo.environment
    static let directory = environment["TERN_MAILSERVERS_DIR"]
    static var available: Bool {
        guard let directory else { return false }
        return FileManager.default.fileExists(atPath: directory + "/tls/ca.crt")
    }
    static var ca: String { (directory ?? "") + "/tls/ca.crt" }
    static var password: String { environment["TERN_TEST_PASSWORD"] ?? "tern-test-password" }
    static var imapsPort: Int { Int(environment["TERN_IMAPS_PORT"] ?? "") ?? 10993 }
    static var imapPort: Int { Int(environment["TERN_IMAP_PORT"] ?? "") ?? 10143 }

    static func server(security: TransportSecurity = .implicitTLS, host: String = "127.0.0.1", port: Int? = nil, ca: String? = TestServers.ca)
        -> MailServer
    {
        MailServer(
            host: host, port: port ?? (security == .implicitTLS ? imapsPort : imapPort), security: security, caFile: ca,
            connectTimeout: .seconds(10))
    }
}

@Suite(.enabled(if: TestServers.available, "needs the test mail servers (make test)"), .serialized, .timeLimit(.minutes(1)))
struct IMAPClientTests {
    /// Issue 35: "No encryption", chosen by the person after a warning: plain TCP to the STARTTLS
    /// port, no STARTTLS sent, the login accepted (Dovecot allows it from this machine).
    @Test func plaintextLoginWithoutSTARTTLS() async throws {
        let server = TestServers.server(security: .plaintext, ca: nil)
        #expect(server.port == TestServers.imapPort)
        let listed = try await IMAPClient.withSession(to: server) { session in
            try await session.login(username: "bob@tern.test", password: TestServers.password)
            let listings = try await session.listMailboxes()
            try await session.logout()
            return listings.map(\.name)
        }
        #expect(listed.contains("INBOX"))
    }

    @Test func implicitTLSLoginAndSpecialUseMapping() async throws {
        let folders = try await IMAPClient.withSession(to: TestServers.server()) { session in
            try await session.login(username: "bob@tern.test", password: TestServers.password)
            #expect(session.capabilities.contains("IDLE"))
            #expect(session.capabilities.contains("UIDPLUS"))
            let listings = try await session.listMailboxes()
            try await session.logout()
            return Dictionary(listings.map { ($0.name, $0.folderType) }, uniquingKeysWith: { first, _ in first })
        }
        #expect(folders["INBOX"] == .inbox)
        #expect(folders["[Gmail]/Sent Mail"] == .sent)
        #expect(folders["[Gmail]/All Mail"] == .all)
        #expect(folders["[Gmail]/Important"] == .important)
        #expect(folders["[Gmail]/Spam"] == .spam)
        #expect(folders["[Gmail]/Starred"] == .starred)
        #expect(folders["Receipts"] == .custom)
        #expect(folders["[Gmail]/All Mail"]?.isSyncable == false)
    }

    @Test func startTLSLoginAndSelect() async throws {
        let selected = try await IMAPClient.withSession(to: TestServers.server(security: .startTLS, host: "localhost")) { session in
            try await session.login(username: "bob@tern.test", password: TestServers.password)
            return try await session.select("INBOX")
        }
        #expect(selected.uidValidity != nil)
        #expect(selected.uidNext != nil)
        #expect(selected.highestModSeq != nil)
    }

    @Test func unknownCAIsRefused() async throws {
        await #expect(throws: IMAPError.self) {
            try await IMAPClient.withSession(to: TestServers.server(ca: nil)) { _ in }
        }
        do {
            try await IMAPClient.withSession(to: TestServers.server(ca: nil)) { _ in }
        } catch let error as IMAPError {
            guard case .tlsRefused(let text) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(text.contains("not trusted"))
        }
    }

    // Self-signed and TLS < 1.2 servers are refused: SystemTests/integration/test_imap_check.py drives
    // `tern imap-check` against openssl s_server for both.

    @Test func wrongPasswordIsAnAuthenticationFailure() async throws {
        do {
            try await IMAPClient.withSession(to: TestServers.server()) { session in
                try await session.login(username: "bob@tern.test", password: "wrong")
            }
            Issue.record("logged in with a wrong password")
        } catch let error as IMAPError {
            guard case .authenticationFailed = error else {
                Issue.record("\(error)")
                return
            }
        }
    }

    @Test func refusedConnectionIsARetryableNetworkError() async throws {
        do {
            try await IMAPClient.withSession(to: TestServers.server(port: 1)) { _ in }
        } catch let error as IMAPError {
            #expect(error.isRetryable)
            #expect(error.description.contains("connection refused"))
        }
    }

    @Test func startTLSIsRequiredWhenAsked() async throws {
        // Port 1 refuses; the point is that `.startTLS` against a server without STARTTLS is refused
        // before any login. Dovecot offers STARTTLS, so this checks the capability is seen.
        try await IMAPClient.withSession(to: TestServers.server(security: .startTLS, host: "localhost")) { session in
            #expect(!session.capabilities.contains("STARTTLS"), "capabilities must be re-read after STARTTLS")
        }
    }
}
