import Foundation
import GRDB
import TernCore

/// `TernSettings` in the `setting` table (v9), one row per key that was set.
public struct SQLiteSettingsStore: SettingsStore {
    let database: TernDatabase

    public init(database: TernDatabase) { self.database = database }

    public func values() async throws -> [SettingKey: String] {
        try await database.writer.read { db in
            var values: [SettingKey: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, value FROM setting") {
                if let key = SettingKey(rawValue: row["key"]) { values[key] = row["value"] }
            }
            return values
        }
    }

    public func setValue(_ value: String, for key: SettingKey) async throws {
        try await database.writer.write { db in
            try db.execute(
                sql: "INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [key.rawValue, value])
        }
    }

    public func removeValue(for key: SettingKey) async throws {
        try await database.writer.write { db in try db.execute(sql: "DELETE FROM setting WHERE key = ?", arguments: [key.rawValue]) }
    }
}
