/// One token of CSS Syntax Level 3 (https://www.w3.org/TR/css-syntax-3/#tokenization), as a range
/// of the source bytes. Blocks and functions are matched once, after tokenizing: `partner` is the
/// index of an opener's closer (the token count when the input ends first, as the parser then
/// closes it) and of a closer's opener; a closer that closes nothing is an ordinary token there,
/// as the parser's "preserved token" is.
struct CSSToken {
    enum Kind: UInt8 {
        case ident, function, atKeyword, hash, string, badString, url, badURL, delim, number, percentage, dimension
        case whitespace, cdo, cdc, colon, semicolon, comma
        case openSquare, closeSquare, openParen, closeParen, openCurly, closeCurly
    }

    var kind: Kind
    /// `Flags` bits.
    var flags: UInt8
    /// Offsets in 32 bits: a token is 16 bytes, and sheets are tokenized for every message.
    private var storedStart: Int32
    private var storedEnd: Int32
    private var storedPartner: Int32 = -1

    init(kind: Kind, flags: UInt8, start: Int, end: Int) {
        self.kind = kind
        self.flags = flags
        storedStart = Int32(truncatingIfNeeded: start)
        storedEnd = Int32(truncatingIfNeeded: end)
    }

    var start: Int { Int(storedStart) }
    var end: Int { Int(storedEnd) }
    var partner: Int {
        get { Int(storedPartner) }
        set { storedPartner = Int32(truncatingIfNeeded: newValue) }
    }

    enum Flags {
        /// The token holds a backslash escape (`wid\74h`, `"\""`).
        static let escape: UInt8 = 1
        /// A comment comes right before the token, with no whitespace between: writing the two
        /// tokens side by side would read as one (`1px/**/solid`).
        static let afterComment: UInt8 = 2
        /// A string or `url(` that the input's end closes: written out, it needs its closing byte.
        static let unterminated: UInt8 = 4
    }

    func has(_ flag: UInt8) -> Bool { flags & flag != 0 }

    var isOpener: Bool { kind == .function || kind == .openParen || kind == .openSquare || kind == .openCurly }
    /// A `)`, `]` or `}` that closes a block or function (not a stray one).
    var isMatchedCloser: Bool {
        (kind == .closeParen || kind == .closeSquare || kind == .closeCurly) && partner >= 0
    }
}

/// The CSS Syntax Level 3 tokenizer (section 4), on UTF-8 bytes: every byte that decides where a
/// token, string, comment, block or function ends is ASCII, and every non-ASCII code point is an
/// ident code point (as in browsers and tinycss2). NUL is one too: the HTML parser has already
/// replaced it with U+FFFD in style text and attribute values.
///
/// Whatever the input, the token ranges cover it in order, and each token is what a browser reads
/// at that place: the sanitizer decides on these tokens and writes only tokens it checked, so what
/// it allows is what a browser will read.
enum CSSTokenizer {
    /// Offsets are 32-bit: a longer text (no mail has one) gives no tokens, so no CSS.
    static let maximumLength = Int(Int32.max)

    static func tokenize(_ source: ArraySlice<UInt8>) -> [CSSToken] {
        source.withUnsafeBufferPointer { tokenize($0) }
    }

    static func tokenize(_ buffer: UnsafeBufferPointer<UInt8>) -> [CSSToken] {
        guard buffer.count < maximumLength else { return [] }
        var tokenizer = Cursor(bytes: buffer)
        var tokens: [CSSToken] = []
        tokens.reserveCapacity(buffer.count / 4 + 4)
        while let token = tokenizer.next() { tokens.append(token) }
        matchBlocks(&tokens)
        return tokens
    }

    /// Pairs every `{`, `[`, `(` and function with the closer the parser ends it at, in one pass
    /// with an explicit stack: inside a block only its own closer ends it (a `}` inside `rgb(` is
    /// part of the function), so nesting depth costs no recursion.
    static func matchBlocks(_ tokens: inout [CSSToken]) {
        var open: [Int] = []
        for index in tokens.indices {
            let kind = tokens[index].kind
            switch kind {
            case .function, .openParen, .openSquare, .openCurly:
                open.append(index)
            case .closeParen, .closeSquare, .closeCurly:
                guard let top = open.last, closer(of: tokens[top].kind) == kind else { continue }
                open.removeLast()
                tokens[top].partner = index
                tokens[index].partner = top
            default:
                continue
            }
        }
        for index in open { tokens[index].partner = tokens.count }
    }

    static func closer(of opener: CSSToken.Kind) -> CSSToken.Kind {
        switch opener {
        case .openSquare: .closeSquare
        case .openCurly: .closeCurly
        default: .closeParen
        }
    }

