import Foundation

/// What `tern imap-check` reports: the server answered, accepted the login, and has these folders.
public struct IMAPCheckReport: Sendable, Codable, Hashable {
    public struct FolderEntry: Sendable, Codable, Hashable {
        public var path: String
        public var folderType: FolderType
        public var attributes: [String]
        /// FR-SYNC-01 step 1: `\All` and `\Important` are never synced.
        public var synced: Bool

        public init(path: String, folderType: FolderType, attributes: [String]) {
            self.path = path
            self.folderType = folderType
            self.attributes = attributes
            self.synced = folderType.isSyncable
        }
    }

    public var server: String
    public var greeting: String
    public var capabilities: [String]
    public var folders: [FolderEntry]

    public init(server: String, greeting: String, capabilities: [String], folders: [FolderEntry]) {
        self.server = server
        self.greeting = greeting
        self.capabilities = capabilities
        self.folders = folders
    }
}

/// Connects to an account's IMAP server and lists what it offers. Implemented by the runtime on
/// the IMAP client.
public protocol IMAPServerProbe: Sendable {
    func check(account: Account, password: String) async throws -> IMAPCheckReport
}

/// `tern imap-check ACCOUNT`: proves the settings work before any sync, with an error that says
/// what failed (DNS, TLS policy, certificate, login).
public struct CheckIMAPUseCase: Sendable {
    let accounts: any AccountRepository
    let secrets: any SecretResolver
    let probe: any IMAPServerProbe

    public init(accounts: any AccountRepository, secrets: any SecretResolver, probe: any IMAPServerProbe) {
        self.accounts = accounts
        self.secrets = secrets
        self.probe = probe
    }

    public func callAsFunction(accountName: String) async throws -> IMAPCheckReport {
        guard let account = try await accounts.account(named: accountName) else {
            throw TernError.notFound("no account named '\(accountName)'")
        }
        let password = try await secrets.secret(for: account.credential, accountID: account.id)
        return try await probe.check(account: account, password: password)
    }
}
