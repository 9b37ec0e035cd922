import Foundation
import Synchronization
import Testing

@testable import TernCore

/// A repository double that holds accounts in memory and fails loudly on anything unexpected.
actor InMemoryAccounts: AccountRepository {
    var accounts: [Account] = []
    func allAccounts() async throws -> [Account] { accounts }
    func account(named name: AccountName) async throws -> Account? { accounts.first { $0.name == name } }
    func insert(_ account: Account) async throws {
        if accounts.contains(where: { $0.name == account.name }) { throw TernError.alreadyExists(account.name.rawValue) }
        accounts.append(account)
    }
    func update(_ account: Account) async throws {
        guard let index = accounts.firstIndex(where: { $0.id == account.id }) else { throw TernError.notFound(account.name.rawValue) }
        accounts[index] = account
    }
    func delete(id: Account.ID) async throws -> Bool {
        let before = accounts.count
        accounts.removeAll { $0.id == id }
        return accounts.count != before
    }
}

struct FixedSecrets: SecretResolver {
    var fail = false
    func secret(for account: Account) async throws -> String {
        if fail { throw TernError.secretUnavailable("no secret") }
        return "s3cret"
    }
}

final class RecordingFiles: AccountFileStore {
    let log = Mutex<[Account.ID]>([])
    var removed: [Account.ID] { log.withLock { $0 } }
    func removeFiles(of accountID: Account.ID) throws { log.withLock { $0.append(accountID) } }
}

@Suite struct AccountUseCasesTests {
    let endpoint = ServerEndpoint(host: "127.0.0.1", port: 10993, security: .implicitTLS)

    func request(
        name: AccountName = "work", email: String = "me@example.org", gmail: Bool = false,
        imap: ServerEndpoint? = nil, smtp: ServerEndpoint? = nil
    ) -> NewAccountRequest {
        NewAccountRequest(
            name: name, emailAddress: email, imap: imap, smtp: smtp,
            credential: .passwordEnvironment("PW"), gmailPreset: gmail)
    }

    @Test func addsGenericAccount() async throws {
        let accounts = InMemoryAccounts()
        let add = AddAccountUseCase(accounts: accounts, secrets: FixedSecrets())
        let account = try await add(request(imap: endpoint, smtp: endpoint))
        #expect(account.username == "me@example.org")
        #expect(account.provider == .imap)
        #expect(try await accounts.allAccounts().count == 1)
    }

    /// FR-COMP-01: aliases are stored lowercased, once each, without the primary address.
    @Test func aliasesAreNormalized() async throws {
        let add = AddAccountUseCase(accounts: InMemoryAccounts(), secrets: FixedSecrets())
        var withAliases = request(imap: endpoint, smtp: endpoint)
        withAliases.aliases = ["Me@Alias.example", "me@alias.example", "ME@example.org", " second@example.net "]
        let account = try await add(withAliases)
        #expect(account.aliases == ["me@alias.example", "second@example.net"])
        #expect(account.ownAddresses == ["me@example.org", "me@alias.example", "second@example.net"])
        var bad = request(name: "other", imap: endpoint, smtp: endpoint)
        bad.aliases = ["not an address"]
        await #expect(throws: TernError.invalidInput("alias 'not an address' is not an email address")) { try await add(bad) }
    }

    @Test func gmailPresetFillsServers() async throws {
        let add = AddAccountUseCase(accounts: InMemoryAccounts(), secrets: FixedSecrets())
        let account = try await add(request(email: "me@gmail.com", gmail: true))
        #expect(account.imap == AddAccountUseCase.gmailIMAP)
        #expect(account.smtp == AddAccountUseCase.gmailSMTP)
        #expect(account.provider == .gmail)
    }

