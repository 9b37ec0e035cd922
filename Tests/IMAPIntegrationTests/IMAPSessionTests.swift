import Foundation
import Synchronization
import TernCore
import Testing

@testable import IMAP

/// Every command of the client against the real Dovecot, each test in a mailbox of its own.
@Suite(.enabled(if: TestServers.available, "needs the test mail servers (make test)"), .timeLimit(.minutes(2)))
struct IMAPSessionTests {
    static func message(_ subject: String, messageId: String, references: String? = nil, body: String = "Hello there.") -> [UInt8] {
        var text = "From: Alice <alice@tern.test>\r\nTo: Bob <bob@tern.test>\r\nSubject: \(subject)\r\n"
        text += "Date: Sat, 21 Nov 2026 10:00:00 +0000\r\nMessage-ID: <\(messageId)>\r\n"
        if let references { text += "References: <\(references)>\r\nIn-Reply-To: <\(references)>\r\n" }
        text += "MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=b1\r\n\r\n"
        text +=
            "--b1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\(body)\r\n--b1\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>\(body)</p>\r\n--b1--\r\n"
        return Array(text.utf8)
    }

    static func withMailbox<T: Sendable>(_ body: (IMAPSession, String) async throws -> T) async throws -> T {
        try await IMAPClient.withSession(to: TestServers.server()) { session in
            try await session.login(username: "bob@tern.test", password: TestServers.password)
            let name = "Test-\(UUID().uuidString.prefix(8))"
            try await session.create(MailboxPath(name))
            do {
                let result = try await body(session, name)
                try await session.unselect()
                try await session.delete(MailboxPath(name))
                return result
            } catch {
                try? await session.delete(MailboxPath(name))
                throw error
            }
        }
    }

    @Test func idAndEnable() async throws {
        try await IMAPClient.withSession(to: TestServers.server()) { session in
            let serverID = try await session.id()
            #expect(serverID["name"] == "Dovecot")
            try await session.login(username: "bob@tern.test", password: TestServers.password)
            let enabled = try await session.enable(["CONDSTORE", "QRESYNC", "NOSUCHEXTENSION"])
            #expect(enabled == ["CONDSTORE", "QRESYNC"])
            try await session.noop()
            let subscribed = try await session.listSubscribed()
            #expect(subscribed.contains { $0.name == "INBOX" })
            try await session.logout()
        }
    }

    @Test func appendSearchFetchStore() async throws {
        try await Self.withMailbox { session, mailbox in
            let date = Date(timeIntervalSince1970: 1_790_000_000)
            let first = try await session.append(
                to: MailboxPath(mailbox), message: Self.message("First", messageId: "m1@tern.test"), flags: ["\\Seen"], date: date)
            let second = try await session.append(
                to: MailboxPath(mailbox), message: Self.message("Re: First", messageId: "m2@tern.test", references: "m1@tern.test"))
            #expect(first?.destination.count == 1)
            #expect(second?.uidValidity == first?.uidValidity)

            let selected = try await session.select(MailboxPath(mailbox))
            #expect(selected.exists == 2)
            #expect(selected.uidValidity == first?.uidValidity)
            let all = try await session.uidSearch(.all)
            #expect(all.count == 2)
            #expect(try await session.uidSearch(.unseen) == second!.destination.uids)
            #expect(try await session.uidSearch(.and([.since(date.addingTimeInterval(-86_400)), .uids(UIDSet(uids: all))])).count == 2)
            #expect(try await session.uidSearch(.header(name: "Message-ID", value: "m2@tern.test")) == second!.destination.uids)

            var fetched: [FetchedMessage] = []
            let quarantined = try await session.uidFetch(
                UIDSet(uids: all),
                items: [
                    .flags, .envelope, .bodyStructure, .internalDate, .size, .modSeq, .headerFields(["References", "In-Reply-To"]),
                    .section("1", partial: 0..<5)
                ]
            ) { fetched.append($0) }
            #expect(quarantined.isEmpty)
            #expect(fetched.count == 2)
            let firstMessage = try #require(fetched.first { $0.uid == first?.destination.uids.first })
            #expect(firstMessage.flags?.contains("\\Seen") == true)
            #expect(firstMessage.envelope?.subject == "First")
            #expect(firstMessage.envelope?.messageId == "<m1@tern.test>")
            #expect(firstMessage.internalDate == date)
            #expect(firstMessage.bodyStructure?.contentType == "multipart/alternative")
            #expect(firstMessage.bodyStructure?.children.map(\.partId) == ["1", "2"])
            #expect(firstMessage.section("1") == Array("Hello".utf8))
            let reply = try #require(fetched.first { $0.uid == second?.destination.uids.first })
            #expect(String(decoding: reply.headerFields ?? [], as: UTF8.self).contains("References: <m1@tern.test>"))
            #expect(reply.modSeq != nil)

            // CONDSTORE: only what changed since the highest mod-sequence comes back.
            let before = try #require(fetched.compactMap(\.modSeq).max())
            let stored = try await session.uidStore(second!.destination, .add, flags: ["\\Flagged"], silent: false)
            #expect(stored.updated.first?.flags?.contains("\\Flagged") == true)
            var changed: [FetchedMessage] = []
            try await session.uidFetch(UIDSet(uids: all), items: [.flags], changedSince: before) { changed.append($0) }
            #expect(changed.map(\.uid) == [second!.destination.uids.first])
            try await session.uidStore(second!.destination, .remove, flags: ["\\Flagged"])
            #expect(try await session.uidSearch(.flagged).isEmpty)
            // UNCHANGEDSINCE refuses a change to a message modified meanwhile.
            let refused = try await session.uidStore(second!.destination, .add, flags: ["\\Answered"], unchangedSince: 1)
            #expect(refused.modified == second!.destination)
        }
    }

