#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// RFC 2047 encoded words (`=?charset?B|Q?text?=`) in unstructured header text and phrases.
///
/// Follows the RFC where real mail does: whitespace between two adjacent encoded words is dropped,
/// and adjacent words in the same charset are joined as bytes before decoding, so a character split
/// across two words survives. Leniencies, each for mail seen in the wild: an encoded word glued to
/// surrounding text, spaces inside Q text, missing base64 padding, words longer than the RFC's 75
/// bytes, an unknown charset (decoded with replacement characters and reported).
///
/// Linear in the length of the header (issue 21: a 70 KB subject of unterminated words took 10 s,
/// partly on the network event loop, where the IMAP parser decodes ENVELOPE strings): the ends of
/// words are found by `WordEndSearch`, which never scans the same bytes twice for the same thing.
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
        var scannedBytes = 0
        return bytes.withUnsafeBufferPointer { decode($0, problems: &problems, scannedBytes: &scannedBytes) }
    }

    /// `scannedBytes`: how many bytes the searches for word ends went over (tests hold it linear).
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, problems: inout [String], scannedBytes: inout Int) -> String {
        // Fast path: nothing that could start an encoded word.
        guard var start = nextWordStart(bytes, from: 0) else { return String(headerBuffer: bytes) }
        var search = WordEndSearch(bytes: bytes)
        defer { scannedBytes = search.scannedBytes }
        var output = ""
        var pending: [UInt8] = []
        var pendingCharset: String?
        var literalStart = 0
        var previousWasEncoded = false

        func flushPending() {
            guard let charset = pendingCharset else { return }
            let result = CharsetDecoder.decode(pending, charset: charset)
            if let problem = result.problem { problems.append("encoded word: \(problem)") }
            output += result.text
            pending.removeAll(keepingCapacity: true)
            pendingCharset = nil
        }

        while true {
            var resume = start + 1
            if let word = parseWord(bytes, at: start, search: &search) {
                let literal = UnsafeBufferPointer(rebasing: bytes[literalStart..<start])
                if !(previousWasEncoded && literal.allSatisfy(ASCII.isWhitespace)) {
                    flushPending()
                    output += String(headerBuffer: literal)
                }
                if pendingCharset != word.charset { flushPending() }
                pendingCharset = word.charset
                pending.append(contentsOf: word.bytes)
                if word.malformed { problems.append("malformed encoded word") }
                resume = word.end
                literalStart = resume
                previousWasEncoded = true
            }
            // Past the last `?=` no word can end: the rest is text.
            guard search.nextTerminator(from: resume) < bytes.count, let next = nextWordStart(bytes, from: resume) else { break }
            start = next
        }
        flushPending()
        output += String(headerBuffer: UnsafeBufferPointer(rebasing: bytes[literalStart...]))
        return output
    }

    /// The next `=?` at or after `position`.
    static func nextWordStart(_ bytes: UnsafeBufferPointer<UInt8>, from position: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var index = position
        while index + 1 < bytes.count {
            guard let found = memchr(base + index, Int32(ASCII.equals), bytes.count - index - 1) else { return nil }
            index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            if bytes[index + 1] == ASCII.question { return index }
            index += 1
        }
        return nil
    }

    struct Word {
        var charset: String
        var bytes: [UInt8]
        var end: Int
        var malformed: Bool
    }

    /// `=?` charset [`*` language] `?` encoding `?` encoded-text `?=`
    ///
    /// RFC 2047 section 2 caps an encoded word at 75 bytes, but mailers write longer ones and readers
    /// decode them, so the length is not capped; `search` finds the end without going over the same
    /// bytes again for every `=?`.
    static func parseWord(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, search: inout WordEndSearch) -> Word? {
        var index = start + 2
        let charsetStart = index
        var charsetEnd: Int? // before an RFC 2231 language
        while index < bytes.count, bytes[index] != ASCII.question {
            let byte = bytes[index]
            if ASCII.isWhitespace(byte) || index - charsetStart > 40 { return nil }
            if byte == ASCII.asterisk, charsetEnd == nil { charsetEnd = index }
            index += 1
        }
        guard index + 2 < bytes.count, index > charsetStart, bytes[index + 2] == ASCII.question else { return nil }
        let encoding = ASCII.lower(bytes[index + 1])
        guard encoding == 98 || encoding == 113 else { return nil } // b, q
        let textStart = index + 3
        let textEnd = search.nextTerminator(from: textStart)
        guard textEnd < bytes.count else { return nil }
        // Spaces inside Q text come from broken encoders, read only near the start of a word;
        // inside B text they end the word.
        let sawSpace = search.nextWhitespace(from: textStart) < textEnd
        if sawSpace && (encoding == 98 || search.nextDistantWhitespace(from: textStart + WordEndSearch.qSpaceReach) < textEnd) {
            return nil
        }
        let text = UnsafeBufferPointer(rebasing: bytes[textStart..<textEnd])
        let decoded: [UInt8]
        var malformed = sawSpace
        if encoding == 98 {
            let result = TransferDecoding.decodeBase64(buffer: text)
            decoded = result.bytes
            malformed = malformed || result.hadJunk
        } else {
            decoded = decodeQ(text)
        }
        let charset = String(decoding: UnsafeBufferPointer(rebasing: bytes[charsetStart..<(charsetEnd ?? index)]), as: UTF8.self)
        return Word(charset: charset, bytes: decoded, end: textEnd + 2, malformed: malformed)
    }

    /// RFC 2047 section 4.2: `_` is a space, `=XX` a byte.
    static func decodeQ(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.count)
        var index = 0
        while index < text.count {
            let byte = text[index]
            if byte == ASCII.underscore {
                output.append(ASCII.space)
            } else if byte == ASCII.equals, index + 2 < text.count,
                let high = ASCII.hexValue(text[index + 1]), let low = ASCII.hexValue(text[index + 2])
            {
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

/// Where encoded words end (`?=`) and where whitespace breaks them, found by scans that remember
/// their answer. The words of a header are tried from left to right, so each question starts at or
/// near where an earlier one stopped; a word's text starts after a charset of varying length, so a
/// question can come a little before the last one, and then only the gap is scanned. Every byte
/// is thus scanned about once for each kind of question.
struct WordEndSearch {
    /// How far into Q text a space is still read as a broken encoder's; beyond it, it ends the word.
    static let qSpaceReach = 201

    /// Nothing found in `from..<found`; a match at `found`, or `found` is the end of the bytes.
    struct Answer {
        var from: Int
        var found: Int
    }

    let bytes: UnsafeBufferPointer<UInt8>
    var terminator: Answer?
    var whitespace: Answer?
    var distantWhitespace: Answer?
    var scannedBytes = 0

    /// The index of the `?` of the first `?=` at or after `position`, or the end.
    mutating func nextTerminator(from position: Int) -> Int {
        Self.next(in: bytes, from: position, answer: &terminator, scannedBytes: &scannedBytes) { bytes, range in
            // memchr for the rarer `=`: C speed also in debug builds, where the tests measure this.
            guard let base = bytes.baseAddress else { return nil }
            var index = range.lowerBound + 1
            while index < range.upperBound {
                guard let found = memchr(base + index, Int32(ASCII.equals), range.upperBound - index) else { return nil }
                index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                if bytes[index - 1] == ASCII.question { return index - 1 }
                index += 1
            }
            return nil
        }
    }

    mutating func nextWhitespace(from position: Int) -> Int {
        Self.next(in: bytes, from: position, answer: &whitespace, scannedBytes: &scannedBytes, firstIn: Self.firstWhitespace)
    }

    /// As `nextWhitespace`, for the questions asked `qSpaceReach` further on, kept apart so that
    /// neither kind of question moves the other's answer back.
    mutating func nextDistantWhitespace(from position: Int) -> Int {
        Self.next(in: bytes, from: position, answer: &distantWhitespace, scannedBytes: &scannedBytes, firstIn: Self.firstWhitespace)
    }

    static func firstWhitespace(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        var index = range.lowerBound
        while index < range.upperBound {
            if ASCII.isWhitespace(bytes[index]) { return index }
            index += 1
        }
        return nil
    }

    /// `firstIn` finds the first match starting in a range; a match may run one byte past its end.
    static func next(
        in bytes: UnsafeBufferPointer<UInt8>, from position: Int, answer: inout Answer?, scannedBytes: inout Int,
        firstIn: (UnsafeBufferPointer<UInt8>, Range<Int>) -> Int?
    ) -> Int {
        guard position < bytes.count else { return bytes.count }
        var limit = bytes.count
        if let known = answer {
            if position >= known.from && position <= known.found { return known.found }
            // Before an earlier question: only the gap up to it is new.
            if position < known.from { limit = known.from }
        }
        let found: Int
        if let match = firstIn(bytes, position..<min(limit + 1, bytes.count)), match < limit {
            found = match
        } else if let known = answer, limit == known.from {
            found = known.found
        } else {
            found = bytes.count
        }
        answer = Answer(from: position, found: found)
        scannedBytes += min(found, limit) - position
        return found
    }
}
