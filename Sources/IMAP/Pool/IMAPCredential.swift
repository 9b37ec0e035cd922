import MailTransport

/// Where credentials come from: `current` for each new connection; `refresh` after the server
/// rejected them (an expired OAuth token: the sync engine's TokenRefresh state, FR-SYNC-04).
public struct IMAPCredentialSource: Sendable {
    public var current: @Sendable () async throws -> MailCredential
    public var refresh: (@Sendable () async throws -> MailCredential)?

    public init(
        current: @escaping @Sendable () async throws -> MailCredential,
        refresh: (@Sendable () async throws -> MailCredential)? = nil
    ) {
        self.current = current
        self.refresh = refresh
    }

    public static func fixed(_ credential: MailCredential) -> IMAPCredentialSource {
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
    public func authenticate(_ credential: MailCredential) async throws {
        switch credential {
        case .password(let username, let password): try await login(username: username, password: password)
        case .oauth2(let username, let accessToken): try await authenticateXOAUTH2(username: username, accessToken: accessToken)
        }
        try await compress()
    }
}
