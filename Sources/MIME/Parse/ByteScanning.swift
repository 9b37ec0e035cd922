/// Byte-level helpers for parsing mail. Mail is bytes first: headers may carry 8-bit garbage and
/// bodies any charset, so the parsers work on `[UInt8]` and decode text only where it is known.
enum ASCII {
    static let cr: UInt8 = 13
    static let lf: UInt8 = 10
    static let space: UInt8 = 32
    static let tab: UInt8 = 9
    static let colon: UInt8 = 58
    static let semicolon: UInt8 = 59
    static let equals: UInt8 = 61
    static let quote: UInt8 = 34
    static let backslash: UInt8 = 92
    static let hyphen: UInt8 = 45
    static let question: UInt8 = 63
    static let underscore: UInt8 = 95
    static let lessThan: UInt8 = 60
    static let greaterThan: UInt8 = 62
    static let openParen: UInt8 = 40
    static let closeParen: UInt8 = 41
    static let comma: UInt8 = 44
    static let at: UInt8 = 64
    static let asterisk: UInt8 = 42
    static let slash: UInt8 = 47

    @inline(__always) static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == tab || byte == cr || byte == lf
    }

    @inline(__always) static func lower(_ byte: UInt8) -> UInt8 {
        (byte >= 65 && byte <= 90) ? byte | 0x20 : byte
    }

    @inline(__always) static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 65...70: byte - 55
        case 97...102: byte - 87
        default: nil
        }
    }
}

extension Collection where Element == UInt8 {
    /// Case-insensitive comparison with an ASCII string given in lowercase.
    func equalsLowercaseASCII(_ lowercase: StaticString) -> Bool {
        guard count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { expected in
            var index = startIndex
            for byte in expected {
                if ASCII.lower(self[index]) != byte { return false }
                index = self.index(after: index)
            }
            return true
        }
    }
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// Eight bytes at a time: a hostile header can be a megabyte, and the IMAP parser asks this of
    /// every string it reads.
    var isASCII: Bool {
        guard let base = baseAddress else { return true }
        var index = 0
        while index + 8 <= count {
            if UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            index += 8
        }
        while index < count {
            if base[index] >= 0x80 { return false }
            index += 1
        }
        return true
    }
}

extension ArraySlice where Element == UInt8 {
    func trimmingWhitespace() -> ArraySlice<UInt8> {
        var start = startIndex
        var end = endIndex
        while start < end, ASCII.isWhitespace(self[start]) { start += 1 }
        while end > start, ASCII.isWhitespace(self[end - 1]) { end -= 1 }
        return self[start..<end]
    }
}

extension String {
    /// Header bytes as text: UTF-8 when valid (RFC 6532), else Latin-1, so nothing is lost or crashes.
    public init<Bytes: Collection>(headerBytes bytes: Bytes) where Bytes.Element == UInt8 {
        if let contiguous = bytes.withContiguousStorageIfAvailable({ String(headerBuffer: $0) }) {
            self = contiguous
        } else if let text = String(validating: bytes, as: UTF8.self) {
            self = text
        } else {
            self = String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)
        }
    }

    /// Concrete, so calls from other modules skip generic dispatch (a hot path of the IMAP parser).
    public init(headerBytes bytes: [UInt8]) {
        self = bytes.withUnsafeBufferPointer { String(headerBuffer: $0) }
    }

    public init(headerBytes bytes: ArraySlice<UInt8>) {
        self = bytes.withUnsafeBufferPointer { String(headerBuffer: $0) }
    }

    /// ASCII (the common case) is copied without validation; otherwise UTF-8 when valid, else Latin-1.
    init(headerBuffer buffer: UnsafeBufferPointer<UInt8>) {
        if buffer.isASCII {
            self = String(decoding: buffer, as: UTF8.self)
        } else if let text = String(validating: buffer, as: UTF8.self) {
            self = text
        } else {
            self = String(decoding: buffer.map { UInt16($0) }, as: UTF16.self)
        }
    }

    var lowercasedASCII: String {
        var needsWork = false
        for byte in utf8 where byte >= 65 && byte <= 90 {
            needsWork = true
            break
        }
        return needsWork ? lowercased() : self
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (Unicode Zs and U+0009): what Foundation's
    /// `trimmingCharacters(in: .whitespaces)` does, without its NSString bridge, which header
    /// parsing paid for on every address and date of a sync.
    func trimmingSpaces() -> String {
        func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isSpace($0) })!
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
