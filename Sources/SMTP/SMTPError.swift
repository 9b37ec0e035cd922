import MailTransport

/// Why a submission failed, classified for the send queue (FR-SYNC-07): `.permanent` is never
/// retried and keeps the server's text; `.transient` (4xx, network, timeout) is retried later.
public indirect enum SMTPError: MailFailureClassifying, Hashable {
    /// 5xx: the server refused for good.
    case permanent(SMTPReply)
    /// 4xx: try again later.
    case transient(SMTPReply)
    /// Every recipient was refused; each with its reply.
    case recipientsRefused([RecipientRefusal])
    case authenticationFailed(SMTPReply)
    /// The server lacks what Tern requires (STARTTLS, an AUTH mechanism).
    case unsupported(String)
    case tlsRefused(String)
    case network(String)
    case timeout(String)
    case connectionClosed
    /// No mail server was reached: the connection, the wait for its greeting or the TLS handshake
    /// failed (DNS, refused, unreachable, a timeout, a captive portal). The send queue counts no
    /// attempt for it (issue 34); worded as the failure it wraps.
    case unreachable(SMTPError)
    /// The content went out and the connection failed (timeout, drop, garbage) before the server's
    /// reply: it may have accepted the message. Never retried blindly (a duplicate delivery).
    case deliveryUncertain(String)
    case protocolViolation(String)
    /// A header or address Tern refuses to send (a line break in an address: command injection).
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .permanent(let reply): "the server refused the message: \(reply)"
        case .transient(let reply): "the server deferred the message: \(reply)"
        case .recipientsRefused(let refusals): "every recipient was refused: " + refusals.map(\.description).joined(separator: "; ")
        case .authenticationFailed(let reply): "authentication failed: \(reply)"
        case .unsupported(let text): "the server does not support \(text)"
        case .tlsRefused(let text): "TLS refused: \(text)"
        case .network(let text): "network error: \(text)"
        case .timeout(let text): "timed out: \(text)"
        case .connectionClosed: "the server closed the connection"
        case .unreachable(let failure): failure.description
        case .deliveryUncertain(let text):
            "the connection failed after the message's content was sent, before the server answered (\(text)); it may have been delivered"
        case .protocolViolation(let text): "protocol violation: \(text)"
        case .invalidArgument(let text): "invalid argument: \(text)"
        }
    }

    /// FR-SYNC-07: retried by the queue (30 s, 2 min, 8 min) versus failed at once.
    public var isTransient: Bool {
        switch self {
        case .transient, .network, .timeout, .connectionClosed, .unreachable: true
        case .recipientsRefused(let refusals): refusals.allSatisfy { $0.reply.isTransientFailure }
        default: false
        }
    }

    /// What the application makes of it outside the send queue (`tern smtp-check`); the queue sorts
    /// by `isTransient` and `unreachable` instead (FR-SYNC-07). A deferral (4xx) is still the
    /// server's answer, so a refusal; content that went out without an answer is a lost connection.
    public var mailFailure: MailFailure {
        switch self {
        case .authenticationFailed(let reply): MailFailure(.authenticationRefused, reply.description)
        case .tlsRefused(let text): MailFailure(.tlsRefused, text)
        case .network, .timeout, .connectionClosed, .deliveryUncertain: MailFailure(.connectionLost, description)
        case .unreachable(let failure):
            failure.mailFailure.kind == .tlsRefused ? failure.mailFailure : MailFailure(.connectionLost, description)
        case .permanent, .transient, .recipientsRefused, .unsupported, .protocolViolation, .invalidArgument: MailFailure(.refused, description)
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
}

public struct RecipientRefusal: Sendable, Hashable, CustomStringConvertible {
    public var recipient: String
    public var reply: SMTPReply

    public var description: String { "<\(recipient)>: \(reply)" }
}
