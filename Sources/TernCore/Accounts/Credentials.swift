import Foundation

/// What a protocol client logs in with, fetched at the moment it is needed and never stored in
/// the account (PLATFORM.md).
public enum MailCredential: Sendable, Hashable {
    case password(String)
    /// An OAuth 2.0 access token, sent with XOAUTH2.
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
    func refresh(_ tokens: OAuthTokens, clientID: String) async throws -> OAuthTokens
}

/// The current credential, and a fresh one after the server rejected it (an expired token: the
/// sync engine's TokenRefresh, FR-SYNC-04).
public struct CredentialSupply: Sendable {
    public let username: String
    public let current: @Sendable () async throws -> MailCredential
    public let refreshed: @Sendable () async throws -> MailCredential

    public init(username: String, current: @escaping @Sendable () async throws -> MailCredential,
                refreshed: @escaping @Sendable () async throws -> MailCredential) {
        self.username = username
        self.current = current
        self.refreshed = refreshed
    }
}

/// Resolves an account's credential: a password from its command or variable, or an OAuth access
/// token, refreshed when it expires or when a server rejects it. A refresh that fails for good
/// deactivates the account (FR-SYNC-04) and says how to sign in again.
public struct AccountCredentials: Sendable {
    let secrets: any SecretResolver
    let tokens: any OAuthTokenStore
    let authorizer: any OAuthAuthorizer
    let accounts: any AccountRepository
    let now: @Sendable () -> Date

    public init(secrets: any SecretResolver, tokens: any OAuthTokenStore, authorizer: any OAuthAuthorizer,
                accounts: any AccountRepository, now: @escaping @Sendable () -> Date = { Date() }) {
        self.secrets = secrets
        self.tokens = tokens
        self.authorizer = authorizer
        self.accounts = accounts
        self.now = now
    }

    public func supply(for account: Account) -> CredentialSupply {
        CredentialSupply(username: account.username,
                         current: { try await credential(for: account, forceRefresh: false) },
                         refreshed: { try await credential(for: account, forceRefresh: true) })
    }

    func credential(for account: Account, forceRefresh: Bool) async throws -> MailCredential {
        guard case .oauth2(let clientID) = account.credential else {
            return .password(try await secrets.secret(for: account.credential, accountID: account.id))
        }
        guard let stored = try await tokens.tokens(for: account.id) else {
            throw TernError.signInRequired(account: account.name)
        }
        guard forceRefresh || stored.isExpired(at: now()) else { return .accessToken(stored.accessToken) }
        do {
            let fresh = try await authorizer.refresh(stored, clientID: clientID)
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