    @Test(arguments: ["", "has space", "../etc", "-flag", String(repeating: "a", count: 65), "semi;colon"])
    func rejectsBadNames(name: String) async throws {
        let add = AddAccountUseCase(accounts: InMemoryAccounts(), secrets: FixedSecrets())
        await #expect(throws: TernError.self) { try await add(request(name: AccountName(name), imap: endpoint, smtp: endpoint)) }
    }

    @Test(arguments: ["no-at-sign", "@example.org", "me@", "a b@example.org", "<me@example.org>"])
    func rejectsBadAddresses(email: String) async throws {
        let add = AddAccountUseCase(accounts: InMemoryAccounts(), secrets: FixedSecrets())
        await #expect(throws: TernError.self) { try await add(request(email: email, imap: endpoint, smtp: endpoint)) }
    }

    @Test func secretThatCannotBeObtainedAddsNothing() async throws {
        let accounts = InMemoryAccounts()
        let add = AddAccountUseCase(accounts: accounts, secrets: FixedSecrets(fail: true))
        await #expect(throws: TernError.secretUnavailable("no secret")) { try await add(request(imap: endpoint, smtp: endpoint)) }
        #expect(try await accounts.allAccounts().isEmpty)
    }

    @Test func genericAccountNeedsServers() async throws {
        let add = AddAccountUseCase(accounts: InMemoryAccounts(), secrets: FixedSecrets())
        await #expect(throws: TernError.self) { try await add(request(smtp: endpoint)) }
        await #expect(throws: TernError.self) { try await add(request(imap: endpoint)) }
    }

    @Test func duplicateNameIsRefused() async throws {
        let add = AddAccountUseCase(accounts: InMemoryAccounts(), secrets: FixedSecrets())
        _ = try await add(request(imap: endpoint, smtp: endpoint))
        await #expect(throws: TernError.alreadyExists("an account named 'work'")) { try await add(request(imap: endpoint, smtp: endpoint)) }
    }

    @Test func removeDeletesAccountAndItsFiles() async throws {
        let accounts = InMemoryAccounts()
        let files = RecordingFiles()
        let account = try await AddAccountUseCase(accounts: accounts, secrets: FixedSecrets())(request(imap: endpoint, smtp: endpoint))
        try await RemoveAccountUseCase(accounts: accounts, files: files)(name: "work")
        #expect(try await accounts.allAccounts().isEmpty)
        #expect(files.removed == [account.id])
        await #expect(throws: TernError.notFound("no account named 'work'")) {
            try await RemoveAccountUseCase(accounts: accounts, files: files)(name: "work")
        }
    }
}

@Suite struct ServerEndpointTests {
    @Test(arguments: [
        ("imap.example.org:993", "imap.example.org", 993),
        ("127.0.0.1:10993", "127.0.0.1", 10993),
        ("[::1]:143", "::1", 143),
        (" mail.example.org:587 ", "mail.example.org", 587)
    ])
    func parses(text: String, host: String, port: Int) throws {
        let endpoint = try ServerEndpoint.parse(text, security: .startTLS)
        #expect(endpoint.host == host)
        #expect(endpoint.port == port)
    }

    @Test(arguments: ["imap.example.org", ":993", "host:0", "host:70000", "host:abc", "ho st:1", "a/b:1"])
    func rejects(text: String) {
        #expect(throws: TernError.self) { try ServerEndpoint.parse(text, security: .implicitTLS) }
    }
}

@Suite struct TernHomeTests {
    @Test func honoursTernHomeThenXDG() {
        #expect(TernHome.fromEnvironment(["TERN_HOME": "/x/y", "XDG_DATA_HOME": "/d"]).url.path == "/x/y")
        #expect(TernHome.fromEnvironment(["XDG_DATA_HOME": "/d"]).url.path == "/d/tern")
        #expect(TernHome.fromEnvironment(["HOME": "/home/u"]).url.path == "/home/u/.local/share/tern")
        #expect(TernHome.fromEnvironment(["TERN_HOME": "/x"]).databaseURL.path == "/x/tern.sqlite")
    }
}
