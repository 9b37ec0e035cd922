/// How a pooled connection logs in.
public enum IMAPCredential: Sendable, Hashable {
    case password(username: String, password: String)
    /// XOAUTH2 with an OAuth 2.0 access token (the Gmail preset).
    case oauth2(username: String, accessToken: String)
}

/// Where credentials come from: `current` for each new connection; `refresh` after the server
/// rejected them (an expired OAuth token: the sync engine's TokenRefresh state, FR-SYNC-04).
public struct IMAPCredentialSource: Sendable {
    public var current: @Sendable () async throws -> IMAPCredential
    public var refresh: (@Sendable () async throws -> IMAPCredential)?

    public init(current: @escaping @Sendable () async throws -> IMAPCredential,
                refresh: (@Sendable () async throws -> IMAPCredential)? = nil) {
        self.current = current
        self.refresh = refresh
    }

    public static func fixed(_ credential: IMAPCredential) -> IMAPCredentialSource {
        IMAPCredentialSource(current: { credential })
    }
}

/// FR-SYNC-09: waits between connection attempts after a failure: 5, 15, 45 s, then give up.
public struct BackoffSchedule: Sendable, Hashable {
    public var delays: [Duration]

    public init(_ delays: [Duration]) { self.delays = delays }

    public static let standard = BackoffSchedule([.seconds(5), .seconds(15), .seconds(45)])
}

extension IMAPSession {
    /// Logs in with `credential`; on rejection asks `source.refresh` once for a fresh credential.
    public func authenticate(with source: IMAPCredentialSource) async throws {
        do {
            try await authenticate(try await source.current())
        } catch IMAPError.authenticationFailed(let text) {
            guard let refresh = source.refresh else { throw IMAPError.authenticationFailed(text) }
            try await authenticate(try await refresh())
        }
    }

    /// Logs in, then turns compression on where the server offers it (RFC 4978: a fifth of the bytes
    /// of a full sync, at no cost in time even on loopback; BENCHMARKS.md).
    public func authenticate(_ credential: IMAPCredential) async throws {
        switch credential {
        case .password(let username, let password): try await login(username: username, password: password)
        case .oauth2(let username, let accessToken): try await authenticateXOAUTH2(username: username, accessToken: accessToken)
        }
        try await compress()
    }
}
