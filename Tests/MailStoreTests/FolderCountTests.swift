import Foundation
import GRDB
import TernCore
import Testing

@testable import MailStore

/// Issue 38: the folder list reads the counts `folderCount` keeps (v36). After every kind of change the store
/// makes — sync's copies and flags, expunge, a folder's reset, local marks, archive, delete, move and label with
/// their undo and their revert, a folder gone from the server, an account removed — the kept counts are the
/// ones counted afresh from `emailFolder` and `email`.
struct FolderCountTests {
    let database: TernDatabase
    let account = Fixtures.account()
    let other = Fixtures.account(name: "home")
    let clock = ManualClock()
    let server = ScriptedServer()

    init() async throws {
        database = try TernDatabase.temporary()
        try await SQLiteAccountRepository(database: database).insert(account)
        try await SQLiteAccountRepository(database: database).insert(other)
        for owner in [account, other] {
            _ = try await SQLiteSyncStore(database: database).saveDiscoveredFolders(
                [
                    DiscoveredFolder(path: "INBOX", delimiter: "/", folderType: .inbox),
                    DiscoveredFolder(path: "Archive", delimiter: "/", folderType: .archive),
                    DiscoveredFolder(path: "Trash", delimiter: "/", folderType: .trash),
                    DiscoveredFolder(path: "Work", delimiter: "/", folderType: .custom)
                ], accountId: owner.id, keepOrphans: false)
        }
    }

    var actions: MailActionsUseCase {
        let store = SQLiteMailActionStore(database: database)
        return MailActionsUseCase(
            accounts: SQLiteAccountRepository(database: database), credentials: .unusable,
            store: store, processor: PendingOperationProcessor(store: store, server: server, clock: clock), clock: clock)
    }

