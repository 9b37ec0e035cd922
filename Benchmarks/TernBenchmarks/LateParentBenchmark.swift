import Foundation
import GRDB
import MailStore
import Sync
import TernCore

/// `tern-bench late-parent` (issue 38: "threading of a late parent that joins two large threads
/// under 10 ms"). Two conversations of `size` messages each are stored: A, whose first message
/// answers a Message-ID nobody stored (a placeholder node, FR-SYNC-06), and B. Then the missing
/// message arrives: its own Message-ID is the placeholder's and it answers B's last message, so it
/// fills A's placeholder and links to B, and the two threads become one. What is timed is what a
/// sync pays for that one message: `SQLiteMessageStore.store` of a batch of one (the thread graph's
/// union, every email of the absorbed thread moved, the joined thread's summary and per-folder rows
/// rebuilt, in one write transaction), and, apart, `ThreadGrouper.add` of the same headers in
/// memory. In a store of one's own (`home`: a synced 1,000,000-message store) the rows sit among
/// everything else; the conversations go in a folder of their own that no server lists, so the
/// next `tern sync` removes them.
public enum LateParentBenchmark {
    public struct Report: Sendable, Encodable {
        public var storedEmails: Int
        public var threadSize: Int
        public var rounds: Int
        /// `store` of the late parent: the whole write transaction.
        public var storeP50Milliseconds: Double
        public var storeMaxMilliseconds: Double
        /// `ThreadGrouper.add` of the late parent, the two threads already added.
        public var grouperP50Microseconds: Double
        public var grouperMaxMicroseconds: Double
        /// Messages in the joined thread after each round (2 × size + 1).
        public var joinedThreadMessages: Int
    }

