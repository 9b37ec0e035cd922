import Foundation
import GRDB
import TernCore

/// FR-ED-04's trusted senders in `trustedSender` (v3), matched exactly and case-insensitively.
public struct SQLiteTrustedSenderStore: TrustedSenderStore {
    let database: TernDatabase

    public init(database: TernDatabase) { self.database = database }

    public func isTrusted(_ address: String) async throws -> Bool {
        try await database.writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM trustedSender WHERE senderEmail = ?)", arguments: [address.lowercased()])
                ?? false
        }
    }

    public func trusted(among addresses: Set<String>) async throws -> Set<String> {
        guard !addresses.isEmpty else { return [] }
        let lowered = Array(Set(addresses.map { $0.lowercased() }))
        return try await database.writer.read { db in
            Set(
                try String.fetchAll(
                    db, sql: "SELECT senderEmail FROM trustedSender WHERE senderEmail IN (\(databaseQuestionMarks(count: lowered.count)))",
                    arguments: StatementArguments(lowered)))
        }
    }

    public func add(_ sender: TrustedSender) async throws {
        try await database.writer.write { db in
            try db.execute(
                sql: "INSERT INTO trustedSender (id, senderEmail, createdDate) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                arguments: [sender.id, sender.senderEmail, sender.createdDate])
        }
    }

    public func all() async throws -> [TrustedSender] {
        try await database.writer.read { db in try TrustedSender.order(Column("senderEmail")).fetchAll(db) }
    }

    public func remove(address: String) async throws -> Bool {
        try await database.writer.write { db in
            try db.execute(sql: "DELETE FROM trustedSender WHERE senderEmail = ?", arguments: [address.lowercased()])
            return db.changesCount > 0
        }
    }

    public func removeAll() async throws -> Int {
        try await database.writer.write { db in
            try db.execute(sql: "DELETE FROM trustedSender")
            return db.changesCount
        }
    }
}
