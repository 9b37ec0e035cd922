import Foundation
import GRDB
import TernCore
import Testing

@testable import MailStore

/// Issue 20, `tern status`: what the engine reports is kept per account and read back with the
/// account's waiting work; a state left by a process that is gone is not shown as running.
struct SyncStatusTests {
    let database: TernDatabase
    let account = Fixtures.account()
    let store: SQLiteSyncStatusStore

    init() async throws {
        database = try TernDatabase.temporary()
        store = SQLiteSyncStatusStore(database: database)
        try await SQLiteAccountRepository(database: database).insert(account)
    }

    func status(running: Bool = true) async throws -> AccountSyncStatus {
        let statuses = try await AccountStatusUseCase(
            accounts: SQLiteAccountRepository(database: database), store: store,
            isRunning: { _ in running })()
        return try #require(statuses.first)
    }

    func record(_ events: [SyncProgress]) async {
        let recorder = SyncStatusRecorder(store: store, accountId: account.id, processId: 4242)
        for event in events { recorder.observe(event) }
        await recorder.finish()
    }

    @Test func anAccountNeverSyncedSaysSo() async throws {
        let status = try await status()
        #expect(status.syncState == nil && status.lastSuccessfulSync == nil && !status.syncRunning && status.waiting == WaitingWork())
    }

    @Test func aCompleteSyncIsTheLastSuccessfulOne() async throws {
        await record([
            .state(account: account.name, .connecting), .state(account: account.name, .indexing),
            .state(account: account.name, .idle), .synced(account: account.name, failedFolders: [])
        ])
        let status = try await status()
        #expect(status.syncState == .idle && status.lastSuccessfulSync != nil && status.lastError == nil && !status.syncRunning)
    }

    @Test func foldersThatFailedAreTheLastErrorAndKeepTheLastSuccess() async throws {
        await record([.state(account: account.name, .idle), .synced(account: account.name, failedFolders: [])])
        let first = try #require(try await status().lastSuccessfulSync)
        await record([
            .state(account: account.name, .connecting), .state(account: account.name, .idle),
            .synced(account: account.name, failedFolders: ["Work"])
        ])
        let status = try await status()
        #expect(status.lastSuccessfulSync == first)
        #expect(status.lastError == "1 folder could not be synced: Work")
    }

    @Test func anUnreachableAccountShowsItsErrorAndNextTryUntilItIsBack() async throws {
        let retry = Date().addingTimeInterval(45)
        await record([
            .state(account: account.name, .connecting),
            .state(account: account.name, .error, detail: "the connection was refused"),
            .retryScheduled(account: account.name, at: retry, reason: "the connection was refused")
        ])
        var status = try await status()
        #expect(status.syncState == .error && status.syncStateDetail == "the connection was refused")
        #expect(status.nextRetry.map { abs($0.timeIntervalSince(retry)) < 0.01 } == true)
        await record([.state(account: account.name, .idle), .state(account: account.name, .connecting)])
        #expect(try await self.status().nextRetry == nil, "not announced while the retry runs")
        await record([.state(account: account.name, .listening), .synced(account: account.name, failedFolders: [])])
        status = try await self.status()
        #expect(status.syncState == .listening && status.nextRetry == nil && status.lastError == nil && status.syncRunning)
    }

    @Test func aStateLeftByAProcessThatIsGoneIsNotRunning() async throws {
        await record([.state(account: account.name, .catchingUp)])
        #expect(try await status(running: true).syncRunning)
        #expect(try await !status(running: false).syncRunning)
    }

    @Test func waitingWorkCountsChangesTheQueueAndDrafts() async throws {
        try await database.writer.write { db in
            var email = Fixtures.email(accountId: account.id, messageId: "<w@x>", dedupKey: "<w@x>")
            try email.insert(db)
            let emailId = db.lastInsertedRowID
            for state in ["pending", "pending", "failed"] {
                try db.execute(
                    sql: """
                        INSERT INTO pendingOperation (accountId, kind, flag, emailId, state, createdDate)
                        VALUES (?, 'addFlag', '\\Seen', ?, ?, ?)
                        """, arguments: [account.id, emailId, state, Date()])
            }
            try db.execute(sql: "UPDATE email SET sendState = 'queued' WHERE id = ?", arguments: [emailId])
            try db.execute(
                sql: """
                    INSERT INTO draft (accountId, messageId, content, createdDate, updatedDate) VALUES (?, '<d@x>', '{}', ?, ?)
                    """, arguments: [account.id, Date(), Date()])
        }
        #expect(try await status().waiting == WaitingWork(changes: 2, failedChanges: 1, queue: 1, failedQueue: 0, drafts: 1))
    }
}
