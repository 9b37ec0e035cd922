import Foundation

/// A `mailto:` link (RFC 6068) read for the composer (issue 36): the recipients, subject and body it
/// prefills, never sent without the person pressing Send.
///
/// A link is a stranger's text, so it is read strictly (RFC 6068 §7, "Security Considerations"):
/// only `to`, `cc`, `bcc`, `subject` and `body` are taken; every other field (`from`, `reply-to`,
/// `sender`, any header a link could use to speak for the person or to copy mail elsewhere) is
/// ignored and listed in `ignoredFields`, so a front end can say so. A line break or another control
/// character in a header field (an encoded `%0D%0A` smuggling a second header) refuses the link; the
/// body keeps its line breaks (as `\n`) and loses other controls. Links longer than `maximumLength`
/// and lists of more than `maximumRecipients` are refused, so a hostile page cannot fill the composer
/// with megabytes or thousands of addresses.
public struct MailtoURI: Sendable, Hashable {
    public var to: [String] = []
    public var cc: [String] = []
    public var bcc: [String] = []
    public var subject: String?
    public var body: String?
    /// Fields the link carried that Tern does not take (lowercased, each once).
    public var ignoredFields: [String] = []

    /// Browsers pass links of up to about 2 MB; a message a link writes for the person is short.
    public static let maximumLength = 64 * 1024
    public static let maximumRecipients = 100
    static let takenFields: Set<String> = ["to", "cc", "bcc", "subject", "body"]

    public init(to: [String] = [], cc: [String] = [], bcc: [String] = [], subject: String? = nil, body: String? = nil) {
        self.to = to
        self.cc = cc
        self.bcc = bcc
        self.subject = subject
        self.body = body
    }

    /// Reads `text`, which starts with `mailto:` (any case).
    public init(_ text: String) throws(MailtoURIError) {
        guard text.utf8.count <= Self.maximumLength else { throw .tooLong }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("mailto:") else { throw .notMailto }
        let rest = trimmed.dropFirst("mailto:".count)
        let question = rest.firstIndex(of: "?")
        let path = question.map { rest[..<$0] } ?? rest
        let query = question.map { rest[rest.index(after: $0)...] } ?? ""
        to = try Self.addresses(Self.decoded(path, field: "to"), field: "to")
        var seen = Set<String>()
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try Self.decoded(parts[0], field: "a field name").lowercased()
            let value = parts.count > 1 ? parts[1] : ""
            guard Self.takenFields.contains(name) else {
                let shown = String(name.unicodeScalars.filter { !$0.properties.isDefaultIgnorableCodePoint && $0.value >= 0x20 }.prefix(40))
                if !ignoredFields.contains(shown) { ignoredFields.append(shown) }
                continue
            }
            switch name {
            case "to": to += try Self.addresses(Self.decoded(value, field: name), field: name)
            case "cc": cc += try Self.addresses(Self.decoded(value, field: name), field: name)
            case "bcc": bcc += try Self.addresses(Self.decoded(value, field: name), field: name)
            case "subject":
                // The first one counts (RFC 6068 leaves repeats undefined); a second is not appended to it.
                let decoded = try Self.decoded(value, field: name)
                try Self.checkHeaderText(decoded, field: name)
                if !seen.contains(name) { subject = decoded }
            default:
                if !seen.contains(name) { body = Self.bodyText(try Self.decoded(value, field: name)) }
            }
            seen.insert(name)
        }
        guard to.count + cc.count + bcc.count <= Self.maximumRecipients else { throw .tooManyRecipients }
    }

    /// The link as an edit of a new message: its fields replace the empty ones, its body goes above the signature.
    public var edit: ComposeEdit {
        func list(_ values: [String]) -> String? { values.isEmpty ? nil : values.joined(separator: ", ") }
        var edit = ComposeEdit(to: list(to), cc: list(cc), bcc: list(bcc), subject: subject, body: body)
        edit.bodyAboveQuote = true
        return edit
    }

    /// Percent-decoding as UTF-8 (RFC 6068 §2); `+` is a plus sign here, not a space.
    static func decoded(_ text: Substring, field: String) throws(MailtoURIError) -> String {
        guard let decoded = String(text).removingPercentEncoding else { throw .badEncoding(field: field) }
        return decoded
    }

    /// `a@example.com,b@example.com`: commas outside quotes and angle brackets separate addresses.
    static func addresses(_ text: String, field: String) throws(MailtoURIError) -> [String] {
        try checkHeaderText(text, field: field)
        var result: [String] = []
        var current = ""
        var quoted = false
        var angle = 0
        var escaped = false
        for character in text {
            if escaped {
                escaped = false
            } else if character == "\\" && quoted {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if !quoted && character == "<" {
                angle += 1
            } else if !quoted && character == ">" {
                angle = max(0, angle - 1)
            } else if !quoted && angle == 0 && character == "," {
                result.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        result.append(current)
        return result.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// A header field's text holds no line break (RFC 6068 §7: no header injection) nor another
    /// control character, nor the invisible characters that could disguise an address.
    static func checkHeaderText(_ text: String, field: String) throws(MailtoURIError) {
        for scalar in text.unicodeScalars {
            if scalar == "\r" || scalar == "\n" || scalar == "\u{85}" || scalar == "\u{2028}" || scalar == "\u{2029}" {
                throw .lineBreak(field: field)
            }
            if scalar.properties.generalCategory == .control || scalar.properties.isBidiControl {
                throw .controlCharacter(field: field)
            }
        }
    }

    /// The body's line breaks (RFC 6068: `%0D%0A`, or either alone) as `\n`; other controls but the tab dropped.
    static func bodyText(_ text: String) -> String {
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        return String(
            String.UnicodeScalarView(
                lines.unicodeScalars.filter { $0 == "\n" || $0 == "\t" || $0.properties.generalCategory != .control }))
    }
}

/// Why a `mailto:` link was refused, worded for the person who followed it.
public enum MailtoURIError: Error, Sendable, Hashable, CustomStringConvertible {
    case notMailto
    case tooLong
    case tooManyRecipients
    case badEncoding(field: String)
    /// A line break in a header field: a link trying to add headers of its own.
    case lineBreak(field: String)
    case controlCharacter(field: String)

    public var description: String {
        switch self {
        case .notMailto: "not a mailto: link"
        case .tooLong: "the mailto: link is longer than \(MailtoURI.maximumLength / 1024) KB: refused"
        case .tooManyRecipients: "the mailto: link names more than \(MailtoURI.maximumRecipients) recipients: refused"
        case .badEncoding(let field): "the mailto: link's \(field) is not valid percent-encoded UTF-8"
        case .lineBreak(let field): "the mailto: link's \(field) contains a line break (an attempt to add headers): refused"
        case .controlCharacter(let field): "the mailto: link's \(field) contains control characters: refused"
        }
    }
}
