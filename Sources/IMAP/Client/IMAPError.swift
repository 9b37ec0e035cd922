import MailTransport

/// Why an IMAP operation failed, typed so callers react right: the sync engine refreshes a token on
/// `.authenticationFailed`, retries `.network` and `.timeout` with backoff, shows `.server` text, and
/// never retries `.tlsRefused`.
public enum IMAPError: MailFailureClassifying, Equatable {
    case network(String)
    case timeout(String)
    /// NFR-SYNC-05: TLS below 1.2, an untrusted or self-signed certificate, a host name mismatch.
    case tlsRefused(String)
    case authenticationFailed(String)
    /// A `NO` or `BAD` with the server's text.
    case server(status: ResponseState.Status, text: String)
    case protocolViolation(IMAPProtocolError)
    case connectionClosed
    /// The server lacks an extension the operation needs (MOVE, UIDPLUS, IDLE).
    case unsupported(String)
    /// An argument Tern refuses to send (a control character in a mailbox name).
    case invalidArgument(String)
    /// The credential to log in with could not be had for now (a password command that failed,
    /// a token endpoint out of reach): retried like a dropped connection, worded as itself.
    case credentialUnavailable(CredentialUnavailable)

    public var description: String {
        switch self {
        case .network(let text): "network error: \(text)"
        case .timeout(let text): "timed out: \(text)"
        case .tlsRefused(let text): "TLS refused: \(text)"
        case .authenticationFailed(let text): "authentication failed: \(text)"
        case .server(let status, let text): "server said \(status.rawValue): \(text)"
        case .protocolViolation(let error): "protocol violation: \(error)"
        case .connectionClosed: "the server closed the connection"
        case .unsupported(let name): "the server does not support \(name)"
        case .invalidArgument(let text): "invalid argument: \(text)"
        case .credentialUnavailable(let failure): failure.description
        }
    }

    init(_ failure: TransportFailure) {
        switch failure {
        case .tlsRefused(let text): self = .tlsRefused(text)
        case .timeout(let text): self = .timeout(text)
        case .network(let text): self = .network(text)
        case .closed: self = .connectionClosed
        }
    }

    /// Worth trying again later (FR-SYNC-09 backoff), as opposed to a refusal that will not change.
    public var isRetryable: Bool { mailFailure.isRetryable }

    /// A `BYE` is the server going away, not a refusal of the command.
    public var mailFailure: MailFailure {
        switch self {
        case .network, .timeout, .connectionClosed, .credentialUnavailable: MailFailure(.connectionLost, description)
        case .server(.bye, _): MailFailure(.connectionLost, description)
        case .tlsRefused(let text): MailFailure(.tlsRefused, text)
        case .authenticationFailed(let text): MailFailure(.authenticationRefused, text)
        case .server, .protocolViolation, .unsupported, .invalidArgument: MailFailure(.refused, description)
        }
    }
}

/// Why the credential source could not give a credential: the application's own error, carried
/// through the connection so the application gets it back as it was (`cause`).
public struct CredentialUnavailable: Error, Sendable, Equatable, CustomStringConvertible {
    public let cause: any Error & Sendable

    public init(_ cause: any Error & Sendable) { self.cause = cause }

    public var description: String { String(describing: cause) }

    public static func == (lhs: CredentialUnavailable, rhs: CredentialUnavailable) -> Bool { lhs.description == rhs.description }
}
