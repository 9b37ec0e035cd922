import Foundation
import GRDB
import TernCore

/// Issue 35: the `oauthClient` table, one registration per provider.
public struct SQLiteOAuthClientStore: OAuthClientStore {
    let database: TernDatabase

    public init(database: TernDatabase) { self.database = database }

    public func registrations() async throws -> [OAuthClientRegistration] {
        try await database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT provider, clientId, clientSecret FROM oauthClient ORDER BY provider").compactMap { row in
                OAuthProvider(rawValue: row["provider"]).map {
                    OAuthClientRegistration(provider: $0, clientID: row["clientId"], clientSecret: row["clientSecret"])
                }
            }
        }
    }

    public func save(_ registration: OAuthClientRegistration) async throws {
        try await database.writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO oauthClient (provider, clientId, clientSecret) VALUES (?, ?, ?)
                    ON CONFLICT(provider) DO UPDATE SET clientId = excluded.clientId, clientSecret = excluded.clientSecret
                    """,
                arguments: [registration.provider.rawValue, registration.clientID, registration.clientSecret])
        }
    }

    public func remove(_ provider: OAuthProvider) async throws {
        try await database.writer.write { db in try db.execute(sql: "DELETE FROM oauthClient WHERE provider = ?", arguments: [provider.rawValue]) }
    }
}