    @Test func copyMoveAndExpunge() async throws {
        try await Self.withMailbox { session, mailbox in
            let target = mailbox + "-target"
            try await session.create(MailboxPath(target))
            defer {
                Task {
                    try? await IMAPClient.withSession(to: TestServers.server()) { s in
                        try await s.login(username: "bob@tern.test", password: TestServers.password)
                        try await s.delete(MailboxPath(target))
                    }
                }
            }
            for index in 1...4 {
                try await session.append(
                    to: MailboxPath(mailbox), message: Self.message("Message \(index)", messageId: "cm\(index)-\(mailbox)@tern.test"))
            }
            try await session.select(MailboxPath(mailbox))
            try await session.loadSequenceMap()
            let uids = try await session.uidSearch(.all).sorted()
            #expect(uids.count == 4)

            let copied = try await session.uidCopy(UIDSet(uids: [uids[0]]), to: MailboxPath(target))
            #expect(copied?.source == UIDSet(uids: [uids[0]]))
            #expect(copied?.destination.count == 1)

            let moved = try await session.uidMove(UIDSet(uids: [uids[1]]), to: MailboxPath(target))
            #expect(moved?.source == UIDSet(uids: [uids[1]]))
            #expect(try await session.uidSearch(.all).sorted() == [uids[0], uids[2], uids[3]])

            // UID EXPUNGE removes only the named \Deleted message, not another one also \Deleted.
            try await session.uidStore(UIDSet(uids: [uids[2], uids[3]]), .add, flags: ["\\Deleted"])
            let gone = try await session.uidExpunge(UIDSet(uids: [uids[2]]))
            #expect(gone == [uids[2]])
            #expect(try await session.uidSearch(.all).sorted() == [uids[0], uids[3]])
            #expect(try await session.expunge() == [uids[3]])

            let statuses = try await session.status(of: [MailboxPath(target), MailboxPath(mailbox)])
            #expect(statuses[target]?["MESSAGES"] == 2)
            #expect(statuses[mailbox]?["MESSAGES"] == 1)
            #expect(statuses[mailbox]?["HIGHESTMODSEQ"] != nil)
        }
    }

    @Test func pipelinedCommandsAnswerInOneRoundTrip() async throws {
        try await IMAPClient.withSession(to: TestServers.server()) { session in
            try await session.login(username: "bob@tern.test", password: TestServers.password)
            let result = try await session.pipeline(["NOOP", "CAPABILITY", "LIST \"\" INBOX"])
            #expect(result.untagged.contains { if case .capability = $0 { true } else { false } })
            #expect(result.untagged.contains { if case .list = $0 { true } else { false } })
        }
    }

    @Test func unsolicitedChangesReachTheMailboxHandlerWithUIDs() async throws {
        try await Self.withMailbox { session, mailbox in
            for index in 1...3 {
                try await session.append(
                    to: MailboxPath(mailbox), message: Self.message("Event \(index)", messageId: "ev\(index)-\(mailbox)@tern.test"))
            }
            let events = EventLog()
            session.eventSink = { name, event in if name == mailbox { events.append(event) } }
            try await session.select(MailboxPath(mailbox))
            try await session.loadSequenceMap()
            let uids = try await session.uidSearch(.all).sorted()
            // Another client deletes the second message and adds a flag to the third.
            try await IMAPClient.withSession(to: TestServers.server()) { other in
                try await other.login(username: "bob@tern.test", password: TestServers.password)
                try await other.select(MailboxPath(mailbox))
                try await other.uidStore(UIDSet(uids: [uids[2]]), .add, flags: ["\\Flagged"])
                try await other.uidStore(UIDSet(uids: [uids[1]]), .add, flags: ["\\Deleted"])
                try await other.uidExpunge(UIDSet(uids: [uids[1]]))
                try await other.append(to: MailboxPath(mailbox), message: Self.message("Event 4", messageId: "ev4-\(mailbox)@tern.test"))
            }
            try await session.noop()
            let seen = events.events
            #expect(seen.contains(.expunged(sequence: 2, uid: uids[1])))
            #expect(
                seen.contains {
                    if case .flagsChanged(_, let uid, let flags, _) = $0 { uid == uids[2] && flags.contains("\\Flagged") } else { false }
                })
            #expect(seen.contains(.exists(count: 3)))
            #expect(session.uid(forSequence: 2) == uids[2])
        }
    }
}

final class EventLog: Sendable {
    private let storage = Mutex<[MailboxEvent]>([])
    func append(_ event: MailboxEvent) { storage.withLock { $0.append(event) } }
    var events: [MailboxEvent] { storage.withLock { $0 } }
}