    /// The byte that closes an opener, for writing it out.
    static func closingByte(of opener: CSSToken.Kind) -> UInt8 {
        switch opener {
        case .openSquare: 93
        case .openCurly: 125
        default: 41
        }
    }

    // MARK: - Code point classes (section 4.2)

    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
    @inline(__always) static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= 97 && byte | 0x20 <= 102)
    }
    @inline(__always) static func isNewline(_ byte: UInt8) -> Bool { byte == 10 || byte == 13 || byte == 12 }
    @inline(__always) static func isWhitespace(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || isNewline(byte) }
    /// Letters, `_`, non-ASCII and NUL (U+FFFD once preprocessed).
    @inline(__always) static func isIdentStart(_ byte: UInt8) -> Bool {
        byte >= 0x80 || isInMask(byte, low: 1, high: 0x07FF_FFFE_87FF_FFFE)
    }
    /// Also digits and `-`.
    @inline(__always) static func isIdentCodePoint(_ byte: UInt8) -> Bool {
        byte >= 0x80 || isInMask(byte, low: 0x03FF_2000_0000_0001, high: 0x07FF_FFFE_87FF_FFFE)
    }
    /// An ASCII byte's bit in a 128-bit class: `low` holds 0–63, `high` 64–127 (a lookup
    /// without memory, for the tokenizer's hottest loops).
    @inline(__always) static func isInMask(_ byte: UInt8, low: UInt64, high: UInt64) -> Bool {
        let bit = UInt64(1) << UInt64(byte & 63)
        return (byte < 64 ? low : high) & bit != 0
    }
    /// Section 4.2's non-printable code points, which end a `url(` as a bad URL.
    @inline(__always) static func isNonPrintable(_ byte: UInt8) -> Bool {
        byte <= 8 || byte == 11 || (byte >= 14 && byte <= 31) || byte == 127
    }

    /// A cursor over the bytes, producing one token per call.
    struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        @inline(__always) func byte(at index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }

        /// Section 4.3.8: a backslash not followed by a newline (a backslash at the end is one).
        func isValidEscape(at index: Int) -> Bool {
            guard byte(at: index) == 92 else { return false }
            guard let next = byte(at: index + 1) else { return true }
            return !CSSTokenizer.isNewline(next)
        }

        /// Section 4.3.9: would the bytes at `index` start an ident sequence.
        func startsIdent(at index: Int) -> Bool {
            guard let first = byte(at: index) else { return false }
            if first == 45 {
                guard let second = byte(at: index + 1) else { return false }
                return CSSTokenizer.isIdentStart(second) || second == 45 || isValidEscape(at: index + 1)
            }
            return CSSTokenizer.isIdentStart(first) || isValidEscape(at: index)
        }

        /// Section 4.3.10: would the bytes at `index` start a number.
        func startsNumber(at index: Int) -> Bool {
            guard let first = byte(at: index) else { return false }
            if first == 43 || first == 45 {
                guard let second = byte(at: index + 1) else { return false }
                if CSSTokenizer.isDigit(second) { return true }
                return second == 46 && byte(at: index + 2).map(CSSTokenizer.isDigit) == true
            }
            if first == 46 { return byte(at: index + 1).map(CSSTokenizer.isDigit) == true }
            return CSSTokenizer.isDigit(first)
        }

        /// Section 4.3.7, after the backslash: up to six hex digits and one whitespace (CR LF
        /// counts as one, as preprocessing makes it), or any one code point.
        mutating func consumeEscape() {
            guard let first = byte(at: position) else { return }
            if CSSTokenizer.isHexDigit(first) {
                var digits = 0
                while digits < 6, let byte = byte(at: position), CSSTokenizer.isHexDigit(byte) {
                    position += 1
                    digits += 1
                }
                if let byte = byte(at: position), CSSTokenizer.isWhitespace(byte) {
                    position += byte == 13 && self.byte(at: position + 1) == 10 ? 2 : 1
                }
                return
            }
            position += 1
            while let byte = byte(at: position), byte & 0xC0 == 0x80 { position += 1 }
        }

        /// Section 4.3.11: an ident sequence; whether it held an escape.
        mutating func consumeName() -> Bool {
            var escaped = false
            let count = bytes.count
            while position < count {
                let byte = bytes[position]
                if CSSTokenizer.isIdentCodePoint(byte) {
                    position += 1
                } else if byte == 92, isValidEscape(at: position) {
                    escaped = true
                    position += 1
                    consumeEscape()
                } else {
                    break
                }
            }
            return escaped
        }

        mutating func next() -> CSSToken? {
            var afterComment: UInt8 = 0
            // Comments are no tokens (section 4.3.2); a comment the input's end cuts off runs to it.
            while position + 1 < bytes.count, bytes[position] == 47, bytes[position + 1] == 42 {
                var index = position + 2
                while index + 1 < bytes.count, !(bytes[index] == 42 && bytes[index + 1] == 47) { index += 1 }
                position = index + 1 < bytes.count ? index + 2 : bytes.count
                afterComment = CSSToken.Flags.afterComment
            }
            guard position < bytes.count else { return nil }
            let start = position
            let (kind, flags) = consumeToken()
            return CSSToken(kind: kind, flags: flags | afterComment, start: start, end: position)
        }

        /// Section 4.3.1, from the token's first byte.
        private mutating func consumeToken() -> (CSSToken.Kind, UInt8) {
            let first = bytes[position]
            switch first {
            case 9, 10, 12, 13, 32:
                position += 1
                while let byte = byte(at: position), CSSTokenizer.isWhitespace(byte) { position += 1 }
                return (.whitespace, 0)
            case 34, 39:
                return consumeString(quote: first)
            case 35: // #
                if let next = byte(at: position + 1), CSSTokenizer.isIdentCodePoint(next) || isValidEscape(at: position + 1) {
                    position += 1
                    return (.hash, consumeName() ? CSSToken.Flags.escape : 0)
                }
            case 40:
                position += 1
                return (.openParen, 0)
            case 41:
                position += 1
                return (.closeParen, 0)
            case 44:
                position += 1
                return (.comma, 0)
            case 58:
                position += 1
                return (.colon, 0)
            case 59:
                position += 1
                return (.semicolon, 0)
            case 91:
                position += 1
                return (.openSquare, 0)
            case 93:
                position += 1
                return (.closeSquare, 0)
            case 123:
                position += 1
                return (.openCurly, 0)
            case 125:
                position += 1
                return (.closeCurly, 0)
            case 43, 46: // + .
                if startsNumber(at: position) { return consumeNumeric() }
            case 45: // -
                if startsNumber(at: position) { return consumeNumeric() }
                if byte(at: position + 1) == 45, byte(at: position + 2) == 62 {
                    position += 3
                    return (.cdc, 0)
                }
                if startsIdent(at: position) { return consumeIdentLike() }
            case 60: // <
                if byte(at: position + 1) == 33, byte(at: position + 2) == 45, byte(at: position + 3) == 45 {
                    position += 4
                    return (.cdo, 0)
                }
            case 64: // @
                if startsIdent(at: position + 1) {
                    position += 1
                    return (.atKeyword, consumeName() ? CSSToken.Flags.escape : 0)
                }
            case 92: // backslash
                if isValidEscape(at: position) { return consumeIdentLike() }
            default:
                if CSSTokenizer.isDigit(first) { return consumeNumeric() }
                if CSSTokenizer.isIdentStart(first) { return consumeIdentLike() }
            }
            position += 1
            return (.delim, first == 92 ? CSSToken.Flags.escape : 0)
        }

        /// Section 4.3.5. A newline ends it as a bad string, left for the next token.
        private mutating func consumeString(quote: UInt8) -> (CSSToken.Kind, UInt8) {
            position += 1
            var flags: UInt8 = 0
            while let byte = byte(at: position) {
                if byte == quote {
                    position += 1
                    return (.string, flags)
                }
                if CSSTokenizer.isNewline(byte) { return (.badString, flags) }
                position += 1
                if byte == 92 {
                    flags |= CSSToken.Flags.escape
                    guard let next = self.byte(at: position) else { break }
                    if CSSTokenizer.isNewline(next) {
                        position += next == 13 && self.byte(at: position + 1) == 10 ? 2 : 1
                    } else {
                        consumeEscape()
                    }
                }
            }
            return (.string, flags | CSSToken.Flags.unterminated)
        }

        /// Section 4.3.3: a number, then a unit (dimension) or `%`.
        private mutating func consumeNumeric() -> (CSSToken.Kind, UInt8) {
            if bytes[position] == 43 || bytes[position] == 45 { position += 1 }
            while let byte = byte(at: position), CSSTokenizer.isDigit(byte) { position += 1 }
            if byte(at: position) == 46, let next = byte(at: position + 1), CSSTokenizer.isDigit(next) {
                position += 2
                while let byte = byte(at: position), CSSTokenizer.isDigit(byte) { position += 1 }
            }
            if let e = byte(at: position), e | 0x20 == 101 {
                if let next = byte(at: position + 1), CSSTokenizer.isDigit(next) {
                    position += 2
                    while let byte = byte(at: position), CSSTokenizer.isDigit(byte) { position += 1 }
                } else if let sign = byte(at: position + 1), sign == 43 || sign == 45,
                    let digit = byte(at: position + 2), CSSTokenizer.isDigit(digit)
                {
                    position += 3
                    while let byte = byte(at: position), CSSTokenizer.isDigit(byte) { position += 1 }
                }
            }
            if startsIdent(at: position) { return (.dimension, consumeName() ? CSSToken.Flags.escape : 0) }
            if byte(at: position) == 37 {
                position += 1
                return (.percentage, 0)
            }
            return (.number, 0)
        }

        /// Section 4.3.4: an ident, a function, or `url(` with an unquoted URL.
        private mutating func consumeIdentLike() -> (CSSToken.Kind, UInt8) {
            let start = position
            let escaped = consumeName()
            let flags = escaped ? CSSToken.Flags.escape : 0
            guard byte(at: position) == 40 else { return (.ident, flags) }
            position += 1
            guard nameIsURL(start..<(position - 1), escaped: escaped) else { return (.function, flags) }
            // `url(` followed by a quote (after whitespace) is a function taking a string.
            var look = position
            while let byte = byte(at: look), CSSTokenizer.isWhitespace(byte) { look += 1 }
            if let byte = byte(at: look), byte == 34 || byte == 39 { return (.function, flags) }
            return consumeURL(flags: flags)
        }

        /// Whether a name is `url` (ASCII case-insensitively), escapes decoded (`u\72l` is one).
        private func nameIsURL(_ range: Range<Int>, escaped: Bool) -> Bool {
            guard escaped else {
                return range.count == 3 && bytes[range.lowerBound] | 0x20 == 117 && bytes[range.lowerBound + 1] | 0x20 == 114
                    && bytes[range.lowerBound + 2] | 0x20 == 108
            }
            var decoded: [UInt32] = []
            var index = range.lowerBound
            while index < range.upperBound, decoded.count <= 3 {
                if bytes[index] == 92 {
                    var escape = Cursor(bytes: bytes)
                    escape.position = index + 1
                    escape.consumeEscape()
                    decoded.append(Self.escapedValue(bytes, (index + 1)..<escape.position))
                    index = escape.position
                } else {
                    decoded.append(UInt32(bytes[index]))
                    index += 1
                }
            }
            return decoded.count == 3 && decoded[0] | 0x20 == 117 && decoded[1] | 0x20 == 114 && decoded[2] | 0x20 == 108
        }

        /// The code point an escape stands for (only compared with ASCII letters: a multi-byte
        /// code point gives its first byte, which is no letter).
        private static func escapedValue(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UInt32 {
            guard let first = range.first, CSSTokenizer.isHexDigit(bytes[first]) else {
                return range.isEmpty ? 0xFFFD : UInt32(bytes[range.lowerBound])
            }
            var value: UInt32 = 0
            for index in range where CSSTokenizer.isHexDigit(bytes[index]) {
                let byte = bytes[index]
                value = value &* 16 &+ UInt32(CSSTokenizer.isDigit(byte) ? byte - 48 : (byte | 0x20) - 87)
            }
            return value
        }

        /// Section 4.3.6, after `url(`: a quote, `(`, a non-printable byte or whitespace before
        /// anything but `)` makes it a bad URL, which runs to the next unescaped `)`.
        private mutating func consumeURL(flags: UInt8) -> (CSSToken.Kind, UInt8) {
            var flags = flags
            while let byte = byte(at: position), CSSTokenizer.isWhitespace(byte) { position += 1 }
            while true {
                guard let byte = byte(at: position) else { return (.url, flags | CSSToken.Flags.unterminated) }
                if byte == 41 {
                    position += 1
                    return (.url, flags)
                }
                if CSSTokenizer.isWhitespace(byte) {
                    while let next = self.byte(at: position), CSSTokenizer.isWhitespace(next) { position += 1 }
                    guard let next = self.byte(at: position) else { return (.url, flags | CSSToken.Flags.unterminated) }
                    if next == 41 {
                        position += 1
                        return (.url, flags)
                    }
                    return consumeBadURLRemnants(flags: flags)
                }
                if byte == 34 || byte == 39 || byte == 40 || CSSTokenizer.isNonPrintable(byte) {
                    return consumeBadURLRemnants(flags: flags)
                }
                if byte == 92 {
                    guard isValidEscape(at: position) else { return consumeBadURLRemnants(flags: flags) }
                    flags |= CSSToken.Flags.escape
                    position += 1
                    consumeEscape()
                    continue
                }
                position += 1
            }
        }

        /// Section 4.3.14.
        private mutating func consumeBadURLRemnants(flags: UInt8) -> (CSSToken.Kind, UInt8) {
            while let byte = byte(at: position) {
                if byte == 41 {
                    position += 1
                    break
                }
                if isValidEscape(at: position) {
                    position += 1
                    consumeEscape()
                } else {
                    position += 1
                }
            }
            return (.badURL, flags)
        }
    }
}
