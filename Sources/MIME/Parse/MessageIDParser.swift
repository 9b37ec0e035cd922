import Foundation

/// Message-ID, In-Reply-To and References (RFC 5322 section 3.6.4), read tolerantly: ids without
/// angle brackets, separated by commas, broken across lines, or surrounded by comments and phrases
/// (`In-Reply-To: Your message of … <id@host>`).
public enum MessageIDParser {
    public static func parseList(_ text: String) -> [String] {
        var ids: [String] = []
        var seen = Set<String>()
        let utf8 = Array(text.utf8)
        var index = 0
        var sawBracket = false
        while index < utf8.count {
            if utf8[index] == ASCII.lessThan {
                sawBracket = true
                let start = index + 1
                var end = start
                while end < utf8.count, utf8[end] != ASCII.greaterThan, utf8[end] != ASCII.lessThan { end += 1 }
                let inner = utf8[start..<end].filter { !ASCII.isWhitespace($0) }
                if !inner.isEmpty {
                    let id = "<" + String(headerBytes: inner) + ">"
                    if seen.insert(id).inserted { ids.append(id) }
                }
                index = end < utf8.count && utf8[end] == ASCII.greaterThan ? end + 1 : end
                continue
            }
            index += 1
        }
        if sawBracket { return ids }
        // No brackets at all: words that look like ids.
        for word in text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" || $0 == "\r" || $0 == "\n" })
        where word.contains("@") && !word.hasPrefix("(") {
            let id = "<" + word.trimmingCharacters(in: CharacterSetShim.quotes) + ">"
            if seen.insert(id).inserted { ids.append(id) }
        }
        return ids
    }

    public static func parseSingle(_ text: String) -> String? { parseList(text).first }
}

enum CharacterSetShim {
    static let quotes = CharacterSet(charactersIn: "\"'")
}
