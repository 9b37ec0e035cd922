import Foundation

/// A `type/subtype; name=value` header (Content-Type, Content-Disposition) with RFC 2231 parameters
/// (continuations `name*0`, `name*1`, charset and language `name*=utf-8'en'%E2%82%AC`).
public struct ParameterizedValue: Sendable, Hashable {
    /// Lowercased: `text/plain`, `attachment`.
    public var value: String
    /// Lowercased names, decoded values.
    public var parameters: [String: String]

    public init(value: String, parameters: [String: String] = [:]) {
        self.value = value
        self.parameters = parameters
    }

    public static func parse(_ raw: ArraySlice<UInt8>, problems: inout [String]) -> ParameterizedValue {
        var scanner = ParameterScanner(bytes: raw)
        let value = scanner.readValue()
        var simple: [String: String] = [:]
        var sections: [String: [(index: Int, encoded: Bool, value: String)]] = [:]
        var starred: [String: String] = [:]
        while let (name, text, quoted) = scanner.readParameter(problems: &problems) {
            if let star = name.firstIndex(of: "*") {
                let base = String(name[..<star])
                let rest = name[name.index(after: star)...]
                if rest.isEmpty {
                    starred[base] = text // name*=charset'lang'value
                } else {
                    let encoded = rest.hasSuffix("*")
                    let number = Int(encoded ? rest.dropLast() : rest) ?? 0
                    sections[base, default: []].append((number, encoded, text))
                }
            } else {
                // RFC 2047 inside a quoted parameter is not allowed, and is what many clients send.
                simple[name] = quoted || text.contains("=?") ? EncodedWordDecoder.decode(text) : text
            }
        }
        var parameters = simple
        for (name, text) in starred {
            parameters[name] = Self.decodeExtended(text, charset: nil, problems: &problems).text
        }
        for (name, parts) in sections {
            let sorted = parts.sorted { $0.index < $1.index }
            var bytes: [UInt8] = []
            var charset: String?
            for (position, part) in sorted.enumerated() {
                if part.encoded {
                    var text = part.value
                    if position == 0 {
                        let pieces = text.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
                        if pieces.count == 3 {
                            charset = String(pieces[0])
                            text = String(pieces[2])
                        }
                    }
                    bytes.append(contentsOf: percentDecode(text))
                } else {
                    bytes.append(contentsOf: Array(part.value.utf8))
                }
            }
            let decoded = CharsetDecoder.decode(bytes, charset: charset?.isEmpty == false ? charset : "utf-8")
            if let problem = decoded.problem { problems.append("parameter \(name): \(problem)") }
            parameters[name] = decoded.text
        }
        return ParameterizedValue(value: value, parameters: parameters)
    }

    static func decodeExtended(_ text: String, charset: String?, problems: inout [String]) -> (text: String, charset: String?) {
        let pieces = text.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard pieces.count == 3 else { return (String(decoding: percentDecode(text), as: UTF8.self), nil) }
        let charset = String(pieces[0])
        let decoded = CharsetDecoder.decode(percentDecode(String(pieces[2])), charset: charset.isEmpty ? "utf-8" : charset)
        if let problem = decoded.problem { problems.append("parameter: \(problem)") }
        return (decoded.text, charset)
    }

    static func percentDecode(_ text: String) -> [UInt8] {
        let utf8 = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            if utf8[index] == 37, index + 2 < utf8.count, let high = ASCII.hexValue(utf8[index + 1]),
                let low = ASCII.hexValue(utf8[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(utf8[index])
                index += 1
            }
        }
        return output
    }
}

/// Reads `value *(";" name "=" (token / quoted-string))`, tolerating missing semicolons,
/// unquoted values with spaces, and stray semicolons.
struct ParameterScanner {
    let bytes: ArraySlice<UInt8>
    var index: Int

