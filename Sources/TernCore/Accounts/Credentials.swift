import Foundation

/// The secret an account logs in with, fetched at the moment it is needed and never stored in the
/// account (PLATFORM.md). The runtime pairs it with the user name into the transport's
/// `MailCredential` (issue 33).
public enum AccountSecret: Sendable, Hashable {
    case password(String)
    /// An OAuth 2.0 access token, sent with XOAUTH2 or OAUTHBEARER.
    case accessToken(String)
}

/// OAuth 2.0 tokens of one account (RFC 6749 section 5.1).
public struct OAuthTokens: Sendable, Hashable, Codable {
    public var accessToken: String
    public var refreshToken: String?
    public var expiresAt: Date?

    public init(accessToken: String, refreshToken: String?, expiresAt: Date?) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
    }

    /// Refreshed a minute early, so a token does not expire between check and use.
    public func isExpired(at now: Date) -> Bool {
        expiresAt.map { $0.timeIntervalSince(now) < 60 } ?? false
    }
}

/// Where OAuth tokens live (PLATFORM.md: the Secret Service when present, else a 0600 file).
public protocol OAuthTokenStore: Sendable {
    func tokens(for accountID: Account.ID) async throws -> OAuthTokens?
    func save(_ tokens: OAuthTokens, for accountID: Account.ID) async throws
    func delete(for accountID: Account.ID) async throws
}

/// The OAuth 2.0 installed-app flow (RFC 8252 loopback redirect, RFC 7636 PKCE) and refresh.
public protocol OAuthAuthorizer: Sendable {
    /// Runs the user's consent in a browser; `announce` receives the URL to open.
    func authorize(account: Account, clientID: String, announce: @escaping @Sendable (URL) -> Void) async throws -> OAuthTokens
    /// `provider`: whose token endpoint (issue 35: Google's or Microsoft's).
    func refresh(_ tokens: OAuthTokens, clientID: String, provider: OAuthProvider) async throws -> OAuthTokens
}

/// The current credential, and a fresh one after the server rejected it (an expired token: the
/// sync engine's TokenRefresh, FR-SYNC-04).
public struct CredentialSupply: Sendable {
    public let username: String
    public let current: @Sendable () async throws -> AccountSecret
    public let refreshed: @Sendable () async throws -> AccountSecret

    public init(
        username: String, current: @escaping @Sendable () async throws -> AccountSecret,
        refreshed: @escaping @Sendable () async throws -> AccountSecret
    ) {
        self.username = username
        self.current = current
        self.refreshed = refreshed
    }
}

/// Resolves an account's credential: a password from its command or variable, or an OAuth access
/// token, refreshed when it expires or when a server rejects it. A refresh that fails for good
/// deactivates the account (FR-SYNC-04) and says how to sign in again.
///
/// Refreshes of one account take turns across processes (`token-<account>` in `locks`): a provider
/// that rotates refresh tokens may revoke the old one as it issues the new (RFC 6749 section 6) and
/// answer `invalid_grant` to its second use, so two processes refreshing with the same stored token
/// would deactivate the account. Under the lock the stored tokens are read again: another process
/// may have just refreshed.
public struct AccountCredentials: Sendable {
    let secrets: any SecretResolver
    let tokens: any OAuthTokenStore
    let authorizer: any OAuthAuthorizer
    let accounts: any AccountRepository
    let locks: any NamedLocks
    let now: @Sendable () -> Date

    public init(
        secrets: any SecretResolver, tokens: any OAuthTokenStore, authorizer: any OAuthAuthorizer,
        accounts: any AccountRepository, locks: any NamedLocks = NoLocks(), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.secrets = secrets
        self.tokens = tokens
        self.authorizer = authorizer
        self.accounts = accounts
        self.locks = locks
        self.now = now
    }

    public func supply(for account: Account) -> CredentialSupply {
        CredentialSupply(
            username: account.username,
            current: { try await credential(for: account, forceRefresh: false) },
            refreshed: { try await credential(for: account, forceRefresh: true) })
    }

    func credential(for account: Account, forceRefresh: Bool) async throws -> AccountSecret {
        guard case .oauth2(let clientID) = account.credential else {
            return .password(try await secrets.secret(for: account))
        }
        let stored = try await storedTokens(of: account)
        guard forceRefresh || stored.isExpired(at: now()) else { return .accessToken(stored.accessToken) }
        return try await locks.withLock("token-\(account.id)") {
            let latest = try await storedTokens(of: account)
            if latest.accessToken != stored.accessToken, !latest.isExpired(at: now()) {
                // Refreshed by another process while this one waited for the lock.
                return .accessToken(latest.accessToken)
            }
            return try await refresh(latest, of: account, clientID: clientID)
        }
    }

    func storedTokens(of account: Account) async throws -> OAuthTokens {
        guard let stored = try await tokens.tokens(for: account.id) else {
            throw TernError.signInRequired(account: account.name)
        }
        return stored
    }

    func refresh(_ stored: OAuthTokens, of account: Account, clientID: String) async throws -> AccountSecret {
        do {
            let fresh = try await authorizer.refresh(stored, clientID: clientID, provider: OAuthProvider(signingInTo: account.provider))
            try await tokens.save(fresh, for: account.id)
            return .accessToken(fresh.accessToken)
        } catch let error as TernError {
            if case .authenticationExpired = error {
                var inactive = account
                inactive.isActive = false
                try? await accounts.update(inactive)
            }
            throw error
        }
    }
}
