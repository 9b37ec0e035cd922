import Foundation
import GRDB
import TernCore
import Testing

@testable import MailStore

/// Issue 35: the `oauthClient` table (v31) keeps one registration per provider, and the account
/// table (v30) takes Microsoft accounts, before and after the rebuild.
struct SQLiteOAuthClientStoreTests {
    @Test func oneRegistrationPerProvider() async throws {
        let store = SQLiteOAuthClientStore(database: try TernDatabase.temporary())
        #expect(try await store.registrations().isEmpty)
        try await store.save(OAuthClientRegistration(provider: .google, clientID: "g1", clientSecret: "s1"))
        try await store.save(OAuthClientRegistration(provider: .microsoft, clientID: "m1"))
        try await store.save(OAuthClientRegistration(provider: .google, clientID: "g2", clientSecret: nil))
        #expect(
            try await store.registrations()
                == [OAuthClientRegistration(provider: .google, clientID: "g2"), OAuthClientRegistration(provider: .microsoft, clientID: "m1")])
        try await store.remove(.google)
        #expect(try await store.registration(for: .google) == nil)
        #expect(try await store.registration(for: .microsoft)?.clientID == "m1")
    }

    @Test func aMicrosoftAccountIsStoredAfterTheRebuildAndOlderAccountsStay() async throws {
        let home = Fixtures.temporaryHome()
        try FileManager.default.createDirectory(at: home.url, withIntermediateDirectories: true)
        do {
            let queue = try DatabaseQueue(path: home.databaseURL.path)
            try SchemaMigrations.migrator.migrate(queue, upTo: "v29-scheduled-send-index")
            try await queue.write { db in try Fixtures.account(name: "old").insert(db) }
            try queue.close()
        }
        let database = try TernDatabase(home: home)
        let accounts = SQLiteAccountRepository(database: database)
        var office = Fixtures.account(name: "office")
        office.provider = .microsoft
        office.credential = .oauth2(clientID: "m1")
        try await accounts.insert(office)
        #expect(try await accounts.account(named: "office")?.provider == .microsoft)
        #expect(try await accounts.account(named: "old")?.provider == .imap)
    }
}
