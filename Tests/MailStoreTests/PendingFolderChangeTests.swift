import Foundation
import GRDB
import Synchronization
import TernCore
import Testing

@testable import MailStore

/// Issue 36: folder create, rename and delete wait for their undo window like archive, on the real
/// store with an injected clock and a scripted server: shown at once, undone without the server
/// hearing of them, made on the server when the window has passed, and dropped with the server's
/// reason when it refuses. The real server is in SystemTests/integration/test_folders.py.
struct PendingFolderChangeTests {
    let database: TernDatabase
    let account = Fixtures.account()
    let below: Folder
    let clock = ManualClock()
    let server = ScriptedFolderServer()

    init() async throws {
        database = try TernDatabase.temporary()
        below = try await database.writer.write { [account] db in
            try account.insert(db)
            var inbox = Folder(accountId: account.id, path: "INBOX", folderType: .inbox, uidValidity: 1)
            try inbox.insert(db)
            var work = Folder(accountId: account.id, path: "Work", delimiter: "/", folderType: .custom, uidValidity: 2)
            try work.insert(db)
            var below = Folder(accountId: account.id, path: "Work/2026", delimiter: "/", folderType: .custom, uidValidity: 3)
            try below.insert(db)
            return below
        }
    }

    var changes: FolderChangesUseCase {
        FolderChangesUseCase(
            accounts: SQLiteAccountRepository(database: database), credentials: .unusable, store: SQLiteSyncStore(database: database),
            server: server, queue: SQLitePendingFolderChangeStore(database: database), clock: clock)
    }

    var browse: BrowseMailUseCase {
        BrowseMailUseCase(
            queries: SQLiteMailQueries(database: database), pendingFolders: SQLitePendingFolderChangeStore(database: database),
            accounts: SQLiteAccountRepository(database: database))
    }

    func shown() async throws -> [String] { try await browse.folders(account: account.name).map(\.path).sorted() }

    @Test func aRenameShowsAtOnceWithTheFoldersBelowAndReachesTheServerAfterTheWindow() async throws {
        let result = try await changes.request(.rename(from: "Work", to: "Jobs"), account: account.name, undoWindow: .seconds(5))
        #expect(result.undo != nil && result.folders.sorted() == ["INBOX", "Jobs", "Jobs/2026"])
        #expect(try await shown() == ["INBOX", "Jobs", "Jobs/2026"])
        #expect(try await changes.push(account: account, credentials: .unused).done == 0)
        #expect(server.applied.isEmpty, "inside the window nothing is sent")
        clock.advance(seconds: 6)
        server.listing = ["INBOX", "Jobs", "Jobs/2026"]
        let report = try await changes.push(account: account, credentials: .unused)
        #expect(report.done == 1 && server.applied == [.rename(from: "Work", to: "Jobs")])
        let stored = try await SQLiteSyncStore(database: database).folders(accountId: account.id).map(\.path).sorted()
        #expect(stored == ["INBOX", "Jobs", "Jobs/2026"])
        #expect(try await shown() == ["INBOX", "Jobs", "Jobs/2026"])
    }

    @Test func undoInsideTheWindowNeverReachesTheServer() async throws {
        let actions = MailActionsUseCase(
            accounts: SQLiteAccountRepository(database: database), credentials: .unusable, store: SQLiteMailActionStore(database: database),
            processor: PendingOperationProcessor(store: SQLiteMailActionStore(database: database), server: ScriptedServer(), clock: clock),
            clock: clock, folderChanges: changes)
        _ = try await changes.request(.create(path: "Fresh"), account: account.name, undoWindow: .seconds(5))
        _ = try await changes.request(.delete(path: "Work/2026"), account: account.name, undoWindow: .seconds(5))
        #expect(try await shown() == ["Fresh", "INBOX", "Work"])
        clock.advance(seconds: 1)
        let undone = try await actions.undo()
        #expect(undone.folderChange?.kind == .delete)
        #expect(try await shown() == ["Fresh", "INBOX", "Work", "Work/2026"])
        #expect(try await actions.undo().folderChange?.change == .create(path: "Fresh"))
        #expect(try await shown() == ["INBOX", "Work", "Work/2026"])
        clock.advance(seconds: 10)
        _ = try await changes.push(account: account, credentials: .unused)
        #expect(server.applied.isEmpty)
        await #expect(throws: TernError.nothingToUndo) { try await actions.undo() }
    }

