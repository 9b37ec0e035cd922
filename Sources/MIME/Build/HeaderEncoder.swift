import Foundation

/// Writes header fields that any server and reader accept: RFC 2047 encoded words for non-ASCII
/// text (UTF-8, base64, never splitting a character), quoted strings for display names with
/// specials, and folding so no line exceeds 78 characters where a fold point exists.
enum HeaderEncoder {
    static let maxEncodedWordLength = 75

    /// `Name: value` folded, with CRLF.
    static func field(_ name: String, _ value: String) -> String {
        fold(name + ": " + value) + "\r\n"
    }

    /// Folds at spaces so lines stay under 78 characters where possible (RFC 5322 section 2.2.3).
    static func fold(_ line: String) -> String {
        guard line.utf8.count > 78 else { return line }
        var output = ""
        var current = ""
        for (index, word) in line.split(separator: " ", omittingEmptySubsequences: false).enumerated() {
            if index == 0 {
                current = String(word)
            } else if current.utf8.count + 1 + word.utf8.count > 78 && !current.trimmingCharacters(in: .whitespaces).isEmpty {
                output += current + "\r\n"
                current = " " + word
            } else {
                current += " " + word
            }
        }
        return output + current
    }

    /// Folding breaks lines only between words, so a word must fit on a line of its own within RFC
    /// 5322's 998 bytes, with room for a field name or the quotes of a phrase; longer ones are
    /// written as encoded words, which split anywhere.
    static let maxUnencodedWordBytes = 900

    static func needsEncoding(_ text: String) -> Bool {
        text.utf8.contains { $0 >= 0x80 || $0 < 0x20 } || text.contains("=?")
    }

    static func hasOverlongWord(_ text: String) -> Bool {
        text.utf8.split(separator: ASCII.space).contains { $0.count > maxUnencodedWordBytes }
    }

    /// Unstructured text (Subject): encoded words when needed, else as is.
    static func unstructured(_ text: String) -> String {
        needsEncoding(text) || hasOverlongWord(text) ? encodedWords(text) : text
    }

    /// A display name: an atom-only phrase as is, specials in a quoted string, non-ASCII as encoded words.
    static func phrase(_ text: String) -> String {
        if needsEncoding(text) { return encodedWords(text) }
        let specials = Set("()<>[]:;@\\,.\"")
        var written = text
        if text.contains(where: { specials.contains($0) }) {
            written = "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        return hasOverlongWord(written) ? encodedWords(text) : written
    }

    /// `=?UTF-8?B?…?=` words separated by spaces (which readers drop between encoded words).
    static func encodedWords(_ text: String) -> String {
        let prefix = "=?UTF-8?B?"
        let maxPayloadBytes = (maxEncodedWordLength - prefix.count - 2) / 4 * 3
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > maxPayloadBytes, !chunk.isEmpty {
                words.append(prefix + Data(chunk).base64EncodedString() + "?=")
                chunk.removeAll()
            }
            chunk.append(contentsOf: bytes)
        }
        if !chunk.isEmpty { words.append(prefix + Data(chunk).base64EncodedString() + "?=") }
        return words.joined(separator: " ")
    }

    /// RFC 2231 `name*=UTF-8''…` for a non-ASCII parameter, else a quoted string.
    static func parameter(_ name: String, _ value: String) -> String {
        if value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return "\(name)=\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        var encoded = ""
        for byte in value.utf8 {
            if unreserved.contains(byte) { encoded.append(Character(UnicodeScalar(byte))) } else { encoded += String(format: "%%%02X", byte) }
        }
        return "\(name)*=UTF-8''\(encoded)"
    }
}
