import Foundation
import GRDB
import TernCore
import Testing

@testable import MailStore

/// Issue 21: a change queued under one UIDVALIDITY names its message by a UID that means nothing,
/// or another message, under the next (RFC 9051 section 2.3.1.1). A folder reset cancels it; sync
/// no longer counts its UID as stored; a push never sends it.
struct StaleChangeTests {
    let database: TernDatabase
    let account = Fixtures.account()
    let trash: Folder
    let clock = ManualClock()
    let actions: SQLiteMailActionStore
    let sync: SQLiteSyncStore
    let emailId: EmailID

    init() async throws {
        database = try TernDatabase.temporary()
        sync = SQLiteSyncStore(database: database)
        actions = SQLiteMailActionStore(database: database)
        try await SQLiteAccountRepository(database: database).insert(account)
        let folders = try await sync.saveDiscoveredFolders(
            [DiscoveredFolder(path: "Trash", delimiter: "/", folderType: .trash)],
            accountId: account.id, keepOrphans: false)
        let trashId = try #require(folders.first?.id)
        try await sync.resetFolder(trashId, uidValidity: 7, keepOrphans: false)
        trash = try #require(try await sync.folders(accountId: account.id).first)
        let message = IncomingMessage(email: Fixtures.email(accountId: account.id, messageId: "<old@example.org>"), uid: 5, serverFlags: [])
        emailId = try #require(try await sync.store([message], folderId: trashId, cursorUID: 5, backfillCursorUID: 5).newMessages.first?.emailId)
    }

    func deleteForGood() async throws {
        let copies = try await actions.scope(of: [.message(emailId)], folderPath: "Trash", forFlags: false).copies
        try await actions.applyRemoval(.delete, of: copies, at: clock.now(), undo: nil)
    }

    @Test func aChangeRecordsTheUIDValidityOfItsUID() async throws {
        try await deleteForGood()
        let operation = try #require(try await actions.pendingOperations(accountId: account.id).first)
        #expect(operation.uidValidity == 7)
        #expect(operation.imapUID == 5)
    }

    @Test func aFolderResetCancelsTheChangeAndSyncNoLongerCountsItsUIDAsStored() async throws {
        try await deleteForGood()
        #expect(try await sync.localUIDs(folderId: trash.id!) == [5], "a delete waiting for the server is still known")

        try await sync.resetFolder(trash.id!, uidValidity: 8, keepOrphans: false)
        #expect(try await sync.localUIDs(folderId: trash.id!).isEmpty, "UID 5 is a new message under UIDVALIDITY 8: it must be fetched")
        #expect(try await actions.pendingOperations(accountId: account.id).isEmpty)
        let change = try #require(try await actions.summaries(accountId: account.id).first)
        #expect(change.state == .failed)
        #expect(change.lastError?.contains("UIDVALIDITY") == true)

        // The new message with the old UID is stored, and the old change cannot be applied to it.
        let newcomer = IncomingMessage(email: Fixtures.email(accountId: account.id, messageId: "<new@example.org>"), uid: 5, serverFlags: [])
        #expect(try await sync.store([newcomer], folderId: trash.id!, cursorUID: 5, backfillCursorUID: 5).newMessages.count == 1)
        #expect(try await sync.localUIDs(folderId: trash.id!) == [5])
        await #expect(throws: TernError.self) { _ = try await actions.retry(change.id) }
        let newcomerStays = try await database.writer.read { db in
            try String.fetchOne(
                db,
                sql: """
                    SELECT e.messageId FROM emailFolder ef JOIN email e ON e.id = ef.emailId WHERE ef.folderId = ? AND ef.imapUID = 5
                    """, arguments: [trash.id!])
        }
        #expect(newcomerStays == "<new@example.org>")
    }

    @Test func aChangeWhoseFolderWasResetIsNeitherSentNorPutBackUnderItsOldUID() async throws {
        try await deleteForGood()
        // A reset the change did not see (its row older than the folder's new UIDVALIDITY).
        try await database.writer.write { [trash] db in
            try db.execute(sql: "UPDATE folder SET uidValidity = 8 WHERE id = ?", arguments: [trash.id!])
        }
        let server = ScriptedServer()
        let report = try await PendingOperationProcessor(store: actions, server: server, clock: clock).process(account: account, credentials: .unused)
        #expect(server.performed.isEmpty, "the server is not asked to expunge UID 5")
        #expect(report.failed == [PendingOperation.folderResetNote])
        let (copies, deleted) = try await database.writer.read { [emailId] db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM emailFolder") ?? -1,
                try Row.fetchOne(db, sql: "SELECT deletedDate FROM email WHERE id = ?", arguments: [emailId])?["deletedDate"] as Date?
            )
        }
        #expect(copies == 0, "no copy is put back under a UID of the old UIDVALIDITY")
        #expect(deleted == nil, "the delete is undone locally")
    }

    @Test func theServersFolderResetUndoesTheChange() async throws {
        try await deleteForGood()
        let server = ScriptedServer(outcome: .folderReset)
        let report = try await PendingOperationProcessor(store: actions, server: server, clock: clock).process(account: account, credentials: .unused)
        #expect(server.performed.first?.uidValidity == 7)
        #expect(report.failed == [PendingOperation.folderResetNote])
        #expect(try await actions.summaries(accountId: account.id).first?.state == .failed)
    }
}
