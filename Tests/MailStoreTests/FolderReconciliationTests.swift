import Foundation
import GRDB
import TernCore
import Testing

@testable import MailStore

/// Issue 22: discovery reconciles the stored folders with the server's complete LIST. A folder the
/// server no longer has goes with the messages only it held; a renamed one keeps its state.
struct FolderReconciliationTests {
    let database: TernDatabase
    let account = Fixtures.account()
    let sync: SQLiteSyncStore

    init() async throws {
        database = try TernDatabase.temporary()
        sync = SQLiteSyncStore(database: database)
        try await SQLiteAccountRepository(database: database).insert(account)
    }

    static let inbox = DiscoveredFolder(path: "INBOX", delimiter: ".", folderType: .inbox)

    @discardableResult
    func listed(_ folders: DiscoveredFolder..., keepOrphans: Bool = false) async throws -> [Folder] {
        try await sync.saveDiscoveredFolders([Self.inbox] + folders, accountId: account.id, keepOrphans: keepOrphans)
    }

    /// Stores a message in `path` under `uid`, its folder at UIDVALIDITY 1 with a forward cursor.
    @discardableResult
    func store(_ messageId: String, in path: String, uid: Int64) async throws -> EmailID {
        var folder = try #require(try await sync.folders(accountId: account.id).first { $0.path == path })
        if folder.uidValidity == nil {
            folder.uidValidity = 1
            try await sync.updateFolderState(folder)
        }
        let email = Fixtures.email(accountId: account.id, messageId: messageId, dedupKey: messageId)
        _ = try await sync.store(
            [IncomingMessage(email: email, uid: uid, serverFlags: [])], folderId: folder.id!,
            cursorUID: uid, backfillCursorUID: uid)
        return try #require(
            try await database.writer.read { db in
                try EmailID.fetchOne(db, sql: "SELECT id FROM email WHERE messageId = ?", arguments: [messageId])
            })
    }

    func count(_ sql: String) async throws -> Int {
        try await database.writer.read { db in try Int.fetchOne(db, sql: sql) ?? 0 }
    }

    @Test func aFolderGoneFromTheServerGoesWithTheMessagesOnlyItHeld() async throws {
        try await listed(DiscoveredFolder(path: "INBOX.Projects", delimiter: ".", folderType: .custom))
        try await store("<only@example.org>", in: "INBOX.Projects", uid: 1)
        try await store("<both@example.org>", in: "INBOX.Projects", uid: 2)
        try await store("<both@example.org>", in: "INBOX", uid: 9)

        let folders = try await listed()
        #expect(folders.map(\.path) == ["INBOX"])
        let kept = try await database.writer.read { db in try String.fetchAll(db, sql: "SELECT messageId FROM email") }
        #expect(kept == ["<both@example.org>"])
        #expect(try await count("SELECT COUNT(*) FROM threadFolder tf JOIN folder f ON f.id = tf.folderId WHERE f.path <> 'INBOX'") == 0)
    }

    @Test func gmailKeepsTheMessagesOfALabelThatWasDeleted() async throws {
        try await listed(DiscoveredFolder(path: "Projects", delimiter: "/", folderType: .custom), keepOrphans: true)
        try await store("<label@example.org>", in: "Projects", uid: 1)
        try await listed(keepOrphans: true)
        #expect(try await count("SELECT COUNT(*) FROM email") == 1, "still in All Mail: the virtual Archive shows it")
    }

    @Test func aRoleThatMovedToAnotherNameIsTheSameFolder() async throws {
        try await listed(DiscoveredFolder(path: "INBOX.Trash", delimiter: ".", folderType: .trash))
        try await store("<gone@example.org>", in: "INBOX.Trash", uid: 4)
        let before = try #require(try await sync.folders(accountId: account.id).first { $0.path == "INBOX.Trash" })

        let after = try await listed(DiscoveredFolder(path: "INBOX.Deleted Items", delimiter: ".", folderType: .trash))
        let renamed = try #require(after.first { $0.folderType == .trash })
        #expect(renamed.id == before.id && renamed.path == "INBOX.Deleted Items" && renamed.displayName == "Deleted Items")
        #expect(renamed.uidValidity == 1 && renamed.forwardCursorUID == 4)
        #expect(try await count("SELECT COUNT(*) FROM emailFolder") == 1)
    }

    @Test func theServersMailboxIdFollowsAFolderOfTheUsersOwn() async throws {
        try await listed(DiscoveredFolder(path: "INBOX.Clients", delimiter: ".", folderType: .custom, mailboxId: "F1"))
        try await store("<client@example.org>", in: "INBOX.Clients", uid: 3)
        let after = try await listed(
            DiscoveredFolder(path: "INBOX.Customers", delimiter: ".", folderType: .custom, mailboxId: "F1"),
            DiscoveredFolder(path: "INBOX.New", delimiter: ".", folderType: .custom, mailboxId: "F2"))
        #expect(Set(after.map(\.path)) == ["INBOX", "INBOX.Customers", "INBOX.New"])
        #expect(after.first { $0.path == "INBOX.Customers" }?.forwardCursorUID == 3)
        #expect(try await count("SELECT COUNT(*) FROM email") == 1)
    }

    @Test func withoutAnIdTwoFoldersOfOneRoleAreNotGuessed() async throws {
        try await listed(DiscoveredFolder(path: "Old", delimiter: "/", folderType: .custom))
        try await store("<old@example.org>", in: "Old", uid: 1)
        let after = try await listed(DiscoveredFolder(path: "New", delimiter: "/", folderType: .custom))
        #expect(after.first { $0.path == "New" }?.forwardCursorUID == nil, "synced afresh under its new name")
        #expect(try await count("SELECT COUNT(*) FROM email") == 0)
    }

    @Test func anArchiveWaitingToBePushedFromAGoneFolderIsUndoneAndItsMessageGoes() async throws {
        try await listed(DiscoveredFolder(path: "INBOX.Projects", delimiter: ".", folderType: .custom))
        let emailId = try await store("<waiting@example.org>", in: "INBOX.Projects", uid: 1)
        let actions = SQLiteMailActionStore(database: database)
        let copies = try await actions.scope(of: [.message(emailId)], folderPath: "INBOX.Projects", forFlags: false).copies
        try await actions.applyRemoval(.archive, of: copies, at: Date(), undo: nil)
        #expect(try await count("SELECT COUNT(*) FROM pendingOperation") == 1)

        try await listed()
        #expect(try await count("SELECT COUNT(*) FROM pendingOperation") == 0)
        #expect(try await count("SELECT COUNT(*) FROM email") == 0, "not left in no folder, where the virtual Archive would show it")
    }

    @Test func anEmptyListingRemovesNothing() async throws {
        try await listed(DiscoveredFolder(path: "INBOX.Projects", delimiter: ".", folderType: .custom))
        let folders = try await sync.saveDiscoveredFolders([], accountId: account.id, keepOrphans: false)
        #expect(folders.count == 2)
    }
}
