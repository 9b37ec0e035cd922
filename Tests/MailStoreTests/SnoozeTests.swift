import Foundation
import GRDB
import TernCore
import Testing

@testable import MailStore

/// Issue 36 Snooze on the real store with an injected clock: the wake keyword set before the move
/// to Snoozed (so the MOVE carries it), the snoozed list with its wake time, and the wake: keyword
/// and `\Seen` removed, then moved back to the Inbox, unread. The real server is in
/// SystemTests/integration/test_snooze.py.
struct SnoozeTests {
    let database: TernDatabase
    let account = Fixtures.account()
    let inbox: Folder
    let snoozed: Folder
    let clock = ManualClock()
    let server = ScriptedServer()
    let store: SQLiteMailActionStore

    init() async throws {
        database = try TernDatabase.temporary()
        (inbox, snoozed) = try await database.writer.write { [account] db in
            try account.insert(db)
            var inbox = Folder(accountId: account.id, path: "INBOX", folderType: .inbox, uidValidity: 1)
            try inbox.insert(db)
            var snoozed = Folder(accountId: account.id, path: "Snoozed", folderType: .custom, uidValidity: 2)
            try snoozed.insert(db)
            return (inbox, snoozed)
        }
        store = SQLiteMailActionStore(database: database)
    }

    func message() async throws -> (thread: ThreadID, email: EmailID) {
        try await Fixtures.storedMessage(database, account: account, folder: inbox, messageId: "<snooze@example.org>", uid: 7, flags: ["\\Seen"])
    }

    var actions: MailActionsUseCase {
        MailActionsUseCase(
            accounts: SQLiteAccountRepository(database: database), credentials: .unusable, store: store,
            processor: PendingOperationProcessor(store: store, server: server, clock: clock), clock: clock)
    }

    var snooze: SnoozeUseCase {
        let accounts = SQLiteAccountRepository(database: database)
        let folders = FolderChangesUseCase(
            accounts: accounts, credentials: .unusable, store: SQLiteSyncStore(database: database), server: NoFolderServer())
        return SnoozeUseCase(accounts: accounts, actions: actions, folderChanges: folders, store: store, clock: clock)
    }

    func push() async throws -> OperationsReport {
        try await PendingOperationProcessor(store: store, server: server, clock: clock).process(account: account, credentials: .unused)
    }

