import Foundation
import GRDB
import TernCore

/// `AccountRepository` over the local store. Deleting an account cascades (foreign keys with
/// ON DELETE CASCADE) to its folders, emails, threads, attachments and contact cache.
public struct SQLiteAccountRepository: AccountRepository {
    let database: TernDatabase

    public init(database: TernDatabase) { self.database = database }

    public func allAccounts() async throws -> [Account] {
        try await database.writer.read { db in
            try Account.order(Column("createdDate"), Column("name")).fetchAll(db)
        }
    }

    public func account(named name: AccountName) async throws -> Account? {
        try await database.writer.read { db in
            try Account.filter(Column("name") == name).fetchOne(db)
        }
    }

    public func insert(_ account: Account) async throws {
        do {
            try await database.writer.write { db in try account.insert(db) }
        } catch let error as DatabaseError
            where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
            || error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY
        {
            throw TernError.alreadyExists("an account named '\(account.name)'")
        }
    }

    public func update(_ account: Account) async throws {
        try await database.writer.write { db in try account.update(db) }
    }

    @discardableResult
    public func delete(id: Account.ID) async throws -> Bool {
        try await database.writer.write { db in try Account.deleteOne(db, key: id) }
    }
}