    public static func run(home: URL?, size: Int, rounds: Int) async throws -> Report {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tern-bench-late-parent-\(UUID().uuidString)")
        defer { if home == nil { try? FileManager.default.removeItem(at: scratch) } }
        let database = try TernDatabase(home: TernHome(url: home ?? scratch), integrityCheck: .deferred)
        let (account, folder) = try await benchFolder(database)
        let store = SQLiteMessageStore(database: database)
        let clock = ContinuousClock()
        var storeTimes: [Double] = []
        var grouperTimes: [Double] = []
        var joined = 0
        let firstUID = try await database.writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT MAX(imapUID) FROM emailFolder WHERE folderId = ?", arguments: [folder]) ?? 0
        }
        for round in 0..<rounds {
            let tag = "late-\(UUID().uuidString.prefix(8).lowercased())"
            let conversations = Conversations(tag: tag, size: size, account: account, firstUID: firstUID + Int64(round * (2 * size + 1)) + 1)
            for batch in conversations.earlier.chunked(250) { _ = try await store.store(Array(batch), folderId: folder) }

            let start = clock.now
            _ = try await store.store([conversations.parent], folderId: folder)
            storeTimes.append((clock.now - start).inSeconds * 1000)

            var grouper = ThreadGrouper()
            // In memory the email ids are the messages' positions (the store's ids are not read back).
            let headers = (conversations.earlier + [conversations.parent]).enumerated().map { index, message in
                var headers = ThreadingHeaders(message.email)
                headers.emailID = EmailID(Int64(index + 1))
                return headers
            }
            for message in headers.dropLast() { grouper.add(message) }
            let grouperStart = clock.now
            let assignment = grouper.add(headers[headers.count - 1])
            grouperTimes.append((clock.now - grouperStart).inSeconds * 1_000_000)
            guard !assignment.merged.isEmpty else { throw TernError.notFound("the late parent's merge in memory") }

            joined = try await database.writer.read { db in
                let threads =
                    try Int.fetchOne(
                        db, sql: "SELECT COUNT(DISTINCT threadId) FROM email WHERE accountId = ? AND messageId IN (?, ?, ?)",
                        arguments: [account, conversations.firstOfA, conversations.firstOfB, conversations.parentMessageId]) ?? 0
                guard threads == 1 else { return 0 }
                return try Int.fetchOne(
                    db, sql: "SELECT messageCount FROM thread WHERE id = (SELECT threadId FROM email WHERE accountId = ? AND messageId = ?)",
                    arguments: [account, conversations.parentMessageId]) ?? 0
            }
            guard joined == 2 * size + 1 else { throw TernError.notFound("the joined thread (\(joined) messages)") }
        }
        let stored = try await database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM email") ?? 0 }
        return Report(
            storedEmails: stored, threadSize: size, rounds: rounds, storeP50Milliseconds: ReadingBenchmark.percentile(storeTimes, 0.5),
            storeMaxMilliseconds: storeTimes.max() ?? 0, grouperP50Microseconds: ReadingBenchmark.percentile(grouperTimes, 0.5),
            grouperMaxMicroseconds: grouperTimes.max() ?? 0, joinedThreadMessages: joined)
    }

    /// The store's first account (a scratch one when there is none) and a folder of the benchmark's
    /// own in it.
    static func benchFolder(_ database: TernDatabase) async throws -> (AccountID, FolderID) {
        let existing = try await database.writer.read { db in try AccountID.fetchOne(db, sql: "SELECT id FROM account ORDER BY rowid LIMIT 1") }
        let account: AccountID
        if let existing { account = existing } else { account = try await ReadingBenchmark.insertScratchAccount(database).id }
        let path = "tern-bench/late-parent"
        let folder = try await database.writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO folder (accountId, path, displayName, delimiter, folderType) VALUES (?, ?, 'late-parent', '/', 'custom')
                    ON CONFLICT (accountId, path) DO NOTHING
                    """, arguments: [account, path])
            return try FolderID.fetchOne(db, sql: "SELECT id FROM folder WHERE accountId = ? AND path = ?", arguments: [account, path])
        }
        guard let folder else { throw TernError.notFound("benchmark folder") }
        return (account, folder)
    }

    /// Thread A (answers the missing parent), thread B, and the parent that answers B's last message.
    struct Conversations {
        var earlier: [IncomingMessage] = []
        var parent: IncomingMessage
        var firstOfA: String
        var firstOfB: String
        var parentMessageId: String

        init(tag: String, size: Int, account: AccountID, firstUID: Int64) {
            let start = Date(timeIntervalSince1970: 1_750_000_000)
            parentMessageId = "<\(tag)-parent@example.org>"
            firstOfA = "<\(tag)-a0@example.org>"
            firstOfB = "<\(tag)-b0@example.org>"
            var uid = firstUID
            func message(_ id: String, parent: String?, chain: [String], subject: String, minute: Int) -> IncomingMessage {
                defer { uid += 1 }
                let email = Email(
                    accountId: account, messageId: id, headerMessageId: id, dedupKey: id, inReplyTo: parent,
                    references: chain.isEmpty ? nil : chain.joined(separator: " "),
                    subject: subject, fromName: "Person \(minute % 7)", fromAddress: "person\(minute % 7)@example.org",
                    dateSent: start.addingTimeInterval(Double(minute) * 60), dateReceived: start.addingTimeInterval(Double(minute) * 60),
                    snippet: "Message \(minute) of the conversation.")
                return IncomingMessage(email: email, uid: uid, serverFlags: ["\\Seen"])
            }
            // A: a0 answers the parent (not stored yet); each next message answers the one before.
            var chain = [parentMessageId]
            for index in 0..<size {
                let id = "<\(tag)-a\(index)@example.org>"
                earlier.append(
                    message(id, parent: chain.last, chain: Array(chain.suffix(10)), subject: "Re: Plans \(tag)", minute: size + 10 + index))
                chain.append(id)
            }
            chain = []
            for index in 0..<size {
                let id = "<\(tag)-b\(index)@example.org>"
                earlier.append(
                    message(
                        id, parent: chain.last, chain: Array(chain.suffix(10)), subject: index == 0 ? "Plans \(tag)" : "Re: Plans \(tag)",
                        minute: index))
                chain.append(id)
            }
            parent = message(parentMessageId, parent: chain.last, chain: Array(chain.suffix(10)), subject: "Re: Plans \(tag)", minute: size + 5)
        }
    }
}

extension Array {
    fileprivate func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
