import Foundation
import Testing

@testable import TernCore

/// Issue 35: identities as pure rules (which one a reply is sent from, where a signature goes) and
/// the use case's checks, over in-memory doubles. The store and the composer on it:
/// MailStoreTests' `SQLiteIdentityRepositoryTests` and `ComposeUseCaseTests`.
actor InMemoryIdentities: IdentityRepository {
    var stored: [Identity] = []

    func identities(of accountId: Account.ID) async throws -> [Identity] {
        stored.filter { $0.accountId == accountId }.sorted { $0.isDefault && !$1.isDefault }
    }

    func add(_ identity: Identity) async throws {
        if stored.contains(where: { $0.accountId == identity.accountId && $0.key == identity.key }) {
            throw TernError.alreadyExists(identity.emailAddress)
        }
        stored.append(identity)
    }

    func update(_ identity: Identity) async throws -> Bool {
        guard let index = stored.firstIndex(where: { $0.accountId == identity.accountId && $0.key == identity.key }) else { return false }
        stored[index].displayName = identity.displayName
        stored[index].signature = identity.signature
        return true
    }

    func remove(accountId: Account.ID, emailAddress: String) async throws -> Bool {
        let before = stored.count
        stored.removeAll { $0.accountId == accountId && $0.key == emailAddress.lowercased() && !$0.isDefault }
        return stored.count != before
    }
}

@Suite struct IdentityChoiceTests {
    let accountId = AccountID("acc")
    var identities: [Identity] {
        [
            Identity(accountId: accountId, emailAddress: "ana@example.org", displayName: "Ana", isDefault: true),
            Identity(accountId: accountId, emailAddress: "sales@example.org", displayName: "Ana (Sales)", signature: "Sales"),
            Identity(accountId: accountId, emailAddress: "Lists@Example.org", displayName: "Ana (lists)")
        ]
    }

    func original(to: [String] = [], cc: [String] = [], deliveredTo: [String] = [], from: String = "zoe@example.fr") -> Email {
        var email = Email(
            accountId: accountId, messageId: "<m@example.fr>", dedupKey: "k", subject: "Hi", fromAddress: from,
            toAddresses: to.map { EmailAddress(address: $0) }, ccAddresses: cc.map { EmailAddress(address: $0) }, dateReceived: Date())
        email.deliveredTo = deliveredTo
        return email
    }

    func chosen(_ email: Email?) -> String? { IdentityChoice.forReply(to: email, identities: identities)?.emailAddress }

    @Test func toComesBeforeCcAndCcBeforeDeliveredTo() {
        #expect(chosen(original(to: ["bob@x.org", "sales@example.org"], cc: ["ana@example.org"])) == "sales@example.org")
        #expect(chosen(original(to: ["bob@x.org"], cc: ["lists@example.org"], deliveredTo: ["sales@example.org"])) == "lists@example.org")
        #expect(chosen(original(to: ["team@x.org"], deliveredTo: ["nobody@x.org", "sales@example.org"])) == "sales@example.org")
    }

    @Test func anAliasWinsOverTheAccountsOwnAddressBesideIt() {
        #expect(chosen(original(to: ["ana@example.org"], cc: ["sales@example.org"])) == "sales@example.org")
        #expect(chosen(original(to: ["ana@example.org"], deliveredTo: ["ana@example.org"])) == "ana@example.org")
    }

    @Test func deliveredToAndXOriginalToNameABccedOrListedIdentity() {
        // `deliveredTo` holds Delivered-To then X-Original-To (ParsedMessage+Email), the first identity wins.
        let chosenIdentity = IdentityChoice.forReply(
            to: original(to: ["list@lists.x.org"], deliveredTo: ["sales@example.org"]), identities: identities)
        #expect(chosenIdentity?.displayName == "Ana (Sales)")
        #expect(chosenIdentity?.signature == "Sales")
    }

    @Test func addressesCompareWithoutCaseAndKeepTheOriginalsSpelling() {
        #expect(chosen(original(to: ["SALES@example.ORG"])) == "SALES@example.ORG")
        #expect(chosen(original(cc: ["lists@example.org"])) == "lists@example.org")
    }

    @Test func plusAddressingIsNotGuessed() {
        #expect(chosen(original(to: ["sales+eu@example.org"])) == "ana@example.org")
        #expect(chosen(original(to: ["ana+news@example.org"], deliveredTo: ["ana+news@example.org"])) == "ana@example.org")
    }

    @Test func withoutAnIdentityAddressedTheDefaultNeverAStranger() {
        #expect(chosen(original(to: ["bob@x.org"], cc: ["carol@x.org"], deliveredTo: ["bob@x.org"])) == "ana@example.org")
        #expect(chosen(nil) == "ana@example.org")
        #expect(IdentityChoice.forReply(to: original(to: ["a@b.c"]), identities: []) == nil)
    }