    func folderId(_ path: String, of owner: Account? = nil) async throws -> FolderID {
        let accountId = (owner ?? account).id
        return try #require(
            try await database.writer.read { db in
                try FolderID.fetchOne(db, sql: "SELECT id FROM folder WHERE accountId = ? AND path = ?", arguments: [accountId, path])
            })
    }

    /// `count` messages stored in `path` from `firstUID` on, every third unread; the same Message-IDs in two
    /// folders are one email with two copies.
    func sync(_ path: String, of owner: Account? = nil, messages: ClosedRange<Int>, firstUID: Int64 = 1) async throws {
        let owner = owner ?? account
        let incoming = messages.enumerated().map { offset, index in
            IncomingMessage(
                email: Fixtures.email(accountId: owner.id, messageId: "<\(owner.name)-\(index)@example.org>", dedupKey: "\(owner.name)-\(index)"),
                uid: firstUID + Int64(offset), serverFlags: index % 3 == 0 ? [] : ["\\Seen"])
        }
        try await SQLiteMessageStore(database: database).store(incoming, folderId: try await folderId(path, of: owner))
    }

    func emailId(_ index: Int, of owner: Account? = nil) async throws -> EmailID {
        let messageId = "<\((owner ?? account).name)-\(index)@example.org>"
        return try #require(
            try await database.writer.read { db in
                try EmailID.fetchOne(db, sql: "SELECT id FROM email WHERE messageId = ?", arguments: [messageId])
            })
    }

    /// Every folder's kept counts against `COUNT(*)` over the base tables, and the folder list's against both.
    func expectCountsTrue(after step: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let (kept, counted, strays) = try await database.writer.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT a.name || ' ' || f.path AS folder, COALESCE(c.messageCount, 0) AS messages, COALESCE(c.unreadCount, 0) AS unread,
                        (SELECT COUNT(*) FROM emailFolder ef WHERE ef.folderId = f.id) AS countedMessages,
                        (SELECT COUNT(*) FROM emailFolder ef JOIN email e ON e.id = ef.emailId WHERE ef.folderId = f.id AND e.isRead = 0)
                            AS countedUnread
                    FROM folder f JOIN account a ON a.id = f.accountId LEFT JOIN folderCount c ON c.folderId = f.id
                    ORDER BY 1
                    """)
            let strays = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM folderCount WHERE folderId NOT IN (SELECT id FROM folder)") ?? -1
            return (
                rows.map { "\($0["folder"] as String) \($0["messages"] as Int)/\($0["unread"] as Int)" },
                rows.map { "\($0["folder"] as String) \($0["countedMessages"] as Int)/\($0["countedUnread"] as Int)" },
                strays
            )
        }
        #expect(kept == counted, "after \(step)", sourceLocation: sourceLocation)
        #expect(strays == 0, "after \(step): rows of folders that are gone", sourceLocation: sourceLocation)
        let listed = try await SQLiteMailQueries(database: database).folders(account: nil)
            .map { "\($0.account) \($0.path) \($0.messageCount)/\($0.unreadCount)" }.sorted()
        #expect(listed == counted, "after \(step): the folder list", sourceLocation: sourceLocation)
    }

    @Test func keptCountsAreTheCountedOnesAfterEveryKindOfChange() async throws {
        try await expectCountsTrue(after: "discovery")
        try await sync("INBOX", messages: 1...12)
        try await sync("INBOX", of: other, messages: 1...4)
        try await expectCountsTrue(after: "a sync's new mail")
        // Messages 1-6 also in Work: the same emails, second copies (one unread email counts once per copy).
        try await sync("Work", messages: 1...6)
        try await expectCountsTrue(after: "copies of stored emails")
        let shared = try await database.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (SELECT emailId FROM emailFolder GROUP BY emailId HAVING COUNT(*) = 2)")
        }
        #expect(shared == 6)
        #expect(try await SQLiteSyncStore(database: database).messageCount(folderId: try await folderId("Work")) == 6)

        let syncStore = SQLiteSyncStore(database: database)
        let inbox = try await folderId("INBOX")
        _ = try await syncStore.applyServerFlags(
            [ServerFlagState(uid: 3, flags: ["\\Seen"]), ServerFlagState(uid: 4, flags: []), ServerFlagState(uid: 5, flags: [])],
            folderId: inbox)
        try await expectCountsTrue(after: "flags from the server")

        let actions = actions
        _ = try await actions.mark(.read, [.message(try await emailId(6))])
        _ = try await actions.mark(.unread, [.message(try await emailId(2)), .message(try await emailId(7))])
        try await expectCountsTrue(after: "marked read and unread here")

        _ = try await actions.archive([.message(try await emailId(9))], folder: "INBOX", undoWindow: .seconds(5))
        try await expectCountsTrue(after: "an archive in its undo window")
        _ = try await actions.undo()
        try await expectCountsTrue(after: "the archive undone")

        _ = try await actions.delete([.message(try await emailId(10))], folder: "INBOX")
        try await expectCountsTrue(after: "a delete pushed")

        _ = try await actions.move([.message(try await emailId(11))], to: "Work", folder: "INBOX", undoWindow: .seconds(5))
        try await expectCountsTrue(after: "a move in its undo window")
        clock.advance(seconds: 6)
        server.answer(.done(newUID: 40))
        _ = try await PendingOperationProcessor(store: SQLiteMailActionStore(database: database), server: server, clock: clock)
            .process(account: account, credentials: .unused)
        try await expectCountsTrue(after: "the move done by the server")

        _ = try await actions.label([.message(try await emailId(12))], adding: "Work", undoWindow: nil)
        try await expectCountsTrue(after: "a label")

        server.answer(.refused("no"))
        _ = try await actions.archive([.message(try await emailId(8))], folder: "INBOX")
        try await expectCountsTrue(after: "an archive refused and reverted")
        server.answer(.done(newUID: nil))

        // Expunged from the Inbox: 1 keeps its Work copy, 7 and 8 were only there and go.
        try await syncStore.removeFromFolder(inbox, uids: [1, 7, 8], keepOrphans: false)
        try await expectCountsTrue(after: "an expunge")

        try await syncStore.resetFolder(try await folderId("Work"), uidValidity: 99, keepOrphans: true)
        try await expectCountsTrue(after: "a folder's UIDVALIDITY changed")

        let trash = try await folderId("Trash")
        try await database.writer.write { db in
            try db.execute(sql: "UPDATE emailFolder SET folderId = ? WHERE folderId = ? AND imapUID = 2", arguments: [trash, inbox])
        }
        try await expectCountsTrue(after: "a copy moved to another folder in place")

        // The server's answer for a known UID naming another message: the copy changes its email in place.
        try await sync("Archive", messages: 30...31, firstUID: 50)
        try await sync("Archive", messages: 32...33, firstUID: 50)
        try await expectCountsTrue(after: "a copy's email changed in place")

        try await sync("Trash", messages: 20...25, firstUID: 100)
        _ = try await syncStore.saveDiscoveredFolders(
            [
                DiscoveredFolder(path: "INBOX", delimiter: "/", folderType: .inbox),
                DiscoveredFolder(path: "Archive", delimiter: "/", folderType: .archive),
                DiscoveredFolder(path: "Work", delimiter: "/", folderType: .custom)
            ], accountId: account.id, keepOrphans: false)
        try await expectCountsTrue(after: "a folder gone from the server")

        try await syncStore.renameFolder(accountId: account.id, from: "Work", to: "Projects")
        try await expectCountsTrue(after: "a folder renamed")

        #expect(try await SQLiteAccountRepository(database: database).delete(id: account.id))
        try await expectCountsTrue(after: "the account removed")
        let left = try await SQLiteMailQueries(database: database).folders(account: nil).map { "\($0.path) \($0.messageCount)/\($0.unreadCount)" }
        #expect(left == ["Archive 0/0", "INBOX 4/1", "Trash 0/0", "Work 0/0"], "the other account's counts are untouched")
    }

    /// An email deleted with unread copies in two folders takes its unread off both (its copies go by cascade
    /// after its row, so the email's own trigger counts them), and a copy's email read or unread counts once
    /// per copy, two copies in one folder included.
    @Test func anUnreadEmailWithSeveralCopiesCountsOncePerCopy() async throws {
        try await sync("INBOX", messages: 3...3)
        try await sync("Work", messages: 3...3)
        let (emailId, inbox) = (try await emailId(3), try await folderId("INBOX"))
        try await database.writer.write { db in
            try db.execute(
                sql: "INSERT INTO emailFolder (emailId, folderId, imapUID) VALUES (?, ?, 77)", arguments: [emailId, inbox])
        }
        try await expectCountsTrue(after: "two copies in one folder")
        try await database.writer.write { db in try db.execute(sql: "UPDATE email SET isRead = 1 WHERE id = ?", arguments: [emailId]) }
        try await expectCountsTrue(after: "read")
        try await database.writer.write { db in try db.execute(sql: "UPDATE email SET isRead = 0 WHERE id = ?", arguments: [emailId]) }
        try await expectCountsTrue(after: "unread again")
        try await database.writer.write { db in try db.execute(sql: "DELETE FROM email WHERE id = ?", arguments: [emailId]) }
        try await expectCountsTrue(after: "the email deleted")
        let work = try await folderId("Work")
        let kept = try await database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT messageCount, unreadCount FROM folderCount WHERE folderId IN (?, ?)", arguments: [inbox, work])
                .map { [$0[0] as Int, $0[1] as Int] }
        }
        #expect(kept == [[0, 0], [0, 0]])
    }

    /// A migration that rebuilds `email`, `emailFolder` or `folder` drops their triggers with the old table:
    /// this fails until it creates them again.
    @Test func theTriggersThatKeepTheCountsExist() async throws {
        let triggers = try await database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'folderCount%' ORDER BY name")
        }
        #expect(triggers == SchemaMigrations.folderCountTriggers.sorted())
    }

    /// v36 counts the copies of a store written before it; the triggers take over from there.
    @Test func theMigrationCountsTheCopiesAlreadyStored() async throws {
        let home = Fixtures.temporaryHome()
        try FileManager.default.createDirectory(at: home.url, withIntermediateDirectories: true)
        do {
            let queue = try DatabaseQueue(path: home.databaseURL.path)
            try SchemaMigrations.migrator.migrate(queue, upTo: "v35-search-index-coverage")
            try await queue.write { [account] db in
                try Fixtures.insertAsOfV1(account, db)
                for (id, path) in [(Int64(1), "INBOX"), (2, "Work"), (3, "Empty")] {
                    try db.execute(
                        sql: "INSERT INTO folder (id, accountId, path, displayName, folderType) VALUES (?, ?, ?, ?, 'custom')",
                        arguments: [id, account.id, path, path])
                }
                for id in Int64(1)...Int64(9) {
                    try db.execute(
                        sql: "INSERT INTO email (id, accountId, dedupKey, isRead, dateReceived, createdDate) VALUES (?, ?, ?, ?, ?, ?)",
                        arguments: [id, account.id, "k\(id)", id % 3 != 0, Date(timeIntervalSince1970: 1_700_000_000), Date()])
                    try db.execute(sql: "INSERT INTO emailFolder (emailId, folderId, imapUID) VALUES (?, 1, ?)", arguments: [id, id])
                    if id <= 4 {
                        try db.execute(sql: "INSERT INTO emailFolder (emailId, folderId, imapUID) VALUES (?, 2, ?)", arguments: [id, id])
                    }
                }
            }
            try queue.close()
        }
        let database = try TernDatabase(home: home)
        let listed = try await SQLiteMailQueries(database: database).folders(account: nil).map { "\($0.path) \($0.messageCount)/\($0.unreadCount)" }
        #expect(listed == ["Empty 0/0", "INBOX 9/3", "Work 4/1"])
        try await database.writer.write { db in
            try db.execute(sql: "UPDATE email SET isRead = 0 WHERE id = 1")
            try db.execute(sql: "DELETE FROM emailFolder WHERE folderId = 2 AND imapUID = 3")
        }
        let after = try await SQLiteMailQueries(database: database).folders(account: nil).map { "\($0.path) \($0.messageCount)/\($0.unreadCount)" }
        #expect(after == ["Empty 0/0", "INBOX 9/4", "Work 3/1"])
    }

    /// The folder list is one lookup by key per folder, whatever the number of messages.
    @Test func theFolderListReadsNoCopies() async throws {
        let plan = try await database.writer.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + SQLiteMailQueries.folderListSQL, arguments: [nil, nil])
                .map { $0["detail"] as String }.joined(separator: "; ")
        }
        #expect(!plan.contains("emailFolder") && !plan.contains("email "), "\(plan)")
        #expect(plan.contains("SEARCH c USING INTEGER PRIMARY KEY"), "\(plan)")
    }
}
