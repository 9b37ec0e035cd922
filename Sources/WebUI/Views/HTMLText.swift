import Foundation
import TernCore

/// Markup written by the server. Every string that did not come from this module's own literals
/// goes through `escape` (text) or `attribute` (attribute values): mail, names and subjects are a
/// stranger's words. Message bodies never appear here; they are separate documents (`BodyDocument`).
struct HTMLText: Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    private(set) var markup: String

    init(stringLiteral value: String) { markup = value }
    init(trusted markup: String) { self.markup = markup }
    init() { markup = "" }

    var description: String { markup }

    static func += (lhs: inout HTMLText, rhs: HTMLText) { lhs.markup += rhs.markup }

    /// Text content: `&`, `<`, `>` and both quotes escaped, so the same helper is safe in either place.
    static func escape(_ text: some StringProtocol) -> HTMLText {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\u{0}": out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return HTMLText(trusted: out)
    }
}

extension String.StringInterpolation {
    /// `"\(html: fragment)"` inside another fragment's literal.
    mutating func appendInterpolation(html: HTMLText) { appendLiteral(html.markup) }
}

/// Interpolation that escapes by default: `"<p>\(name)</p>" as HTMLText` escapes `name`, and
/// `\(html: other)` inserts markup already built.
extension HTMLText: ExpressibleByStringInterpolation {
    struct StringInterpolation: StringInterpolationProtocol {
        var markup = ""
        init(literalCapacity: Int, interpolationCount: Int) { markup.reserveCapacity(literalCapacity + interpolationCount * 16) }
        mutating func appendLiteral(_ literal: String) { markup += literal }
        mutating func appendInterpolation(_ text: some StringProtocol) { markup += HTMLText.escape(text).markup }
        mutating func appendInterpolation(_ number: some BinaryInteger) { markup += String(number) }
        /// A record id is its plain number, as the routes read it (issue 33).
        mutating func appendInterpolation(_ id: some RecordID) { markup += String(id.rawValue) }
        mutating func appendInterpolation(_ name: AccountName) { appendInterpolation(name.rawValue) }
        mutating func appendInterpolation(html: HTMLText) { markup += html.markup }
        mutating func appendInterpolation(html: [HTMLText]) { for part in html { markup += part.markup } }
    }

    init(stringInterpolation: StringInterpolation) { markup = stringInterpolation.markup }
}

extension AccountName {
    /// A form or query field that picks an account: empty means none was picked.
    init?(field: String?) {
        guard let field, !field.isEmpty else { return nil }
        self.init(field)
    }
}
