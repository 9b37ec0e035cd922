import Foundation
import GRDB
import TernCore

/// `PendingFolderChangeStore` on the local database (issue 36).
public struct SQLitePendingFolderChangeStore: PendingFolderChangeStore {
    let database: TernDatabase

    public init(database: TernDatabase) { self.database = database }

    public func queueFolderChange(_ change: PendingFolderChange) async throws -> PendingFolderChange {
        try await database.writer.write { db in
            var row = change
            try row.insert(db)
            return row
        }
    }

    public func pendingFolderChanges(accountId: Account.ID?) async throws -> [PendingFolderChange] {
        try await database.writer.read { db in
            if let accountId {
                return try PendingFolderChange.fetchAll(
                    db, sql: "SELECT * FROM pendingFolderChange WHERE accountId = ? AND state = 'pending' ORDER BY id", arguments: [accountId])
            }
            return try PendingFolderChange.fetchAll(db, sql: "SELECT * FROM pendingFolderChange WHERE state = 'pending' ORDER BY id")
        }
    }

    public func undoFolderChange(token: String, now: Date) async throws -> PendingFolderChange? {
        try await database.writer.write { db in
            // Only what is still inside its window and was never tried: nothing of it reached the server.
            guard
                let change = try PendingFolderChange.fetchOne(
                    db,
                    sql: """
                        SELECT * FROM pendingFolderChange
                        WHERE undoToken = ? AND state = 'pending' AND attempts = 0 AND notBefore > ?
                        """, arguments: [token, now]),
                let id = change.id
            else { return nil }
            // A later change that named what this one made (a rename of the folder it created) fails at
            // its push, with the reason, as one naming a folder another client removed.
            _ = try PendingFolderChange.deleteOne(db, key: id)
            return change
        }
    }

    public func latestUndoableFolderChange(now: Date) async throws -> UndoHold? {
        try await database.writer.read { db in try UndoHold.latest(in: "pendingFolderChange", db, now: now) }
    }

    public func completeFolderChange(_ id: PendingFolderChangeID) async throws {
        try await database.writer.write { db in _ = try PendingFolderChange.deleteOne(db, key: id) }
    }

    public func scheduleFolderChangeRetry(_ id: PendingFolderChangeID, attempts: Int, notBefore: Date, error: String) async throws {
        try await database.writer.write { db in
            try db.execute(
                sql: "UPDATE pendingFolderChange SET attempts = ?, notBefore = ?, lastError = ? WHERE id = ?",
                arguments: [attempts, notBefore, error, id])
        }
    }

    public func failFolderChange(_ id: PendingFolderChangeID, error: String, attempts: Int) async throws {
        try await database.writer.write { db in
            try db.execute(
                sql: "UPDATE pendingFolderChange SET state = 'failed', attempts = ?, lastError = ? WHERE id = ?",
                arguments: [attempts, error, id])
        }
    }
}
