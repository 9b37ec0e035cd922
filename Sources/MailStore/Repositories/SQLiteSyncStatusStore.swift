import Foundation
import GRDB
import TernCore

/// `SyncStatusStore` on the `accountSyncStatus` table (v14) and the queues' own tables.
public struct SQLiteSyncStatusStore: SyncStatusStore {
    let database: TernDatabase

    public init(database: TernDatabase) { self.database = database }

    public func record(_ change: SyncStatusChange, accountId: Account.ID, at date: Date, processId: Int32) async throws {
        try await database.writer.write { db in
            switch change {
            case .state(let state, let detail):
                try db.execute(
                    sql: """
                        INSERT INTO accountSyncStatus (accountId, state, detail, changedDate, processId, lastError)
                        VALUES (?1, ?2, ?3, ?4, ?5, CASE WHEN ?2 = 'error' THEN ?3 END)
                        ON CONFLICT(accountId) DO UPDATE SET state = ?2, detail = ?3, changedDate = ?4, processId = ?5,
                            lastError = CASE WHEN ?2 = 'error' THEN ?3 ELSE lastError END,
                            nextRetry = CASE WHEN ?2 = 'listening' THEN NULL ELSE nextRetry END
                        """, arguments: [accountId, state.rawValue, detail, date, processId])
            case .synced(let failedFolders):
                let failure =
                    failedFolders.isEmpty
                    ? nil
                    : "\(failedFolders.count) folder\(failedFolders.count == 1 ? "" : "s") could not be synced: \(failedFolders.joined(separator: ", "))"
                try db.execute(
                    sql: """
                        UPDATE accountSyncStatus SET nextRetry = NULL,
                            lastSuccessfulSync = CASE WHEN ?2 IS NULL THEN ?3 ELSE lastSuccessfulSync END,
                            lastError = ?2
                        WHERE accountId = ?1
                        """, arguments: [accountId, failure, date])
            case .retryScheduled(let retry, let reason):
                try db.execute(
                    sql: "UPDATE accountSyncStatus SET nextRetry = ?, lastError = ? WHERE accountId = ?",
                    arguments: [retry, reason, accountId])
            }
        }
    }

    public func syncStatuses() async throws -> [SyncStatusRecord] {
        try await database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM accountSyncStatus").compactMap { row in
                guard let state = SyncState(rawValue: row["state"]) else { return nil }
                return SyncStatusRecord(
                    accountId: row["accountId"], state: state, detail: row["detail"], changedDate: row["changedDate"],
                    processId: row["processId"], lastSuccessfulSync: row["lastSuccessfulSync"],
                    lastError: row["lastError"], nextRetry: row["nextRetry"])
            }
        }
    }

    public func waitingWork() async throws -> [Account.ID: WaitingWork] {
        try await database.writer.read { db in
            var work: [Account.ID: WaitingWork] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT accountId, state, count(*) AS n FROM pendingOperation GROUP BY accountId, state") {
                let count: Int = row["n"]
                if row["state"] == "failed" {
                    work[row["accountId"], default: WaitingWork()].failedChanges = count
                } else {
                    work[row["accountId"], default: WaitingWork()].changes = count
                }
            }
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT accountId, sendState, count(*) AS n FROM email WHERE sendState IN ('queued', 'sending', 'failed')
                    GROUP BY accountId, sendState
                    """)
            {
                let count: Int = row["n"]
                if row["sendState"] == "failed" {
                    work[row["accountId"], default: WaitingWork()].failedQueue += count
                } else {
                    work[row["accountId"], default: WaitingWork()].queue += count
                }
            }
            for row in try Row.fetchAll(db, sql: "SELECT accountId, count(*) AS n FROM draft WHERE syncState != 'synced' GROUP BY accountId") {
                work[row["accountId"], default: WaitingWork()].drafts = row["n"]
            }
            return work
        }
    }
}
