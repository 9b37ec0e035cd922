import Foundation
import Synchronization
import Testing

@testable import TernCore

/// Issue 21: refreshes of one account take turns and read the stored tokens again once it is their
/// turn, so a provider that rotates refresh tokens never sees one used twice (the cross-process run
/// is SystemTests/integration/test_oauth.py).
struct CredentialsTests {
    /// A provider that issues a new refresh token with every refresh and refuses an old one.
    final class RotatingProvider: OAuthAuthorizer {
        let state = Mutex((current: "r0", refreshes: 0))
        var refreshes: Int { state.withLock { $0.refreshes } }

        func authorize(account: Account, clientID: String, announce: @escaping @Sendable (URL) -> Void) async throws -> OAuthTokens {
            throw TernError.invalidInput("not in this test")
        }

        func refresh(_ tokens: OAuthTokens, clientID: String, provider: OAuthProvider) async throws -> OAuthTokens {
            try await Task.sleep(for: .milliseconds(50)) // both refreshers are in flight at once
            return try state.withLock { state in
                guard tokens.refreshToken == state.current else { throw TernError.authenticationExpired("invalid_grant") }
                state.refreshes += 1
                state.current = "r\(state.refreshes)"
                return OAuthTokens(accessToken: "a\(state.refreshes)", refreshToken: state.current, expiresAt: Date().addingTimeInterval(3600))
            }
        }
    }

    actor MemoryTokens: OAuthTokenStore {
        var stored: OAuthTokens? = OAuthTokens(accessToken: "a0", refreshToken: "r0", expiresAt: Date().addingTimeInterval(-10))
        func tokens(for accountID: Account.ID) async throws -> OAuthTokens? { stored }
        func save(_ tokens: OAuthTokens, for accountID: Account.ID) async throws { stored = tokens }
        func delete(for accountID: Account.ID) async throws { stored = nil }
    }

    /// One holder per name at a time, like the runtime's `flock`s.
    final class MemoryLocks: NamedLocks {
        let held = Mutex<Set<String>>([])
        func withLock<Result: Sendable>(_ name: String, _ body: () async throws -> Result) async throws -> Result {
            while !held.withLock({ $0.insert(name).inserted }) { try await Task.sleep(for: .milliseconds(5)) }
            defer { held.withLock { _ = $0.remove(name) } }
            return try await body()
        }
    }

    struct NoSecrets: SecretResolver {
        func secret(for account: Account) async throws -> String { throw TernError.invalidInput("not in this test") }
    }

    @Test func twoRefreshersOfOneAccountBothGetAFreshTokenAndTheAccountStaysActive() async throws {
        let account = Account(
            name: "gm", emailAddress: "me@gmail.com", provider: .gmail, imap: AddAccountUseCase.gmailIMAP,
            smtp: AddAccountUseCase.gmailSMTP, username: "me@gmail.com", credential: .oauth2(clientID: "client"))
        let accounts = InMemoryAccounts()
        try await accounts.insert(account)
        let provider = RotatingProvider()
        let credentials = AccountCredentials(
            secrets: NoSecrets(), tokens: MemoryTokens(), authorizer: provider, accounts: accounts,
            locks: MemoryLocks())
        async let first = credentials.supply(for: account).current()
        async let second = credentials.supply(for: account).current()
        let (one, two) = try await (first, second)
        #expect(one == .accessToken("a1") && two == .accessToken("a1"), "the second took the first one's token")
        #expect(provider.refreshes == 1)
        #expect(try await accounts.account(named: "gm")?.isActive == true)
    }
}