    @Test func aRefusalDropsTheChangeWithTheServersReason() async throws {
        _ = try await changes.request(.rename(from: "Work", to: "Taken"), account: account.name, undoWindow: .seconds(5))
        clock.advance(seconds: 6)
        server.refusal = TernError.serverFailure("[ALREADYEXISTS] Mailbox already exists")
        let report = try await changes.push(account: account, credentials: .unused)
        #expect(report.failed == ["Couldn't rename the folder Work to Taken: server: [ALREADYEXISTS] Mailbox already exists"])
        #expect(try await shown() == ["INBOX", "Work", "Work/2026"])
    }

    @Test func aDroppedConnectionIsRetriedOnTheSchedule() async throws {
        _ = try await changes.request(.create(path: "Later"), account: account.name, undoWindow: .seconds(5))
        clock.advance(seconds: 6)
        server.refusal = TernError.connectionLost("reset")
        let report = try await changes.push(account: account, credentials: .unused)
        #expect(report.waiting == 1 && report.failed.isEmpty && report.nextDue == clock.now().addingTimeInterval(5))
        #expect(try await shown().contains("Later"))
    }

    @Test func aFolderWithFoldersBelowOrUnconfirmedMailIsNotDeleted() async throws {
        await #expect(throws: TernError.self) {
            try await changes.request(.delete(path: "Work"), account: account.name, undoWindow: .seconds(5))
        }
        _ = try await Fixtures.storedMessage(database, account: account, folder: below, messageId: "<kept@example.org>", uid: 4, flags: [])
        await #expect(throws: TernError.self) {
            try await changes.request(.delete(path: "Work/2026"), account: account.name, undoWindow: .seconds(5))
        }
        let confirmed = try await changes.request(.delete(path: "Work/2026"), account: account.name, undoWindow: .seconds(5), messagesConfirmed: 1)
        #expect(!confirmed.folders.contains("Work/2026"))
    }

    @Test func theOverlayNamesTheStoredPath() {
        let id = account.id
        let waiting = [
            PendingFolderChange(accountId: id, change: .create(path: "A"), createdDate: .now),
            PendingFolderChange(accountId: id, change: .rename(from: "A", to: "B"), createdDate: .now),
            PendingFolderChange(accountId: id, change: .rename(from: "Work", to: "Jobs"), createdDate: .now)
        ]
        #expect(PendingFolderChanges.storedPath("B", account: id, waiting) == nil)
        #expect(PendingFolderChanges.storedPath("Jobs/2026", account: id, waiting) == "Work/2026")
        #expect(PendingFolderChanges.storedPath("INBOX", account: id, waiting) == "INBOX")
        #expect(PendingFolderChanges.renamedPath("Workshop", from: "Work", to: "Jobs") == nil)
    }
}

/// CREATE, RENAME and DELETE as a test scripts them: what was asked, and the LIST that follows.
final class ScriptedFolderServer: ServerFolderChanges, Sendable {
    private let state = Mutex<(applied: [FolderChange], listing: [String], refusal: TernError?)>(([], [], nil))

    var applied: [FolderChange] { state.withLock { $0.applied } }
    var listing: [String] {
        get { state.withLock { $0.listing } }
        set { state.withLock { $0.listing = newValue } }
    }
    var refusal: TernError? {
        get { state.withLock { $0.refusal } }
        set { state.withLock { $0.refusal = newValue } }
    }

    func apply(_ change: FolderChange, account: Account, credentials: CredentialSupply) async throws -> [DiscoveredFolder] {
        try state.withLock { state in
            if let refusal = state.refusal { throw refusal }
            state.applied.append(change)
            return state.listing.map { DiscoveredFolder(path: $0, delimiter: "/", folderType: $0 == "INBOX" ? .inbox : .custom) }
        }
    }
}
