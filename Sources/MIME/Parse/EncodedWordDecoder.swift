/// RFC 2047 encoded words (`=?charset?B|Q?text?=`) in unstructured header text and phrases.
///
/// Follows the RFC where real mail does: whitespace between two adjacent encoded words is dropped,
/// and adjacent words in the same charset are joined as bytes before decoding, so a character split
/// across two words survives. Leniencies, each for mail seen in the wild: an encoded word glued to
/// surrounding text, spaces inside Q text, missing base64 padding, an unknown charset (decoded with
/// replacement characters and reported).
public enum EncodedWordDecoder {
    /// Header bytes to text, RFC 2047 words decoded (the IMAP parser's ENVELOPE and BODYSTRUCTURE strings).
    public static func decode(bytes: [UInt8]) -> String {
        var problems: [String] = []
        return decode(bytes[...], problems: &problems)
    }

    public static func decode(bytes: ArraySlice<UInt8>) -> String {
        var problems: [String] = []
        return decode(bytes, problems: &problems)
    }

    public static func decode(_ text: String) -> String {
        var problems: [String] = []
        return decode(Array(text.utf8)[...], problems: &problems)
    }

    static func decode(_ bytes: ArraySlice<UInt8>, problems: inout [String]) -> String {
        // Fast path: nothing that could start an encoded word.
        guard containsEncodedWordStart(bytes) else { return String(headerBytes: bytes) }
        var output = ""
        var pending: [UInt8] = []
        var pendingCharset: String?
        var literalStart = bytes.startIndex
        var index = bytes.startIndex
        var previousWasEncoded = false

        func flushPending() {
            guard let charset = pendingCharset else { return }
            let result = CharsetDecoder.decode(pending, charset: charset)
            if let problem = result.problem { problems.append("encoded word: \(problem)") }
            output += result.text
            pending.removeAll(keepingCapacity: true)
            pendingCharset = nil
        }

        while index < bytes.endIndex {
            if bytes[index] == ASCII.equals, index + 1 < bytes.endIndex, bytes[index + 1] == ASCII.question,
               let word = parseWord(bytes, at: index)
            {
                let literal = bytes[literalStart..<index]
                let literalIsWhitespace = literal.allSatisfy(ASCII.isWhitespace)
                if !(previousWasEncoded && literalIsWhitespace) {
                    flushPending()
                    output += String(headerBytes: literal)
                }
                if pendingCharset != word.charset { flushPending() }
                pendingCharset = word.charset
                pending.append(contentsOf: word.bytes)
                if word.malformed { problems.append("malformed encoded word") }
                index = word.end
                literalStart = index
                previousWasEncoded = true
                continue
            }
            index += 1
        }
        flushPending()
        output += String(headerBytes: bytes[literalStart..<bytes.endIndex])
        return output
    }

    @inline(__always) static func containsEncodedWordStart(_ bytes: ArraySlice<UInt8>) -> Bool {
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            if bytes[index] == ASCII.equals && bytes[index + 1] == ASCII.question { return true }
            index += 1
        }
        return false
    }

    struct Word {
        var charset: String
        var bytes: [UInt8]
        var end: Int
        var malformed: Bool
    }

    /// `=?` charset [`*` language] `?` encoding `?` encoded-text `?=`
    static func parseWord(_ bytes: ArraySlice<UInt8>, at start: Int) -> Word? {
        var index = start + 2
        let charsetStart = index
        while index < bytes.endIndex, bytes[index] != ASCII.question {
            let byte = bytes[index]
            if ASCII.isWhitespace(byte) || index - charsetStart > 40 { return nil }
            index += 1
        }
        guard index + 2 < bytes.endIndex, index > charsetStart, bytes[index + 2] == ASCII.question else { return nil }
        var charsetBytes = bytes[charsetStart..<index]
        if let star = charsetBytes.firstIndex(of: 42) { charsetBytes = charsetBytes[charsetBytes.startIndex..<star] }  // RFC 2231 language
        let encoding = ASCII.lower(bytes[index + 1])
        guard encoding == 98 || encoding == 113 else { return nil }  // b, q
        let textStart = index + 3
        var textEnd = textStart
        var sawSpace = false
        while textEnd + 1 < bytes.endIndex {
            if bytes[textEnd] == ASCII.question && bytes[textEnd + 1] == ASCII.equals { break }
            if ASCII.isWhitespace(bytes[textEnd]) {
                // Spaces inside Q text come from broken encoders; inside B text they end the word.
                if encoding == 98 || textEnd - textStart > 200 { return nil }
                sawSpace = true
            }
            textEnd += 1
        }
        guard textEnd + 1 < bytes.endIndex else { return nil }
        let text = bytes[textStart..<textEnd]
        let decoded: [UInt8]
        var malformed = sawSpace
        if encoding == 98 {
            let result = TransferDecoding.decodeBase64(text)
            decoded = result.bytes
            malformed = malformed || result.hadJunk
        } else {
            decoded = decodeQ(text)
        }
        return Word(charset: String(decoding: charsetBytes, as: UTF8.self), bytes: decoded, end: textEnd + 2, malformed: malformed)
    }

    /// RFC 2047 section 4.2: `_` is a space, `=XX` a byte.
    static func decodeQ(_ text: ArraySlice<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.count)
        var index = text.startIndex
        while index < text.endIndex {
            let byte = text[index]
            if byte == ASCII.underscore {
                output.append(ASCII.space)
            } else if byte == ASCII.equals, index + 2 < text.endIndex,
                      let high = ASCII.hexValue(text[index + 1]), let low = ASCII.hexValue(text[index + 2]) {
                output.append(high << 4 | low)
                index += 2
            } else {
                output.append(byte)
            }
            index += 1
        }
        return output
    }
}
