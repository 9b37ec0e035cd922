import Foundation
import ScriptedServers
import TernCore
import Testing

@testable import TernRuntime

/// Issue 33: one message on a live SMTP session (`LiveSubmissionSession.submit`), against a scripted
/// submission server over TLS and the real SMTP client: what the server said becomes the queue's
/// receipt or the queue's kind of failure (FR-SYNC-07), and the queue's own step before the
/// content goes out (recording the attempt) runs after the envelope was accepted and before DATA's
/// content is sent.
@Suite(.enabled(if: ScriptedSubmission.caFile != nil, "needs the test CA (make test)"), .timeLimit(.minutes(1)))
struct LiveSubmissionSessionTests {
    static let submission = OutgoingSubmission(
        emailId: 7, messageId: "<m7@tern.test>", raw: Array("Subject: hi\r\n\r\nHello.\r\n".utf8),
        envelope: MessageEnvelope(sender: "me@tern.test", recipients: ["dave@tern.test", "nobody@tern.test"]), date: Date())

    /// Submits `submission` through `LiveMessageSubmitter` to a server that answers RCPT for
    /// `nobody` with `nobodyReply` and the content with `contentReply`.
    static func submit(nobodyReply: String = "250 ok\r\n", contentReply: String) async throws -> (
        result: Result<SubmissionReceipt, any Error>, commands: [String], stepRanBeforeContent: Bool
    ) {
        let server = try await ScriptedSMTPServer.start(tls: true) { command in
            switch command.uppercased() {
            case let c where c.hasPrefix("EHLO"): "250-hi\r\n250-PIPELINING\r\n250 AUTH PLAIN\r\n"
            case let c where c.hasPrefix("AUTH"): "235 2.7.0 ok\r\n"
            case let c where c.hasPrefix("RCPT") && c.contains("NOBODY"): nobodyReply
            case let c where c.hasPrefix("MAIL"), let c where c.hasPrefix("RCPT"): "250 ok\r\n"
            case "DATA": "354 go on\r\n"
            case ".": contentReply
            case "QUIT": "221 bye\r\n"
            default: "500 what\r\n"
            }
        }
        defer { server.stop() }
        let account = ScriptedSubmission.account(port: server.port)
        let stepSawCommands = Locked<[String]?>(nil)
        let result = await Result {
            try await LiveMessageSubmitter(environment: [:]).withSession(account: account, credentials: passwordCredentials()) { session in
                try await session.submit(Self.submission) { stepSawCommands.withLock { $0 = server.commands } }
            }
        }
        let seen = stepSawCommands.withLock { $0 } ?? []
        return (result, server.commands, seen.contains { $0.uppercased().hasPrefix("RCPT") } && !seen.contains("."))
    }

    @Test func anAcceptedMessageGivesTheServersReplyAndTheRecipientsItRefused() async throws {
        let outcome = try await Self.submit(nobodyReply: "550 5.1.1 no such user\r\n", contentReply: "250 2.0.0 queued as 4F2\r\n")
        let receipt = try outcome.result.get()
        #expect(receipt.reply.contains("queued as 4F2"))
        #expect(receipt.refusedRecipients.count == 1 && receipt.refusedRecipients[0].contains("nobody@tern.test"))
        #expect(outcome.stepRanBeforeContent, "the queue records its attempt once the envelope is accepted, before the content")
        #expect(outcome.commands.contains("DATA"))
    }

    @Test func aRefusedContentIsPermanentAndATemporaryOneIsRetried() async throws {
        let refused = try await Self.submit(contentReply: "554 5.7.1 spam\r\n")
        #expect {
            try refused.result.get()
        } throws: { error in
            guard case SubmissionError.permanent(let text) = error else { return false }
            return text.contains("spam")
        }
        let deferred = try await Self.submit(contentReply: "451 4.3.0 try later\r\n")
        #expect {
            try deferred.result.get()
        } throws: { error in
            guard case SubmissionError.transient = error else { return false }
            return true
        }
    }

    @Test func aConnectionLostAfterTheContentLeavesTheDeliveryUncertain() async throws {
        let dropped = try await Self.submit(contentReply: ScriptedSMTPServer.close)
        #expect {
            try dropped.result.get()
        } throws: { error in
            guard case SubmissionError.deliveryUncertain = error else { return false }
            return true
        }
    }
}

/// The test CA `make test` made (`TERN_MAILSERVERS_DIR`), which the scripted servers' certificate
/// chains to.
enum ScriptedSubmission {
    static var caFile: String? {
        guard let directory = ProcessInfo.processInfo.environment["TERN_MAILSERVERS_DIR"] else { return nil }
        let path = directory + "/tls/ca.crt"
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    static func account(port: Int) -> Account {
        var account = liveTestAccount()
        account.smtp = ServerEndpoint(host: "127.0.0.1", port: port, security: .implicitTLS)
        account.caFile = caFile
        return account
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
