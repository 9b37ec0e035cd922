import Foundation

public enum MessageBuildError: Error, Equatable, CustomStringConvertible {
    /// A CR, LF or NUL in a field that becomes a header: header injection, refused.
    case lineBreakInField(String)
    case invalidAddress(String)
    /// Message-ID, In-Reply-To or References holding something that is not a msg-id (RFC 5322 section 3.6.4).
    case invalidMessageID(field: String, id: String)
    /// An inline part's Content-ID that is not a msg-id's inside (RFC 2392 `cid:`, RFC 5322 section 3.6.4).
    case invalidContentID(String)
    /// A line over RFC 5322's 998 bytes that cannot be folded: refused rather than sent broken.
    case lineTooLong(start: String, length: Int)
    case noRecipients

    public var description: String {
        switch self {
        case .lineBreakInField(let field): "the \(field) contains a line break or control character"
        case .invalidAddress(let address): "'\(address)' is not a valid email address"
        case .invalidMessageID(let field, let id):
            "the \(field) '\(id.prefix(80))' is not a Message-ID (<left@right>, printable ASCII without spaces, at most \(MessageID.maxBytes) bytes)"
        case .invalidContentID(let id): "the inline image's Content-ID '\(id.prefix(80))' is not left@right in printable ASCII without spaces"
        case .lineTooLong(let start, let length):
            "a line of the message would be \(length) bytes long, over the 998 that mail allows: '\(start)…'"
        case .noRecipients: "the message has no recipients"
        }
    }
}