    @Test func thePersonsOwnMessageIsAnsweredFromTheIdentityThatSentIt() {
        #expect(chosen(original(to: ["bob@x.org"], from: "sales@example.org")) == "sales@example.org")
    }
}

@Suite struct SignatureBlockTests {
    let quote = "\n\nOn Tue, 14 Nov 2023 at 22:13, Zoë wrote:\n> The numbers."

    @Test func aNewMessageGetsTheSeparatorAndTheSignatureBelowRoomForText() {
        #expect(SignatureBlock.inserting("Ana\nexample.org", into: "") == "\n\n-- \nAna\nexample.org")
        #expect(SignatureBlock.inserting(nil, into: quote) == quote)
    }

    @Test func aReplysSignatureIsAboveTheQuote() {
        let body = SignatureBlock.inserting("Ana", into: quote)
        #expect(body == "\n\n-- \nAna\n\nOn Tue, 14 Nov 2023 at 22:13, Zoë wrote:\n> The numbers.")
        // The person's text goes on top (the CLI's --body, the editor): above the signature, above the quote.
        var draft = ComposeDraft(mode: .reply, accountId: AccountID("a"), from: EmailAddress(address: "ana@example.org"), body: body)
        draft.signature = "Ana"
        let typed = "Yes." + "\n\n" + draft.body
        let lines = typed.components(separatedBy: "\n")
        #expect(lines.firstIndex(of: "Yes.")! < lines.firstIndex(of: "-- ")!)
        #expect(lines.firstIndex(of: "-- ")! < lines.firstIndex { $0.hasPrefix("On Tue") }!)
    }

    @Test func aForwardsSignatureIsAboveTheForwardedMessage() {
        let forward = "\n\n---------- Forwarded message ----------\nFrom: Zoë <zoe@example.fr>\n\nHello"
        #expect(
            SignatureBlock.inserting("Ana", into: forward)
                == "\n\n-- \nAna\n\n---------- Forwarded message ----------\nFrom: Zoë <zoe@example.fr>\n\nHello")
    }

    @Test func changingIdentitySwapsTheBlock() {
        let body = "Hi.\n\n-- \nAna\n\nOn Tue, 14 Nov 2023 at 22:13, Zoë wrote:\n> The numbers."
        #expect(
            SignatureBlock.replacing("Ana", with: "Ana (Sales)\n+1 555", in: body)
                == "Hi.\n\n-- \nAna (Sales)\n+1 555\n\nOn Tue, 14 Nov 2023 at 22:13, Zoë wrote:\n> The numbers.")
        #expect(SignatureBlock.replacing("Ana", with: nil, in: body) == "Hi.\n\nOn Tue, 14 Nov 2023 at 22:13, Zoë wrote:\n> The numbers.")
        // No block before: the new one goes above the quote; already there (the page swapped it): left alone.
        #expect(SignatureBlock.replacing(nil, with: "Sales", in: "Hi." + quote) == "Hi.\n\n-- \nSales" + quote)
        #expect(SignatureBlock.replacing("Ana", with: "Sales", in: "Hi.\n\n-- \nSales") == "Hi.\n\n-- \nSales")
        #expect(SignatureBlock.replacing(nil, with: "Sales", in: "Hi.") == "Hi.\n\n-- \nSales")
    }

    @Test func theSignatureIsInThePlainAndTheHTMLPartAboveTheQuote() throws {
        var draft = ComposeDraft(mode: .reply, accountId: AccountID("a"), from: EmailAddress(address: "ana@example.org"))
        draft.body = "Yes." + SignatureBlock.inserting("Ana *Sales*", into: quote)
        let message = draft.outgoingMessage(date: Date())
        #expect(message.bodyPlain == "Yes.\n\n-- \nAna _Sales_\n\nOn Tue, 14 Nov 2023 at 22:13, Zoë wrote:\n> The numbers.")
        let html = try #require(message.bodyHTML)
        let separator = try #require(html.range(of: "-- <br>\nAna <i>Sales</i>"))
        let attribution = try #require(html.range(of: "On Tue, 14 Nov 2023"))
        #expect(html.range(of: "Yes.")!.lowerBound < separator.lowerBound)
        #expect(separator.upperBound < attribution.lowerBound)
    }

    @Test func aBodyHoldingOnlyTheSignatureIsNothingTyped() {
        var draft = ComposeDraft(mode: .new, accountId: AccountID("a"), from: EmailAddress(address: "ana@example.org"))
        draft.signature = "Ana"
        draft.body = SignatureBlock.inserting("Ana", into: "")
        #expect(draft.isEmpty)
        draft.body = "Hello" + draft.body
        #expect(!draft.isEmpty)
    }
}

@Suite struct IdentitiesUseCaseTests {
    let accounts = InMemoryAccounts()
    let store = InMemoryIdentities()
    var useCase: IdentitiesUseCase { IdentitiesUseCase(accounts: accounts, identities: store) }

