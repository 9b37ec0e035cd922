import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Decodes text in the charset a message declares. Declared charsets lie: a label of US-ASCII on
/// UTF-8 bytes is read as UTF-8, and ISO-8859-1 is read as Windows-1252 as browsers do. An unknown
/// charset decodes with replacement characters and says so, so no text is dropped.
public enum CharsetDecoder {
    public struct Result: Sendable {
        public var text: String
        /// Set when the bytes could not be decoded exactly as labelled.
        public var problem: String?
    }

    public static func decode<Bytes: Collection>(_ bytes: Bytes, charset label: String?) -> Result
    where Bytes.Element == UInt8 {
        let charset = normalize(label)
        switch charset {
        case "utf-8", "us-ascii", "":
            if let text = String(validating: bytes, as: UTF8.self) { return Result(text: text) }
            if charset == "utf-8" {
                return Result(text: String(decoding: bytes, as: UTF8.self), problem: "invalid UTF-8 replaced")
            }
            // Labelled ASCII (or unlabelled) but 8-bit: Windows-1252 is what such mail almost always is.
            return Result(text: decodeWindows1252(bytes), problem: charset.isEmpty ? nil : "8-bit text labelled us-ascii read as windows-1252")
        case "iso-8859-1", "windows-1252":
            // Valid UTF-8 with multi-byte sequences is almost never real Latin-1 text.
            if containsUTF8MultiByte(bytes), let text = String(validating: bytes, as: UTF8.self) {
                return Result(text: text, problem: "UTF-8 text labelled \(charset)")
            }
            return Result(text: decodeWindows1252(bytes))
        default:
            if let text = iconvDecode(Array(bytes), from: charset) { return Result(text: text) }
            if let text = String(validating: bytes, as: UTF8.self) {
                return Result(text: text, problem: "unknown charset '\(label ?? "")' read as UTF-8")
            }
            return Result(text: String(decoding: bytes, as: UTF8.self), problem: "unknown charset '\(label ?? "")': undecodable bytes replaced")
        }
    }

    /// Canonical lowercase names for the aliases real mail uses.
    static func normalize(_ label: String?) -> String {
        guard let label else { return "" }
        // Trimmed on bytes: Foundation's trimming is slow on Linux, and this runs per encoded word.
        let utf8 = label.utf8
        guard let first = utf8.firstIndex(where: { $0 != 32 && $0 != 9 }), let last = utf8.lastIndex(where: { $0 != 32 && $0 != 9 }) else {
            return ""
        }
        var name = (first == utf8.startIndex && last == utf8.index(before: utf8.endIndex) ? label : String(label[first...last])).lowercasedASCII
        if name.hasPrefix("\""), name.hasSuffix("\""), name.count >= 2 { name = String(name.dropFirst().dropLast()) }
        switch name {
        case "utf8", "utf-8", "unicode-1-1-utf-8", "x-unicode20utf8": return "utf-8"
        case "ascii", "us-ascii", "ansi_x3.4-1968", "iso646-us", "us": return "us-ascii"
        case "latin1", "latin-1", "iso8859-1", "iso_8859-1", "iso-8859-1", "l1", "cp819": return "iso-8859-1"
        case "cp1252", "windows-1252", "x-cp1252": return "windows-1252"
        case "gb2312", "gb_2312-80", "x-gbk", "gbk", "cp936", "euc-cn": return "gbk" // GBK is a superset; mail labels GBK text GB2312
        case "shift-jis", "shift_jis", "sjis", "x-sjis", "ms_kanji", "cp932", "windows-31j": return "cp932"
        case "ks_c_5601-1987", "euc-kr", "ksc5601", "cp949", "windows-949": return "cp949"
        case "big5", "big-5", "cn-big5", "x-x-big5": return "big5-hkscs"
        default:
            if name.hasPrefix("iso8859-") { return "iso-8859-" + name.dropFirst(8) }
            if name.hasPrefix("iso_8859-") { return "iso-8859-" + name.dropFirst(9) }
            if name.hasPrefix("cp125") { return "windows-125" + name.dropFirst(5) }
            return name
        }
    }

    static func containsUTF8MultiByte<Bytes: Collection>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        bytes.contains { $0 >= 0xC2 && $0 <= 0xF4 }
    }

    private static let windows1252High: [UInt16] = [
        0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD,
        0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178
    ]

    static func decodeWindows1252<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count)
        for byte in bytes {
            units.append(byte >= 0x80 && byte < 0xA0 ? windows1252High[Int(byte - 0x80)] : UInt16(byte))
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// glibc's (or libiconv's) converters cover every charset mail uses. Invalid sequences are
    /// replaced, not fatal. Returns nil when the charset is unknown to iconv.
    static func iconvDecode(_ input: [UInt8], from charset: String) -> String? {
        let descriptor = iconv_open("UTF-8", charset)
        if descriptor == iconv_t(bitPattern: -1) { return nil }
        defer { iconv_close(descriptor) }
        var output = [UInt8](repeating: 0, count: input.count * 4 + 16)
        var result: [UInt8] = []
        result.reserveCapacity(input.count * 2)
        var source = input
        return source.withUnsafeMutableBufferPointer { sourceBuffer -> String? in
            var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(sourceBuffer.baseAddress)?
                .assumingMemoryBound(to: CChar.self)
            var inLeft = sourceBuffer.count
            while true {
                let (status, produced) = output.withUnsafeMutableBufferPointer { outBuffer -> (Int, Int) in
                    var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBuffer.baseAddress)?
                        .assumingMemoryBound(to: CChar.self)
                    var outLeft = outBuffer.count
                    let status = iconv(descriptor, &inPointer, &inLeft, &outPointer, &outLeft)
                    return (status, outBuffer.count - outLeft)
                }
                result.append(contentsOf: output[0..<produced])
                if status != -1 { break }
                let error = errno
                if error == E2BIG { continue }
                if error == EILSEQ || error == EINVAL {
                    // Skip one bad byte, mark it, carry on.
                    result.append(contentsOf: [0xEF, 0xBF, 0xBD])
                    if inLeft <= 1 { break }
                    inPointer = inPointer.map { $0 + 1 }
                    inLeft -= 1
                    continue
                }
                return nil
            }
            // Flush the shift state (ISO-2022-JP ends in ASCII mode).
            let flushed = output.withUnsafeMutableBufferPointer { outBuffer -> Int in
                var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBuffer.baseAddress)?
                    .assumingMemoryBound(to: CChar.self)
                var outLeft = outBuffer.count
                _ = iconv(descriptor, nil, nil, &outPointer, &outLeft)
                return outBuffer.count - outLeft
            }
            result.append(contentsOf: output[0..<flushed])
            return String(decoding: result, as: UTF8.self)
        }
    }
}
