import FileNameSafety
import Foundation
import TernCore

/// Text from mail, servers and files on its way to a terminal (issue 21). A terminal obeys control
/// characters in what it prints: OSC 52 writes the clipboard, OSC 8 makes a link say one thing and
/// open another, clearing the screen lets a subject draw a forged `From:` line, and a right-to-left
/// override (U+202E) makes `invoice<U+202E>fdp.exe` read as `invoiceexe.pdf`. Every text printer of
/// the CLI goes through here: C0 controls, DEL, C1 controls and the bidirectional controls (Unicode
/// UAX #9: embeddings, overrides, isolates and marks) become visible escapes, `\x1b` for those below
/// U+0100 and `\u202e` above, so what was sent stays readable and nothing acts on the terminal.
///
/// JSON output keeps the data: JSONEncoder escapes C0 already, and `json(_:)` writes DEL, C1 and
/// the bidirectional controls as `\u` escapes too (the same string to any JSON parser, inert in a
/// terminal that shows the JSON).
enum TerminalText {
    /// One line of a table or header field: every control escaped, newline and tab included, so a
    /// subject cannot start a row or a header line of its own.
    static func line(_ text: String) -> String { escaped(text, keepingLayout: false) }

    /// Several lines (a body, a report): newline and tab are kept, every other control escaped.
    static func block(_ text: String) -> String { escaped(text, keepingLayout: true) }

    static func escaped(_ text: String, keepingLayout: Bool) -> String {
        replacing(in: text, where: { isControl($0, keepingLayout: keepingLayout) }) { scalar in
            scalar.value < 0x100 ? hex(scalar, prefix: "\\x", digits: 2) : hex(scalar, prefix: "\\u", digits: 4)
        }
    }

    static func isControl(_ scalar: Unicode.Scalar, keepingLayout: Bool) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: !keepingLayout
        case 0x00...0x1F, 0x7F...0x9F: true
        default: scalar.isBidiControl
        }
    }

    /// JSONEncoder's output with DEL, C1 and the bidirectional controls written as `\u007f`,
    /// `\u009b`, `\u202e`. These occur only inside strings (JSON's own syntax is ASCII without DEL),
    /// so each escape stands in a string for the same character.
    static func json(_ data: Data) -> Data {
        let text = String(decoding: data, as: UTF8.self)
        let escaped = replacing(in: text, where: { (0x7F...0x9F).contains($0.value) || $0.isBidiControl }) { scalar in
            hex(scalar, prefix: "\\u", digits: 4)
        }
        return escaped == text ? data : Data(escaped.utf8)
    }

    static func replacing(in text: String, where matches: (Unicode.Scalar) -> Bool, with replacement: (Unicode.Scalar) -> String) -> String {
        guard text.unicodeScalars.contains(where: matches) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if matches(scalar) { result.append(contentsOf: replacement(scalar).unicodeScalars) } else { result.append(scalar) }
        }
        return String(result)
    }

    /// Lowercase hexadecimal, as Python and C write escapes: `\x1b`, `\u202e`.
    static func hex(_ scalar: Unicode.Scalar, prefix: String, digits: Int) -> String {
        let value = String(scalar.value, radix: 16)
        return prefix + String(repeating: "0", count: max(0, digits - value.count)) + value
    }
}

/// Every `print` of a `String` in this module: text for a terminal, through `TerminalText.block`.
/// It shadows the standard library's for `String` arguments, so no printer can forget the escaping;
/// single-line fields are escaped with `TerminalText.line` by the printer before they get here.
func print(_ text: String) {
    Swift.print(TerminalText.block(text))
}

/// A line on standard error, escaped as `print` escapes.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((TerminalText.block(text) + "\n").utf8))
}