    func addAccount(aliases: [String] = []) async throws -> Account {
        let account = Account(
            name: "work", emailAddress: "ana@example.org", displayName: "Ana", provider: .imap,
            imap: ServerEndpoint(host: "imap.example.org", port: 993, security: .implicitTLS),
            smtp: ServerEndpoint(host: "smtp.example.org", port: 465, security: .implicitTLS), username: "ana",
            credential: .passwordEnvironment("PW"), aliases: aliases)
        try await accounts.insert(account)
        return account
    }

    @Test func anAccountWithoutStoredIdentitiesHasItsAddressAndAliases() async throws {
        _ = try await addAccount(aliases: ["old@example.org"])
        let listed = try await useCase.list()
        #expect(listed.map(\.account.name) == ["work"])
        #expect(listed[0].identities.map(\.emailAddress) == ["ana@example.org", "old@example.org"])
        #expect(listed[0].identities.map(\.isDefault) == [true, false])
    }

    @Test func addCheckedEditAndRemove() async throws {
        let account = try await addAccount()
        try await store.add(Identity(accountId: account.id, emailAddress: account.emailAddress, displayName: "Ana", isDefault: true))
        let sales = try await useCase.add(
            account: "work", emailAddress: " Sales@Example.org ", displayName: nil, signature: "-- \r\nAna\r\nSales\n\n")
        #expect(sales.emailAddress == "Sales@Example.org")
        #expect(sales.displayName == "Ana", "without a name of its own, the account's")
        #expect(sales.signature == "Ana\nSales", "line breaks as LF, the separator and trailing blank lines dropped")
        await #expect(throws: TernError.self) {
            try await useCase.add(account: "work", emailAddress: "sales@example.org", displayName: nil, signature: nil)
        }
        await #expect(throws: TernError.self) {
            try await useCase.add(account: "work", emailAddress: "not an address", displayName: nil, signature: nil)
        }
        await #expect(throws: TernError.self) { try await useCase.add(account: "home", emailAddress: "a@b.org", displayName: nil, signature: nil) }
        await #expect(throws: TernError.self) {
            try await useCase.add(account: "work", emailAddress: "x@example.org", displayName: "Evil\r\nBcc: x@y", signature: nil)
        }
        await #expect(throws: TernError.self) {
            try await useCase.add(account: "work", emailAddress: "x@example.org", displayName: nil, signature: "bell\u{7}")
        }
        await #expect(throws: TernError.self) {
            try await useCase.add(
                account: "work", emailAddress: "x@example.org", displayName: nil,
                signature: String(repeating: "a", count: IdentitiesUseCase.maxSignatureLength + 1))
        }

        let edited = try await useCase.edit(
            account: "work", emailAddress: "SALES@example.org", IdentityEdit(displayName: "Ana (Sales)", signature: ""))
        #expect(edited.displayName == "Ana (Sales)")
        #expect(edited.signature == nil, "an empty signature removes it")
        try await useCase.remove(account: "work", emailAddress: "sales@EXAMPLE.org")
        #expect(try await store.identities(of: account.id).map(\.emailAddress) == ["ana@example.org"])
        await #expect(throws: TernError.self) { try await useCase.remove(account: "work", emailAddress: "ana@example.org") }
        await #expect(throws: TernError.self) { try await useCase.remove(account: "work", emailAddress: "gone@example.org") }
    }

    @Test func editingAnImpliedIdentityStoresThemAll() async throws {
        let account = try await addAccount(aliases: ["old@example.org"])
        _ = try await useCase.edit(account: "work", emailAddress: "ana@example.org", IdentityEdit(signature: "Ana"))
        let stored = try await store.identities(of: account.id)
        #expect(stored.map(\.emailAddress) == ["ana@example.org", "old@example.org"])
        #expect(stored.map(\.signature) == ["Ana", nil])
        #expect(stored.map(\.isDefault) == [true, false])
    }
}

@Suite struct SendingIdentityTests {
    @Test func theSendPathTakesOnlyAnIdentityOfTheAccount() throws {
        let account = Account(
            name: "work", emailAddress: "ana@example.org", provider: .imap,
            imap: ServerEndpoint(host: "imap.example.org", port: 993, security: .implicitTLS),
            smtp: ServerEndpoint(host: "smtp.example.org", port: 465, security: .implicitTLS), username: "ana",
            credential: .passwordEnvironment("PW"), aliases: ["sales@example.org"])
        func message(from address: String) -> OutgoingMessage {
            OutgoingMessage(from: EmailAddress(address: address), to: [EmailAddress(address: "bob@x.org")], subject: "Hi", bodyPlain: "Hi")
        }
        try OutboxUseCase.checkSender(message(from: "ana@example.org"), of: account)
        try OutboxUseCase.checkSender(message(from: "SALES@example.org"), of: account)
        #expect(throws: TernError.self) { try OutboxUseCase.checkSender(message(from: "boss@example.org"), of: account) }
        #expect(throws: TernError.self) { try OutboxUseCase.checkSender(message(from: "ana+x@example.org"), of: account) }
    }
}
