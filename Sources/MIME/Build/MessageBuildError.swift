import Foundation

public enum MessageBuildError: Error, Equatable, CustomStringConvertible {
    /// A CR, LF or NUL in a field that becomes a header: header injection, refused.
    case lineBreakInField(String)
    case invalidAddress(String)
    case noRecipients

    public var description: String {
        switch self {
        case .lineBreakInField(let field): "the \(field) contains a line break or control character"
        case .invalidAddress(let address): "'\(address)' is not a valid email address"
        case .noRecipients: "the message has no recipients"
        }
    }
}
