import Foundation
import GRDB
import TernCore
import Testing

@testable import MailStore

/// Issue 36 Folders on the real store: a move leaves the folder at once and reaches the server as
/// `UID MOVE` when its undo window ends; a label is a `UID COPY` that leaves the source alone; both
/// undo like archive, and a refusal puts things back. The real server is in
/// SystemTests/integration/test_folders.py.
struct MoveAndLabelTests {
    let database: TernDatabase
    let account = Fixtures.account()
    let inbox: Folder
    let work: Folder
    let clock = ManualClock()
    let server = ScriptedServer()

    init() async throws {
        database = try TernDatabase.temporary()
        (inbox, work) = try await database.writer.write { [account] db in
            try account.insert(db)
            var inbox = Folder(accountId: account.id, path: "INBOX", folderType: .inbox, uidValidity: 1)
            try inbox.insert(db)
            var work = Folder(accountId: account.id, path: "Work", folderType: .custom, uidValidity: 2)
            try work.insert(db)
            return (inbox, work)
        }
    }

    /// One message in the Inbox (UID 7); its thread and email ids.
    func message() async throws -> (thread: ThreadID, email: EmailID) {
        try await Fixtures.storedMessage(database, account: account, folder: inbox, messageId: "<move@example.org>", uid: 7, flags: ["\\Seen"])
    }

    var actions: MailActionsUseCase {
        let store = SQLiteMailActionStore(database: database)
        return MailActionsUseCase(
            accounts: SQLiteAccountRepository(database: database), credentials: .unusable,
            store: store, processor: PendingOperationProcessor(store: store, server: server, clock: clock), clock: clock)
    }

    func push() async throws -> OperationsReport {
        try await PendingOperationProcessor(store: SQLiteMailActionStore(database: database), server: server, clock: clock)
            .process(account: account, credentials: .unused)
    }

    func uids(in folder: Folder) async throws -> [Int64] {
        try await database.writer.read { db in
            try Int64.fetchAll(db, sql: "SELECT imapUID FROM emailFolder WHERE folderId = ? ORDER BY imapUID", arguments: [folder.id])
        }
    }

    @Test func aMoveLeavesTheFolderAtOnceAndIsAUIDMoveWhenItsWindowEnds() async throws {
        let (thread, _) = try await message()
        let result = try await actions.move([.thread(thread)], to: "Work", undoWindow: .seconds(5))
        #expect(result.undo != nil && result.action.messages == 1)
        #expect(try await uids(in: inbox).isEmpty, "gone from the Inbox at once")
        #expect(try await SQLiteSyncStore(database: database).localUIDs(folderId: inbox.id!) == [7], "a sync does not fetch it back meanwhile")
        _ = try await push()
        #expect(server.performed.isEmpty, "nothing reaches the server inside the window")
        clock.advance(seconds: 6)
        server.answer(.done(newUID: 31))
        let report = try await push()
        #expect(report.done == 1)
        guard case .move(let mailbox, let uid, let target, let create)? = server.performed.first?.action else {
            Issue.record("a move is a UID MOVE")
            return
        }
        #expect(mailbox == "INBOX" && uid == 7 && target == "Work" && !create)
        #expect(try await uids(in: work) == [31], "in Work under the server's new UID before Work's next sync")
    }

    @Test func aMoveUndoneInsideItsWindowComesBackAndNeverReachesTheServer() async throws {
        let (thread, _) = try await message()
        let actions = actions
        _ = try await actions.move([.thread(thread)], to: "Work", undoWindow: .seconds(5))
        let undone = try await actions.undo()
        #expect(undone.threadIds == [thread])
        #expect(try await uids(in: inbox) == [7])
        clock.advance(seconds: 10)
        _ = try await push()
        #expect(server.performed.isEmpty)
    }

    @Test func aMoveTheServerRefusesIsPutBack() async throws {
        let (thread, _) = try await message()
        server.answer(.refused("NO [TRYCREATE] Mailbox doesn't exist: Work"))
        let result = try await actions.move([.thread(thread)], to: "Work", undoWindow: nil)
        #expect(result.action.failedMessages == 1 && result.action.failed == ["NO [TRYCREATE] Mailbox doesn't exist: Work"])
        #expect(try await uids(in: inbox) == [7], "back in the Inbox")
        let summary = try #require(try await SQLiteMailActionStore(database: database).summaries(accountId: account.id).first)
        #expect(summary.kind == .move && summary.state == .failed)
    }

    @Test func aLabelIsAUIDCopyThatLeavesTheMessageWhereItIs() async throws {
        let (_, email) = try await message()
        server.answer(.done(newUID: 4))
        let result = try await actions.label([.message(email)], adding: "Work", undoWindow: nil)
        #expect(result.action.pushed == 1)
        guard case .copy(let mailbox, let uid, let target)? = server.performed.first?.action else {
            Issue.record("a label is a UID COPY")
            return
        }
        #expect(mailbox == "INBOX" && uid == 7 && target == "Work")
        #expect(try await uids(in: inbox) == [7])
        #expect(try await uids(in: work) == [4])
        // Labelled again: it is there already, so nothing is asked of the server.
        let again = try await actions.label([.message(email)], adding: "Work", undoWindow: nil)
        #expect(again.action.copies == 0 && server.performed.count == 1)
    }

    @Test func aLabelUndoneInsideItsWindowIsNeverPushed() async throws {
        let (thread, _) = try await message()
        let actions = actions
        _ = try await actions.label([.thread(thread)], adding: "Work", undoWindow: .seconds(5))
        #expect(try await uids(in: inbox) == [7])
        _ = try await actions.undo()
        clock.advance(seconds: 10)
        _ = try await push()
        #expect(server.performed.isEmpty)
    }

    @Test func aFolderThatDoesNotExistOrHoldsNoMessagesIsRefusedBeforeAnythingChanges() async throws {
        let (thread, _) = try await message()
        await #expect(throws: TernError.notFound("folder 'Nowhere'")) { try await actions.move([.thread(thread)], to: "Nowhere") }
        _ = try await database.writer.write { [account] db in
            var container = Folder(accountId: account.id, path: "[Gmail]", folderType: .container)
            try container.insert(db)
        }
        await #expect(throws: TernError.self) { try await actions.label([.thread(thread)], adding: "[Gmail]") }
        #expect(try await uids(in: inbox) == [7])
        #expect(try await SQLiteMailActionStore(database: database).pendingOperations(accountId: account.id).isEmpty)
    }

    @Test func aMoveWhoseDestinationWasDeletedMeanwhileFailsAndComesBack() async throws {
        let (thread, _) = try await message()
        _ = try await actions.move([.thread(thread)], to: "Work", undoWindow: .seconds(5))
        _ = try await database.writer.write { [work] db in try db.execute(sql: "DELETE FROM folder WHERE id = ?", arguments: [work.id]) }
        clock.advance(seconds: 6)
        let report = try await push()
        #expect(report.failed == ["the destination folder no longer exists"])
        #expect(server.performed.isEmpty)
        #expect(try await uids(in: inbox) == [7])
    }
}
