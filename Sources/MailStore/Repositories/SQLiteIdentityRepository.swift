import Foundation
import GRDB
import TernCore

/// Issue 35: `IdentityRepository` over the `identity` table. Every change rewrites the account's
/// `aliases` column in the same transaction, so what the rest of the store reads as the person's
/// own addresses (`Account.ownAddresses`: Reply All, own mail, Assist) is always the identities.
public struct SQLiteIdentityRepository: IdentityRepository {
    let database: TernDatabase

    public init(database: TernDatabase) { self.database = database }

    public func identities(of accountId: Account.ID) async throws -> [Identity] {
        try await database.writer.read { db in try Self.identities(of: accountId, db: db) }
    }

    public func add(_ identity: Identity) async throws {
        do {
            try await database.writer.write { db in
                try identity.insert(db)
                if identity.isDefault {
                    try db.execute(sql: "UPDATE account SET displayName = ? WHERE id = ?", arguments: [identity.displayName, identity.accountId])
                }
                try Self.writeAliases(of: identity.accountId, db: db)
            }
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            throw TernError.alreadyExists("an identity \(identity.emailAddress)")
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY {
            throw TernError.notFound("account \(identity.accountId)")
        }
    }

    @discardableResult
    public func update(_ identity: Identity) async throws -> Bool {
        try await database.writer.write { db in
            try db.execute(
                sql: "UPDATE identity SET displayName = ?, signature = ? WHERE accountId = ? AND emailKey = ?",
                arguments: [identity.displayName, identity.signature, identity.accountId, identity.key])
            guard db.changesCount > 0 else { return false }
            // The default identity's name is the account's: the From every older path writes.
            try db.execute(
                sql:
                    "UPDATE account SET displayName = ? WHERE id = ? AND EXISTS (SELECT 1 FROM identity WHERE accountId = ? AND emailKey = ? AND isDefault)",
                arguments: [identity.displayName, identity.accountId, identity.accountId, identity.key])
            return true
        }
    }

    @discardableResult
    public func remove(accountId: Account.ID, emailAddress: String) async throws -> Bool {
        try await database.writer.write { db in
            try db.execute(
                sql: "DELETE FROM identity WHERE accountId = ? AND emailKey = ? AND NOT isDefault", arguments: [accountId, emailAddress.lowercased()])
            guard db.changesCount > 0 else { return false }
            try Self.writeAliases(of: accountId, db: db)
            return true
        }
    }

    static func identities(of accountId: Account.ID, db: Database) throws -> [Identity] {
        try Identity.fetchAll(db, sql: "SELECT * FROM identity WHERE accountId = ? ORDER BY isDefault DESC, id", arguments: [accountId])
    }

    /// The account's identities as it is added: its address as the default, then its aliases.
    static func insertImplied(by account: Account, db: Database) throws {
        for identity in Identity.implied(by: account) {
            try db.execute(
                sql: "INSERT OR IGNORE INTO identity (accountId, emailAddress, emailKey, displayName, isDefault) VALUES (?, ?, ?, ?, ?)",
                arguments: [identity.accountId, identity.emailAddress, identity.key, identity.displayName, identity.isDefault])
        }
    }

    /// `account.aliases`: the lowercased addresses of the non-default identities, in their order.
    static func writeAliases(of accountId: Account.ID, db: Database) throws {
        let aliases = try identities(of: accountId, db: db).filter { !$0.isDefault }.map(\.key)
        try db.execute(sql: "UPDATE account SET aliases = ? WHERE id = ?", arguments: [aliases.joined(separator: " "), accountId])
    }
}

extension Identity: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "identity"

    public init(row: Row) throws {
        self.init(
            accountId: row["accountId"], emailAddress: row["emailAddress"], displayName: row["displayName"], signature: row["signature"],
            isDefault: row["isDefault"])
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["accountId"] = accountId
        container["emailAddress"] = emailAddress
        container["emailKey"] = key
        container["displayName"] = displayName
        container["signature"] = signature
        container["isDefault"] = isDefault
    }
}