    init(bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    mutating func skipWhitespaceAndComments() {
        while index < bytes.endIndex {
            let byte = bytes[index]
            if ASCII.isWhitespace(byte) {
                index += 1
            } else if byte == ASCII.openParen {
                var depth = 0
                while index < bytes.endIndex {
                    if bytes[index] == ASCII.openParen { depth += 1 }
                    if bytes[index] == ASCII.closeParen {
                        depth -= 1
                        if depth == 0 {
                            index += 1
                            break
                        }
                    }
                    if bytes[index] == ASCII.backslash { index += 1 }
                    index += 1
                }
            } else {
                return
            }
        }
    }

    mutating func readValue() -> String {
        skipWhitespaceAndComments()
        let start = index
        while index < bytes.endIndex, bytes[index] != ASCII.semicolon, !ASCII.isWhitespace(bytes[index]), bytes[index] != ASCII.openParen {
            index += 1
        }
        let value = String(headerBytes: bytes[start..<index]).lowercasedASCII
        return value
    }

    mutating func readParameter(problems: inout [String]) -> (String, String, Bool)? {
        while true {
            skipWhitespaceAndComments()
            guard index < bytes.endIndex else { return nil }
            if bytes[index] == ASCII.semicolon {
                index += 1
                continue
            }
            break
        }
        let nameStart = index
        while index < bytes.endIndex, bytes[index] != ASCII.equals, bytes[index] != ASCII.semicolon, !ASCII.isWhitespace(bytes[index]) {
            index += 1
        }
        let name = String(headerBytes: bytes[nameStart..<index]).lowercasedASCII
        skipWhitespaceAndComments()
        guard index < bytes.endIndex, bytes[index] == ASCII.equals else {
            if !name.isEmpty { problems.append("parameter '\(name)' has no value") }
            return name.isEmpty ? nil : (name, "", false)
        }
        index += 1
        skipWhitespaceAndComments()
        guard index < bytes.endIndex else { return (name, "", false) }
        if bytes[index] == ASCII.quote {
            index += 1
            var value: [UInt8] = []
            var closed = false
            while index < bytes.endIndex {
                let byte = bytes[index]
                if byte == ASCII.backslash, index + 1 < bytes.endIndex {
                    // Windows paths in filenames: keep a backslash that escapes nothing special.
                    let next = bytes[index + 1]
                    if next == ASCII.quote || next == ASCII.backslash {
                        value.append(next)
                    } else {
                        value.append(byte)
                        value.append(next)
                    }
                    index += 2
                    continue
                }
                if byte == ASCII.quote {
                    index += 1
                    closed = true
                    break
                }
                value.append(byte)
                index += 1
            }
            if !closed { problems.append("unterminated quoted parameter '\(name)'") }
            return (name, String(headerBytes: value), true)
        }
        let valueStart = index
        while index < bytes.endIndex, bytes[index] != ASCII.semicolon {
            // A missing semicolon: `boundary=abc charset=utf-8` has a second parameter after the space.
            if ASCII.isWhitespace(bytes[index]), startsParameter(at: index) { break }
            index += 1
        }
        var valueEnd = index
        while valueEnd > valueStart, ASCII.isWhitespace(bytes[valueEnd - 1]) { valueEnd -= 1 }
        let value = bytes[valueStart..<valueEnd]
        // A value with spaces was not quoted by its sender: keep all of it, it is usually a filename.
        return (name, String(headerBytes: value), false)
    }

    /// Whitespace, then `token=`: the start of another parameter.
    func startsParameter(at position: Int) -> Bool {
        var cursor = position
        while cursor < bytes.endIndex, ASCII.isWhitespace(bytes[cursor]) { cursor += 1 }
        let tokenStart = cursor
        while cursor < bytes.endIndex {
            let byte = bytes[cursor]
            if byte == ASCII.equals { return cursor > tokenStart }
            let isToken =
                (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
                || byte == ASCII.hyphen || byte == 42 || byte == ASCII.underscore || byte == 46
            if !isToken { return false }
            cursor += 1
        }
        return false
    }
}
