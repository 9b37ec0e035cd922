import Foundation

/// The store of accounts. Implemented by `MailStore`; use cases depend on this protocol only.
public protocol AccountRepository: Sendable {
    func allAccounts() async throws -> [Account]
    func account(named name: AccountName) async throws -> Account?
    /// Throws `TernError.alreadyExists` when an account with that name exists.
    func insert(_ account: Account) async throws
    /// Replaces the stored account with the same id (activation state, sync window…).
    func update(_ account: Account) async throws
    /// Removes the account and, by cascade, everything synced for it. Returns false when there was none.
    @discardableResult
    func delete(id: Account.ID) async throws -> Bool
}

extension AccountRepository {
    public func account(id: Account.ID) async throws -> Account? {
        try await allAccounts().first { $0.id == id }
    }

    /// The account named, or the only one (with several, a name is needed).
    public func namedOrOnly(_ name: AccountName?) async throws -> Account {
        if let name {
            guard let account = try await account(named: name) else { throw TernError.notFound("account '\(name)'") }
            return account
        }
        let all = try await allAccounts()
        guard all.count == 1, let only = all.first else { throw TernError.accountNeeded(available: all.map(\.name).sorted()) }
        return only
    }
}

/// Obtains an account's secret (from its `credential`) at the moment a connection needs it. Never
/// persists it; errors name the account, never the secret's source text.
public protocol SecretResolver: Sendable {
    func secret(for account: Account) async throws -> String
}

/// The files an account owns outside the database: attachment cache, OAuth token file.
public protocol AccountFileStore: Sendable {
    func removeFiles(of accountID: Account.ID) throws
}
