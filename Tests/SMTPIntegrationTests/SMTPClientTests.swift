import Foundation
import IMAP
import MIME
import MailTransport
import Testing

@testable import SMTP

/// Against the real Postfix (submission with STARTTLS, implicit TLS) delivering through LMTP to the
/// real Dovecot, started by `make test`. The user dave is this suite's own.
enum MailServers {
    static let environment = ProcessInfo.processInfo.environment
    static let directory = environment["TERN_MAILSERVERS_DIR"]
    static var available: Bool { directory.map { FileManager.default.fileExists(atPath: $0 + "/tls/ca.crt") } ?? false }
    static var ca: String { (directory ?? "") + "/tls/ca.crt" }
    static var password: String { environment["TERN_TEST_PASSWORD"] ?? "tern-test-password" }
    static func port(_ name: String, _ fallback: Int) -> Int { Int(environment[name] ?? "") ?? fallback }

    static var submission: MailServer {
        MailServer(host: "127.0.0.1", port: port("TERN_SUBMISSION_PORT", 10587), security: .startTLS, caFile: ca, connectTimeout: .seconds(10))
    }
    static var smtps: MailServer {
        MailServer(host: "127.0.0.1", port: port("TERN_SMTPS_PORT", 10465), security: .implicitTLS, caFile: ca, connectTimeout: .seconds(10))
    }
    static var imap: MailServer {
        MailServer(host: "127.0.0.1", port: port("TERN_IMAPS_PORT", 10993), security: .implicitTLS, caFile: ca, connectTimeout: .seconds(10))
    }
    static func credential(_ user: String) -> MailCredential { .password(username: "\(user)@tern.test", password: password) }
}

@Suite(.enabled(if: MailServers.available, "needs the test mail servers (make test)"), .serialized, .timeLimit(.minutes(2)))
struct SMTPClientTests {
    static func message(subject: String, to: [String], bcc: [String] = []) throws -> (bytes: [UInt8], messageId: String, envelope: SMTPEnvelope) {
        let messageId = MessageBuilder.generateMessageID(domain: "tern.test")
        let outgoing = OutgoingMIMEMessage(
            from: MailboxAddress(name: "Alice Example", address: "alice@tern.test"), to: to.map { MailboxAddress(address: $0) },
            bcc: bcc.map { MailboxAddress(address: $0) }, subject: subject, messageId: messageId,
            bodyPlain: "Grüße aus Tern.\n.\nA line with only a dot above; it must survive.\n")
        var seen = Set<String>()
        let recipients = (to + bcc).filter { seen.insert($0.lowercased()).inserted }
        return (try MessageBuilder().build(outgoing), messageId, SMTPEnvelope(sender: "alice@tern.test", recipients: recipients))
    }

