import Foundation
import GRDB
import TernCore
import Testing

@testable import MailStore

/// FR-SYNC-05 and FR-SYNC-10 on the real store with an injected clock: optimistic changes, the
/// 5/15/45 s retries, the revert to the server's state, and the server winning a conflict.
struct PendingOperationTests {
    let database: TernDatabase
    let account = Fixtures.account()
    let inbox: Folder
    let clock = ManualClock()
    let actions: SQLiteMailActionStore
    let emailId: EmailID

    init() async throws {
        database = try TernDatabase.temporary()
        inbox = try await database.writer.write { [account] db in
            try account.insert(db)
            var inbox = Folder(accountId: account.id, path: "INBOX", folderType: .inbox)
            try inbox.insert(db)
            var all = Folder(accountId: account.id, path: "[Gmail]/All Mail", folderType: .all)
            try all.insert(db)
            return inbox
        }
        let message = IncomingMessage(email: Fixtures.email(accountId: account.id, messageId: "<one@example.org>"), uid: 7, serverFlags: [])
        let stored = try await SQLiteMessageStore(database: database).store([message], folderId: inbox.id!)
        emailId = try #require(stored.newMessages.first?.emailId)
        actions = SQLiteMailActionStore(database: database)
    }

    func processor(_ server: ScriptedServer) -> PendingOperationProcessor {
        PendingOperationProcessor(store: actions, server: server, clock: clock)
    }

    func email() async throws -> Email {
        let found = try await database.writer.read { [emailId] db in try Email.fetchOne(db, key: emailId) }
        return try #require(found)
    }
    func uids() async throws -> [Int64] { try await SQLiteSyncStore(database: database).localUIDs(folderId: inbox.id!) }

    @Test func aFailedPushIsRetriedAfter5And15And45SecondsThenReverted() async throws {
        let server = ScriptedServer(outcome: nil)
        let processor = processor(server)
        let scope = try await actions.scope(of: [.message(emailId)], folderPath: nil, forFlags: true)
        try await actions.applyFlagChange(.read, to: scope, at: clock.now())
        #expect(try await email().isRead)
        for (delay, attempts) in [(0.0, 1), (4, 1), (1, 2), (14, 2), (1, 3), (44, 3)] {
            clock.advance(seconds: delay)
            _ = try await processor.process(account: account, credentials: .unused)
            #expect(server.performed.count == attempts, "after \(delay) s")
            #expect(try await email().isRead, "still optimistic")
        }
        clock.advance(seconds: 1)
        let report = try await processor.process(account: account, credentials: .unused)
        #expect(server.performed.count == 4 && report.failed.count == 1)
        #expect(try await !email().isRead, "reverted to the server's state")
        let changes = try await actions.summaries(accountId: account.id)
        let change = try #require(changes.first)
        #expect(changes.count == 1)
        #expect(change.state == .failed && change.attempts == 4 && change.lastError?.contains("connection refused") == true)

        // The retry action applies it again and pushes it.
        server.answer(.done(newUID: nil))
        _ = try await actions.retry(change.id)
        #expect(try await email().isRead)
        _ = try await processor.process(account: account, credentials: .unused)
        #expect(try await actions.summaries(accountId: account.id).isEmpty)
        let flags = try await database.writer.read { db in try String.fetchOne(db, sql: "SELECT serverFlags FROM emailFolder") }
        #expect(flags == "\\Seen", "the pushed flag is now the server's")
    }

    @Test func anArchiveTheServerRefusesIsUndoneAtOnce() async throws {
        let copies = try await actions.scope(of: [.message(emailId)], folderPath: nil, forFlags: false).copies
        try await actions.applyRemoval(.archive, of: copies, at: clock.now(), undo: nil)
        #expect(try await uids() == [7], "an archive waiting for the server is still known to sync")
        let inInbox = try await database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM emailFolder") }
        #expect(inInbox == 0)
        let server = ScriptedServer(outcome: .refused("NO [TRYCREATE] no such mailbox"))
        _ = try await processor(server).process(account: account, credentials: .unused)
        guard case .move(let mailbox, let uid, let target, _)? = server.performed.first?.action else {
            Issue.record("not a move")
            return
        }
        #expect(mailbox == "INBOX" && uid == 7 && target == "[Gmail]/All Mail")
        let restored = try await database.writer.read { db in try Int64.fetchOne(db, sql: "SELECT imapUID FROM emailFolder") }
        #expect(restored == 7)
    }

    @Test func theServerWinsWhenItChangedTheSameFlagMeanwhile() async throws {
        let sync = SQLiteSyncStore(database: database)
        let scope = try await actions.scope(of: [.message(emailId)], folderPath: nil, forFlags: true)
        try await actions.applyFlagChange(.read, to: scope, at: clock.now())
        // Another client stars it: a different flag; the pending read stays, and so does the local read.
        _ = try await sync.applyServerFlags([ServerFlagState(uid: 7, flags: ["\\Flagged"])], folderId: inbox.id!)
        let starred = try await email()
        #expect(starred.isRead && starred.isStarred)
        #expect(try await actions.pendingOperations(accountId: account.id).count == 1)
        // Another client marks it read and then unread: the server's \Seen changed, the server wins.
        _ = try await sync.applyServerFlags([ServerFlagState(uid: 7, flags: ["\\Flagged", "\\Seen"])], folderId: inbox.id!)
        _ = try await sync.applyServerFlags([ServerFlagState(uid: 7, flags: ["\\Flagged"])], folderId: inbox.id!)
        #expect(try await !email().isRead)
        #expect(try await actions.pendingOperations(accountId: account.id).isEmpty)
    }
}
