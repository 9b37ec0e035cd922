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
            try await database.writer.write { db in
                try account.insert(db)
                // Issue 35: its address (and any alias) as identities from the start.
                try SQLiteIdentityRepository.insertImplied(by: account, db: db)
            }
        } catch let error as DatabaseError
            where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
            || error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY
        {
            throw TernError.alreadyExists("an account named '\(account.name)'")
        }
    }

    /// Every column but those the identities own (`displayName`, `aliases`: issue 35), so an
    /// account read before an identity changed does not write the old ones back.
    public func update(_ account: Account) async throws {
        try await database.writer.write { db in
            let columns = Set(try account.databaseDictionary.keys).subtracting(Self.identityColumns)
            try account.update(db, columns: columns)
        }
    }

    static let identityColumns: Set<String> = ["displayName", "aliases"]

    @discardableResult
    public func delete(id: Account.ID) async throws -> Bool {
        try await database.writer.write { db in try Account.deleteOne(db, key: id) }
    }
}
