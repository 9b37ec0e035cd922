import Foundation
import TernCore
import Testing

@testable import IMAP

/// Issue 22, RFC 4978 COMPRESS=DEFLATE against the real Dovecot: after login the connection is
/// deflated both ways, and every command answers as it does without.
@Suite(.enabled(if: TestServers.available, "needs the test mail servers (make test)"), .timeLimit(.minutes(2)))
struct CompressionTests {
    func session<T: Sendable>(compressing: Bool, _ body: (IMAPSession) async throws -> T) async throws -> T {
        var server = TestServers.server()
        if !compressing { server.ignoredCapabilities = ["COMPRESS=DEFLATE"] }
        return try await IMAPClient.withSession(to: server) { session in
            try await session.authenticate(.password(username: "bob@tern.test", password: TestServers.password))
            return try await body(session)
        }
    }

    /// Every message of the mailbox, whole.
    static func messages(in mailbox: String, session: IMAPSession) async throws -> [String] {
        try await session.select(MailboxPath(mailbox), readOnly: true)
        var bodies: [String] = []
        try await session.uidFetch(UIDSet([1...UInt32.max]), items: [.uid, .flags, .section("")]) { message in
            bodies.append(String(decoding: message.section("") ?? [], as: UTF8.self))
        }
        try await session.unselect()
        return bodies
    }

    @Test func aCompressedConnectionAnswersAsAPlainOne() async throws {
        let name = "Compressed-\(UUID().uuidString.prefix(8))"
        let messages = (1...20).map { index in
            IMAPSessionTests.message(
                "Compressed \(index)", messageId: "compressed-\(index)-\(name)@tern.test",
                body: String(repeating: "The quarterly figures are attached. ", count: 40))
        }
        let compressed = try await session(compressing: true) { session in
            #expect(session.isCompressed)
            try await session.create(MailboxPath(name))
            for message in messages { _ = try await session.append(to: MailboxPath(name), message: message) }
            let bodies = try await Self.messages(in: name, session: session)
            let counters = session.compressionCounters.withLockedValue { $0 }
            return (bodies, counters)
        }
        let plain = try await session(compressing: false) { session in
            #expect(!session.isCompressed)
            let bodies = try await Self.messages(in: name, session: session)
            try await session.delete(MailboxPath(name))
            return bodies
        }
        #expect(compressed.0.count == 20 && compressed.0 == plain)
        #expect(compressed.0.first?.contains("quarterly figures") == true)
        // Repetitive mail compresses: the server's bytes shrank several times over.
        #expect(compressed.1.compressedIn * 4 < compressed.1.inflatedIn, "\(compressed.1)")
        #expect(compressed.1.compressedOut < compressed.1.plainOut, "\(compressed.1)")
    }
}
