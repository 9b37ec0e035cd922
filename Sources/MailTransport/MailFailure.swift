/// What went wrong with a mail server, in the few kinds a caller reacts to differently, the same
/// for IMAP and SMTP (issue 33). The application turns a kind into its own error in exactly one
/// place (TernRuntime's `TernError(mailFailure:)`), so a revoked sign-in is never retried as a
/// dropped connection, and a certificate Tern refuses is never shown as the server's refusal.
public struct MailFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The server refused the login (a wrong password, a revoked or expired token): only the
        /// person can change that, so it is never retried on a connection's schedule.
        case authenticationRefused
        /// NFR-SYNC-05: TLS below 1.2, an untrusted certificate, a host name mismatch, plaintext
        /// injected after STARTTLS.
        case tlsRefused
        /// The server answered and said no (IMAP `NO`/`BAD`, an SMTP 4xx/5xx), lacks what Tern
        /// needs, or broke the protocol; or Tern refused to send an argument.
        case refused
        /// The server could not be reached, the connection dropped or timed out, or a credential
        /// could not be had for now: trying again later may succeed (FR-SYNC-09).
        case connectionLost
    }

    public var kind: Kind
    /// The protocol error's own words (a server's text, a TLS diagnosis), without a prefix for the kind.
    public var detail: String

    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var isRetryable: Bool { kind == .connectionLost }

    public var description: String { detail }
}

/// A protocol's error that says which kind of failure it is (`IMAPError`, `SMTPError`).
public protocol MailFailureClassifying: Error, Sendable, CustomStringConvertible {
    var mailFailure: MailFailure { get }
}

extension TransportFailure {
    public var mailFailure: MailFailure {
        switch self {
        case .tlsRefused(let text): MailFailure(.tlsRefused, text)
        case .timeout, .network, .closed: MailFailure(.connectionLost, description)
        }
    }
}
