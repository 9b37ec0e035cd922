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

/// What `tern smtp-check` reports: the server answered, upgraded to TLS and accepted the login.
public struct SMTPCheckReport: Sendable, Codable, Hashable {
    public var server: String
    public var greeting: String
    public var extensions: [String]
    public var authentication: String

    public init(server: String, greeting: String, extensions: [String], authentication: String) {
        self.server = server
        self.greeting = greeting
        self.extensions = extensions
        self.authentication = authentication
    }
}

/// Connects to an account's servers and reports what they offer. Implemented by the runtime on
/// the IMAP and SMTP clients.
public protocol ServerProbe: Sendable {
    func checkIMAP(account: Account, credentials: CredentialSupply) async throws -> IMAPCheckReport
    func checkSMTP(account: Account, credentials: CredentialSupply) async throws -> SMTPCheckReport
    /// Issue 35: after `refusal`, the certificate `endpoint` presents, for a person to judge; nil
    /// unless the refusal was of a certificate that does not chain to a trusted root (an expired
    /// one, a host name mismatch or an old TLS version is refused as it is).
    func certificateToJudge(of endpoint: ServerEndpoint, role: ServerRole, caFile: String?, refusal: TernError) async -> ServerCertificate?
    /// The certificate `endpoint` presents, trusted or not; nil when none could be had.
    func presentedCertificate(of endpoint: ServerEndpoint, role: ServerRole, caFile: String?) async -> ServerCertificate?
}

extension ServerProbe {
    public func presentedCertificate(of endpoint: ServerEndpoint, role: ServerRole, caFile: String?) async -> ServerCertificate? {
        nil
    }

    public func certificateToJudge(of endpoint: ServerEndpoint, role: ServerRole, caFile: String?, refusal: TernError) async
        -> ServerCertificate?
    {
        nil
    }
}

/// `tern imap-check ACCOUNT` / `tern smtp-check ACCOUNT`: prove the settings work before any sync,
/// with an error that says what failed (DNS, TLS policy, certificate, login).
public struct CheckServersUseCase: Sendable {
    let accounts: any AccountRepository
    let credentials: AccountCredentials
    let probe: any ServerProbe

    public init(accounts: any AccountRepository, credentials: AccountCredentials, probe: any ServerProbe) {
        self.accounts = accounts
        self.credentials = credentials
        self.probe = probe
    }

    public func imap(accountName: AccountName) async throws -> IMAPCheckReport {
        let account = try await account(named: accountName)
        return try await probe.checkIMAP(account: account, credentials: credentials.supply(for: account))
    }

    public func smtp(accountName: AccountName) async throws -> SMTPCheckReport {
        let account = try await account(named: accountName)
        return try await probe.checkSMTP(account: account, credentials: credentials.supply(for: account))
    }

    private func account(named name: AccountName) async throws -> Account {
        guard let account = try await accounts.account(named: name) else {
            throw TernError.notFound("no account named '\(name)'")
        }
        return account
    }
}