    func flags(in folder: Folder) async throws -> [String] {
        try await database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT serverFlags FROM emailFolder WHERE folderId = ? ORDER BY imapUID", arguments: [folder.id])
        }
    }

    @Test func theKeywordIsSetBeforeTheMoveAndTheSnoozedCopyCarriesIt() async throws {
        let (thread, _) = try await message()
        let wake = clock.now().addingTimeInterval(3600)
        let keyword = SnoozeKeyword.keyword(waking: wake)
        let result = try await snooze.snooze([.thread(thread)], until: wake, undoWindow: nil)
        #expect(result.wake == wake && result.removal.action.messages == 1)
        #expect(server.performed.count == 2)
        guard case .store(let flag, true, "INBOX", 7)? = server.performed.first?.action,
            case .move("INBOX", 7, "Snoozed", false)? = server.performed.last?.action
        else {
            Issue.record("expected STORE then MOVE, got \(server.performed.map(\.action))")
            return
        }
        #expect(flag == keyword)
        // ScriptedServer answers every operation `.done(newUID: nil)`: the copy appears with Snoozed's next sync.
        let listed = try await snooze.list(account: nil)
        #expect(listed.isEmpty)
    }

    @Test func theSnoozedListAndTheWakeBringItBackUnreadWithoutItsKeyword() async throws {
        let (thread, email) = try await message()
        server.answer(.done(newUID: 3))
        let result = try await snooze.snooze([.thread(thread)], until: "in 1h", calendar: Calendar(identifier: .gregorian), undoWindow: nil)
        #expect(result.wake == clock.now().addingTimeInterval(3600))
        #expect(try await flags(in: inbox).isEmpty)
        let keyword = SnoozeKeyword.keyword(waking: result.wake)
        let wake = try #require(SnoozeKeyword.wake(in: keyword))
        #expect(try await flags(in: snoozed) == ["\\Seen \(keyword)"])
        let listed = try await snooze.list(account: nil)
        #expect(listed.map(\.threadId) == [thread] && listed.map(\.wake) == [wake])

        let waker = SnoozeWaker(store: store, folders: store, clock: clock)
        #expect(try await waker.wakeDue(account: account) == 0, "not yet")
        clock.advance(seconds: 3601)
        server.answer(.done(newUID: 12))
        #expect(try await waker.wakeDue(account: account) == 1)
        #expect(try await snooze.list(account: nil).isEmpty)
        let isRead = try await database.writer.read { db in try Bool.fetchOne(db, sql: "SELECT isRead FROM email WHERE id = ?", arguments: [email]) }
        #expect(isRead == false, "unread at once")
        let performedBefore = server.performed.count
        _ = try await push()
        let actions = server.performed.dropFirst(performedBefore).map(\.action)
        let removed = actions.compactMap { action -> String? in if case .store(let flag, false, "Snoozed", 3) = action { flag } else { nil } }
        #expect(Set(removed) == [keyword, "\\Seen"])
        let woken = SnoozeKeyword.wokenKeyword(at: clock.now())
        let added = actions.compactMap { action -> String? in if case .store(let flag, true, "Snoozed", 3) = action { flag } else { nil } }
        #expect(added == [woken], "the time it woke travels with it, for every Tern's list")
        guard case .move("Snoozed", 3, "INBOX", false)? = actions.last else {
            Issue.record("the wake ends with a MOVE to the Inbox: \(actions)")
            return
        }
        #expect(try await flags(in: inbox) == [woken], "back in the Inbox, unread, without the wake keyword")
        // On top: the Inbox lists it at the time it woke, not at its own date.
        let inboxList = try await SQLiteMailQueries(database: database).threads(account: nil, folder: "INBOX", before: nil, limit: 10)
        #expect(inboxList.map(\.id) == [thread] && inboxList.first?.latestDate == SnoozeKeyword.woken(in: [woken]))
        #expect(try await waker.wakeDue(account: account) == 0, "woken once")
    }

    @Test func aSnoozeUndoneInsideItsWindowSendsNothing() async throws {
        let (thread, _) = try await message()
        _ = try await snooze.snooze([.thread(thread)], until: clock.now().addingTimeInterval(60), undoWindow: .seconds(5))
        _ = try await actions.undo()
        clock.advance(seconds: 10)
        _ = try await push()
        #expect(server.performed.isEmpty)
        #expect(try await flags(in: inbox) == ["\\Seen"])
    }

    @Test func aTimeThatCannotBeReadOrHasPassedIsRefused() async throws {
        let (thread, _) = try await message()
        await #expect(throws: TernError.self) { try await snooze.snooze([.thread(thread)], until: "someday") }
        await #expect(throws: TernError.self) { try await snooze.snooze([.thread(thread)], until: clock.now().addingTimeInterval(-1)) }
        #expect(try await store.pendingOperations(accountId: account.id).isEmpty)
    }

    @Test func aMessageSyncedWithTheWokenKeywordSortsAtThatTime() async throws {
        // A second Tern: it did not wake the message, but the keyword the first one set says when.
        let woken = Date(timeIntervalSince1970: 1_900_000_000)
        let (thread, _) = try await Fixtures.storedMessage(
            database, account: account, folder: inbox, messageId: "<woken@example.org>", uid: 9, flags: [SnoozeKeyword.wokenKeyword(at: woken)])
        let listed = try await SQLiteMailQueries(database: database).threads(account: nil, folder: "INBOX", before: nil, limit: 10)
        #expect(listed.first { $0.id == thread }?.latestDate == woken)
    }

    @Test func theKeywordSaysTheTime() {
        let date = Date(timeIntervalSince1970: 1_796_112_000)
        #expect(SnoozeKeyword.keyword(waking: date) == "$SnoozedUntil1796112000")
        #expect(SnoozeKeyword.wake(in: "\\Seen $snoozeduntil1796112000 $Other") == date)
        #expect(SnoozeKeyword.wake(in: "\\Seen $SnoozedUntil $SnoozedUntilX") == nil)
    }
}

/// A folder server for snoozes whose Snoozed folder exists already: never asked.
struct NoFolderServer: ServerFolderChanges {
    func apply(_ change: FolderChange, account: Account, credentials: CredentialSupply) async throws -> [DiscoveredFolder] {
        throw TernError.serverFailure("not expected")
    }
}
