import Foundation
import GRDB
import TernCore
import Testing

@testable import MailStore

/// FR-COMP-04 on the real store: contacts written by sync are capped at 10,000 per account, the
/// least frequent and then the oldest evicted first, and the autocomplete reads them back merged.
struct ContactCacheTests {
    let database: TernDatabase
    let work = Fixtures.account(name: "work")
    let home = Fixtures.account(name: "home")
    let inbox: Folder

    init() async throws {
        database = try TernDatabase.temporary()
        inbox = try await database.writer.write { [work, home] db in
            try work.insert(db)
            try home.insert(db)
            var inbox = Folder(accountId: work.id, path: "INBOX", folderType: .inbox)
            try inbox.insert(db)
            return inbox
        }
    }

    /// `count` contacts of `account` seen `frequency` times, a day apart, the first the oldest.
    func seed(_ account: Account, count: Int, frequency: Int, prefix: String) async throws {
        try await database.writer.write { db in
            for index in 0..<count {
                try ContactCacheEntry(
                    accountId: account.id, emailAddress: "\(prefix)\(index)@example.org", displayName: "Person \(index)",
                    lastSeenDate: Date(timeIntervalSince1970: 1_600_000_000 + Double(index) * 86_400), frequency: frequency
                )
                .insert(db)
            }
        }
    }

    func addresses(_ account: Account) async throws -> Set<String> {
        try await database.writer.read { db in
            Set(try String.fetchAll(db, sql: "SELECT emailAddress FROM contactCacheEntry WHERE accountId = ?", arguments: [account.id]))
        }
    }

    @Test func syncEvictsTheLeastFrequentThenOldestPastTenThousand() async throws {
        try await seed(work, count: 9_998, frequency: 3, prefix: "often")
        try await seed(work, count: 2, frequency: 1, prefix: "rare") // rare0 is the older
        try await seed(home, count: 10_000, frequency: 1, prefix: "home")
        // One message from a new sender to two new addresses: 10,002 contacts, two go.
        var email = Fixtures.email(accountId: work.id, messageId: "<new@example.org>")
        email.fromAddress = "new.sender@example.org"
        email.toAddresses = [EmailAddress(address: "new.to@example.org")]
        email.ccAddresses = [EmailAddress(address: "often5@example.org")]
        email.dateSent = Date(timeIntervalSince1970: 1_700_000_000)
        _ = try await SQLiteMessageStore(database: database).store([IncomingMessage(email: email, uid: 1, serverFlags: [])], folderId: inbox.id!)

        let kept = try await addresses(work)
        #expect(kept.count == SQLiteMessageStore.contactLimit)
        #expect(!kept.contains("rare0@example.org") && !kept.contains("rare1@example.org"))
        #expect(kept.isSuperset(of: ["new.sender@example.org", "new.to@example.org", "often0@example.org"]))
        #expect(try await addresses(home).count == 10_000)
    }

    @Test func autocompleteReadsTheCacheOfEveryAccount() async throws {
        try await database.writer.write { [work, home] db in
            try ContactCacheEntry(
                accountId: work.id, emailAddress: "ana@example.org", displayName: "Ana", lastSeenDate: Date(timeIntervalSince1970: 1),
                frequency: 4
            ).insert(db)
            try ContactCacheEntry(
                accountId: home.id, emailAddress: "ana@example.org", displayName: "Ana Silva",
                lastSeenDate: Date(timeIntervalSince1970: 2), frequency: 2
            ).insert(db)
        }
        let suggestions = try await ContactsAutocompleteUseCase(store: SQLiteComposeStore(database: database)).suggestions(for: "silva")
        #expect(suggestions.map(\.address) == ["ana@example.org"])
        #expect(suggestions.first?.frequency == 4)
    }
}