    /// Waits (up to 10 s) for a message with this Message-ID in the user's INBOX and returns its bytes.
    static func fetchDelivered(to user: String, messageId: String) async throws -> [UInt8]? {
        try await IMAPClient.withSession(to: MailServers.imap) { session in
            try await session.login(username: "\(user)@tern.test", password: MailServers.password)
            for _ in 0..<100 {
                try await session.select("INBOX", readOnly: true)
                let uids = try await session.uidSearch(.header(name: "Message-ID", value: messageId))
                if let uid = uids.first {
                    var bytes: [UInt8]?
                    try await session.uidFetch(UIDSet(uids: [uid]), items: [.section("")]) { bytes = $0.section("") }
                    return bytes
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            return nil
        }
    }

    @Test func submissionWithSTARTTLSReachesTheRecipientWithoutBcc() async throws {
        let (bytes, messageId, envelope) = try Self.message(subject: "Hello over 587", to: ["dave@tern.test"], bcc: ["bob@tern.test"])
        let delivery = try await SMTPClient.send(
            bytes, envelope: envelope, server: MailServers.submission, credential: MailServers.credential("alice"))
        #expect(delivery.accepted == ["dave@tern.test", "bob@tern.test"])
        #expect(!delivery.isPartial)
        #expect(delivery.reply.enhancedCode == "2.0.0")
        let received = try #require(try await Self.fetchDelivered(to: "dave", messageId: messageId))
        let parsed = MessageParser().parse(received)
        #expect(parsed.headers.first("subject")?.decodedValue == "Hello over 587")
        #expect(parsed.headers.first("bcc") == nil)
        #expect(try await Self.fetchDelivered(to: "bob", messageId: messageId) != nil, "the Bcc recipient got it through the envelope")
    }

    @Test func implicitTLSSubmissionOfAn8BitMessageWithDotLines() async throws {
        // Raw bytes, not the builder (which quoted-printable-encodes a leading dot): dot-stuffing and
        // BODY=8BITMIME on the wire, and the recipient sees the lines as written.
        let messageId = "raw-\(UUID().uuidString)@tern.test"
        let body = "Grüße\n.\n..two dots\n.end\n"
        let raw =
            "From: alice@tern.test\nTo: dave@tern.test\nSubject: raw\nMessage-ID: <\(messageId)>\nMIME-Version: 1.0\n"
            + "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n" + body
        let delivery = try await SMTPClient.send(
            Array(raw.utf8), envelope: SMTPEnvelope(sender: "alice@tern.test", recipients: ["dave@tern.test"]),
            server: MailServers.smtps, credential: MailServers.credential("alice"))
        #expect(delivery.accepted == ["dave@tern.test"])
        let received = String(decoding: try #require(try await Self.fetchDelivered(to: "dave", messageId: messageId)), as: UTF8.self)
        #expect(received.hasSuffix("\r\n\r\nGrüße\r\n.\r\n..two dots\r\n.end\r\n"))
    }

    @Test func aRefusedRecipientIsPermanentWithTheServersText() async throws {
        let (bytes, _, envelope) = try Self.message(subject: "To nobody", to: ["nobody@tern.test"])
        await #expect {
            try await SMTPClient.send(bytes, envelope: envelope, server: MailServers.submission, credential: MailServers.credential("alice"))
        } throws: { error in
            guard let error = error as? SMTPError, case .recipientsRefused(let refusals) = error else { return false }
            return !error.isTransient && refusals.first?.reply.code == 550 && refusals.first?.reply.enhancedCode == "5.1.1"
                && refusals.first?.reply.text.contains("nobody@tern.test") == true
        }
    }

    @Test func someRecipientsRefusedIsAPartialDelivery() async throws {
        let (bytes, messageId, envelope) = try Self.message(subject: "Partly", to: ["dave@tern.test", "nobody@tern.test"])
        let delivery = try await SMTPClient.send(
            bytes, envelope: envelope, server: MailServers.submission, credential: MailServers.credential("alice"))
        #expect(delivery.isPartial)
        #expect(delivery.accepted == ["dave@tern.test"])
        #expect(delivery.refused.map(\.recipient) == ["nobody@tern.test"])
        #expect(try await Self.fetchDelivered(to: "dave", messageId: messageId) != nil)
    }

    @Test func aWrongPasswordIsAnAuthenticationFailure() async throws {
        await #expect {
            try await SMTPClient.check(server: MailServers.submission, credential: .password(username: "alice@tern.test", password: "wrong"))
        } throws: { error in
            guard case SMTPError.authenticationFailed(let reply) = error else { return false }
            return reply.code == 535
        }
    }

    @Test func checkReportsExtensions() async throws {
        let result = try await SMTPClient.check(server: MailServers.submission, credential: MailServers.credential("alice"))
        #expect(result.extensions.contains("PIPELINING"))
        #expect(result.extensions.contains("ENHANCEDSTATUSCODES"))
        #expect(result.authenticatedWith == "PLAIN")
    }

    @Test func untrustedCertificateIsRefused() async throws {
        var server = MailServers.submission
        server.caFile = nil
        await #expect {
            try await SMTPClient.check(server: server, credential: MailServers.credential("alice"))
        } throws: { error in
            guard case SMTPError.tlsRefused(let text) = error else { return false }
            return text.contains("not trusted")
        }
    }

    @Test func idleSeesAMessageDeliveredThroughPostfix() async throws {
        let pool = IMAPConnectionPool(
            server: MailServers.imap, credentials: .fixed(.password(username: "dave@tern.test", password: MailServers.password)))
        let watcher = Task { () -> ContinuousClock.Instant? in
            for try await event in pool.idleEvents(mailbox: "INBOX") {
                if case .exists = event { return ContinuousClock.now }
            }
            return nil
        }
        try await Task.sleep(for: .milliseconds(800)) // SELECT and IDLE are under way
        let (bytes, _, envelope) = try Self.message(subject: "Ping for IDLE", to: ["dave@tern.test"])
        let sent = ContinuousClock.now
        _ = try await SMTPClient.send(bytes, envelope: envelope, server: MailServers.submission, credential: MailServers.credential("alice"))
        let seen = try #require(try await watcher.value)
        // A push, not a later look: nothing here looks again for minutes. How soon is a benchmark's
        // question (it took about 0.1 s on a quiet machine and up to 1.03 s on a loaded one).
        #expect(seen - sent < .seconds(10), "IDLE saw the delivery after \(seen - sent)")
        await pool.shutdown()
    }
}
