import Foundation
import GRDB
import MIME
import TernCore
import TernRuntime
import Testing

@testable import MailStore

/// Issue 35: identities in the store (the default from the account, aliases moved by the
/// migration, `account.aliases` kept with them), and a reply, reply all and the From picker on the
/// real store with the live adapters: the identity the original was addressed or delivered to, every
/// identity left out of Reply All, the signature above the quote.
struct SQLiteIdentityRepositoryTests {
    let database: TernDatabase
    let accounts: SQLiteAccountRepository
    let identities: SQLiteIdentityRepository
    let utc = TimeZone(identifier: "UTC")!

    init() throws {
        database = try TernDatabase.temporary()
        accounts = SQLiteAccountRepository(database: database)
        identities = SQLiteIdentityRepository(database: database)
    }

    func addWork() async throws -> Account {
        var account = Fixtures.account(name: "work")
        account.displayName = "Ana"
        account.aliases = ["old@example.org"]
        try await accounts.insert(account)
        return account
    }

    var useCase: IdentitiesUseCase { IdentitiesUseCase(accounts: accounts, identities: identities) }

    var compose: ComposeUseCase {
        ComposeUseCase(
            accounts: accounts, store: SQLiteComposeStore(database: database), syntax: MIMEMailSyntax(), sanitizer: HTMLSafetyBodySanitizer(),
            identities: identities, timeZone: utc)
    }

    @Test func anAccountIsAddedWithItsAddressAsTheDefaultIdentityAndItsAliases() async throws {
        let account = try await addWork()
        let stored = try await identities.identities(of: account.id)
        #expect(stored.map(\.emailAddress) == ["work@example.org", "old@example.org"])
        #expect(stored.map(\.isDefault) == [true, false])
        #expect(stored.map(\.displayName) == ["Ana", "Ana"])
    }

    @Test func changesKeepTheAccountsAliasesAndNameAndAStaleAccountDoesNotUndoThem() async throws {
        let account = try await addWork()
        _ = try await useCase.add(account: "work", emailAddress: "Sales@Example.org", displayName: "Ana (Sales)", signature: "Sales")
        _ = try await useCase.edit(account: "work", emailAddress: "work@example.org", IdentityEdit(displayName: "Ana B."))
        try await useCase.remove(account: "work", emailAddress: "old@example.org")
        var read = try #require(try await accounts.account(named: "work"))
        #expect(read.aliases == ["sales@example.org"])
        #expect(read.ownAddresses == ["work@example.org", "sales@example.org"])
        #expect(read.displayName == "Ana B.")
        // The account as read before those changes, updated (a sync's lastSyncDate, a sign-in): aliases and name stay.
        var stale = account
        stale.lastSyncDate = Date(timeIntervalSince1970: 1_800_000_000)
        try await accounts.update(stale)
        read = try #require(try await accounts.account(named: "work"))
        #expect(read.aliases == ["sales@example.org"])
        #expect(read.displayName == "Ana B.")
        #expect(read.lastSyncDate == stale.lastSyncDate)
        await #expect(throws: TernError.self) { try await identities.add(Identity(accountId: account.id, emailAddress: "SALES@example.org")) }
        #expect(try await !identities.remove(accountId: account.id, emailAddress: "work@example.org"), "the default stays")
    }

    @Test func removingTheAccountRemovesItsIdentities() async throws {
        let account = try await addWork()
        try await accounts.delete(id: account.id)
        let left = try await database.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM identity") }
        #expect(left == 0)
    }

