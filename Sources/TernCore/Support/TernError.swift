import Foundation

/// Errors a front end shows to a person. Each `message` is one line that says what went wrong
/// and, where it helps, what to do about it.
public enum TernError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The user typed something Tern cannot use.
    case invalidInput(String)
    /// No account, thread, message… with that name or id.
    case notFound(String)
    /// Something with that name exists already.
    case alreadyExists(String)
    /// `TERN_HOME` (or a file in it) cannot be created or written.
    case storageUnavailable(String)
    /// The database is not a Tern database Tern can open (corrupt, or written by a newer Tern).
    case databaseUnusable(String)
    /// A secret could not be obtained from its source.
    case secretUnavailable(String)
    /// A mail server could not be reached, refused TLS, or refused the login.
    case serverFailure(String)
    /// The OAuth refresh token was refused: the user must sign in again (FR-SYNC-04).
    case authenticationExpired(String)
    /// The connection dropped or timed out: worth trying again (FR-SYNC-08's retries, the send queue's).
    case connectionLost(String)

    public var message: String {
        switch self {
        case .invalidInput(let text): "invalid input: \(text)"
        case .notFound(let text): "not found: \(text)"
        case .alreadyExists(let text): "already exists: \(text)"
        case .storageUnavailable(let text): "storage unavailable: \(text)"
        case .databaseUnusable(let text): "database unusable: \(text)"
        case .secretUnavailable(let text): "secret unavailable: \(text)"
        case .serverFailure(let text): "server: \(text)"
        case .authenticationExpired(let text): "sign-in expired: \(text)"
        case .connectionLost(let text): "connection lost: \(text)"
        }
    }

    /// Trying again later may succeed.
    public var isRetryable: Bool {
        if case .connectionLost = self { true } else { false }
    }

    public var description: String { message }
}