    @Test func theMigrationMakesIdentitiesOfAccountsAndAliases() throws {
        let home = Fixtures.temporaryHome()
        try FileManager.default.createDirectory(at: home.url, withIntermediateDirectories: true)
        var account = Fixtures.account(name: "old")
        account.displayName = "Old Name"
        do {
            let queue = try DatabaseQueue(path: home.databaseURL.path)
            try SchemaMigrations.migrator.migrate(queue, upTo: "v15-sender-authentication")
            try queue.write { db in
                try Fixtures.insertAsOfV1(account, db)
                try db.execute(sql: "UPDATE account SET aliases = 'a1@example.org OLD@example.org a2@example.org'")
            }
            try queue.close()
        }
        let database = try TernDatabase(home: home)
        let rows = try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT emailAddress, displayName, isDefault FROM identity ORDER BY id").map {
                "\($0["emailAddress"] as String) \($0["displayName"] as String? ?? "-") \($0["isDefault"] as Bool)"
            }
        }
        #expect(rows == ["old@example.org Old Name true", "a1@example.org Old Name false", "a2@example.org Old Name false"])
    }

    @Test func deliveredToIsStoredWithTheMessage() async throws {
        let account = try await addWork()
        var email = Fixtures.email(accountId: account.id, messageId: "<d@example.fr>")
        email.deliveredTo = ["sales@example.org", "Work@Example.org"]
        let id = try await database.writer.write { [email] db in
            var email = email
            try SQLiteMessageStore.insert(&email, db: db)
            return email.id!
        }
        let read = try await database.writer.read { db in try Email.fetchOne(db, key: id) }
        #expect(read?.deliveredTo == ["sales@example.org", "Work@Example.org"])
    }

    func receivedMail(for account: Account, to: [String], cc: [String] = [], deliveredTo: [String] = []) async throws -> EmailID {
        var email = Fixtures.email(accountId: account.id, messageId: "<orig-\(UUID().uuidString)@example.fr>")
        email.toAddresses = to.map { EmailAddress(address: $0) }
        email.ccAddresses = cc.map { EmailAddress(address: $0) }
        email.deliveredTo = deliveredTo
        email.bodyPlain = "The numbers?"
        email.bodiesFetched = true
        return try await database.writer.write { [email] db in
            var email = email
            try SQLiteMessageStore.insert(&email, db: db)
            return email.id!
        }
    }

    @Test func aReplyToMailDeliveredToAnAliasComesFromItWithItsSignatureAboveTheQuote() async throws {
        let account = try await addWork()
        _ = try await useCase.add(account: "work", emailAddress: "sales@example.org", displayName: "Ana (Sales)", signature: "Ana\nSales team")
        let id = try await receivedMail(for: account, to: ["team@lists.example.org"], deliveredTo: ["sales@example.org"])
        let draft = try await compose.compose(.reply, replyingTo: id)
        #expect(draft.from == EmailAddress(name: "Ana (Sales)", address: "sales@example.org"))
        #expect(draft.body == "\n\n-- \nAna\nSales team\n\nOn Tue, 14 Nov 2023 at 22:13, Zoë wrote:\n> The numbers?")
        let forward = try await compose.compose(.forward, replyingTo: id)
        #expect(forward.body.hasPrefix("\n\n-- \nAna\nSales team\n\n---------- Forwarded message ----------\n"))
    }

    @Test func replyAllLeavesOutEveryIdentity() async throws {
        let account = try await addWork()
        _ = try await useCase.add(account: "work", emailAddress: "sales@example.org", displayName: nil, signature: nil)
        let id = try await receivedMail(
            for: account, to: ["SALES@example.org", "ivan@example.ru"], cc: ["work@EXAMPLE.org", "old@example.org", "bo@example.com"])
        let draft = try await compose.compose(.replyAll, replyingTo: id)
        #expect(draft.from.address == "SALES@example.org")
        #expect(draft.to.map(\.address) == ["zoe@example.fr"])
        #expect(draft.cc.map(\.address) == ["ivan@example.ru", "bo@example.com"])
    }

    @Test func theFromPickerAndFromTakeOnlyAnIdentityAndSwapTheSignature() async throws {
        _ = try await addWork()
        _ = try await useCase.edit(account: "work", emailAddress: "work@example.org", IdentityEdit(signature: "Ana"))
        _ = try await useCase.add(account: "work", emailAddress: "sales@example.org", displayName: "Ana (Sales)", signature: "Sales")
        var draft = try await compose.new(account: "work")
        #expect(draft.body == "\n\n-- \nAna")
        #expect(draft.isEmpty)
        draft.body = "Hello" + draft.body
        let moved = try await compose.sending(draft, fromAddress: "Sales@example.org")
        #expect(moved.from == EmailAddress(name: "Ana (Sales)", address: "sales@example.org"))
        #expect(moved.body == "Hello\n\n-- \nSales")
        await #expect(throws: TernError.self) { try await compose.sending(draft, fromAddress: "boss@example.org") }
        await #expect(throws: TernError.self) { try await compose.sending(draft, fromAddress: "sales+x@example.org") }
    }
}
