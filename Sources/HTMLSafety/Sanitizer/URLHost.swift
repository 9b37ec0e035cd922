import Foundation
import IDNA

/// The host of an http(s) URL as a browser's URL parser reads it (URL Standard, "host parsing"):
/// percent-decoded, then domain to ASCII, then IPv4 number forms. The tracker blocklist and the
/// link-mismatch check compare this form, so `%67oogle-analytics.com`, `GOOGLE-ANALYTICS.COM.`,
/// full-width `ｇｏｏｇｌｅ-analytics.com` and `google-analytics。com` are all the host the browser
/// would load, `google-analytics.com` (issue 21, Low: hosts read without IDNA or decoding).
///
/// Domain to ASCII follows UTS #46 (non-transitional, as the URL Standard asks) for the cases
/// mail can use against a list: ASCII case, NFKC compatibility forms (full-width letters and
/// digits, ligatures, circled letters), case folding of any script, the ideographic full stops as
/// label separators, default-ignorable code points (soft hyphen, zero-width space) removed, and
/// non-ASCII labels written as `xn--` Punycode (RFC 3492). It does not carry UTS #46's table of
/// disallowed code points: such a host fails in a browser, so it loads nothing, and here it only
/// becomes a Punycode label that matches no list entry. Labels already in `xn--` form are kept as
/// written (lowercased).
enum URLHost {
    /// The host, lowercase ASCII without trailing dots, or nil when a browser's URL parser fails
    /// on it (empty, a forbidden code point, bytes that are not UTF-8 once decoded, a number
    /// that is not an IPv4 address): such a URL loads nothing.
    static func canonical(_ raw: ArraySlice<UInt8>) -> String? {
        // Nearly every host in mail is already canonical: lowercase letters, digits, dots and
        // hyphens, its last label not a number and no trailing dot. That one is its own result,
        // read without the copy the general path makes.
        var needsDecoding = false
        var needsLowercasing = false
        var alreadyCanonical = !raw.isEmpty
        for byte in raw {
            if byte >= 0x80 || byte == 37 {
                needsDecoding = true
                alreadyCanonical = false
            } else if byte >= 65, byte <= 90 {
                needsLowercasing = true
                alreadyCanonical = false
            } else if !(byte >= 97 && byte <= 122 || byte >= 48 && byte <= 57 || byte == 46 || byte == 45) {
                alreadyCanonical = false
            }
        }
        if alreadyCanonical, raw.last != 46, !lastLabelStartsWithDigit(raw) { return String(decoding: raw, as: UTF8.self) }
        var host: [UInt8]
        if needsDecoding {
            guard let mapped = domainToASCII(percentDecoded(raw)) else { return nil }
            host = mapped
        } else {
            host = needsLowercasing ? raw.map(URLPolicy.lowercased) : Array(raw)
        }
        guard !host.isEmpty, !host.contains(where: isForbiddenInDomain) else { return nil }
        if endsInANumber(host) {
            guard let address = ipv4(host) else { return nil }
            return address
        }
        while host.last == 46 { host.removeLast() }
        return host.isEmpty ? nil : String(decoding: host, as: UTF8.self)
    }

    /// URL Standard "forbidden domain code point": C0 controls, space, `# % / : < > ? @ [ \ ] ^ |`, DEL.
    static func isForbiddenInDomain(_ byte: UInt8) -> Bool {
        switch byte {
        case 0...32, 35, 37, 47, 58, 60, 62, 63, 64, 91, 92, 93, 94, 124, 127: true
        default: false
        }
    }

    /// `%XX` with two hex digits becomes that byte when `decodes` accepts it; any other `%`
    /// stays (in a host it then fails the URL). (MIME's RFC 2231 decoder is the same loop, but
    /// HTMLSafety depends on nothing but Foundation.)
    static func percentDecoded(_ bytes: ArraySlice<UInt8>, where decodes: (UInt8) -> Bool = { _ in true }) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == 37, index + 2 < bytes.endIndex,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]), decodes(high << 4 | low)
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return output
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 65...70: byte - 55
        case 97...102: byte - 87
        default: nil
        }
    }

    // MARK: - Domain to ASCII (UTS #46)

    /// Nil for bytes that are not UTF-8: the URL Standard decodes them to U+FFFD, which UTS #46
    /// disallows, so the URL fails.
    static func domainToASCII(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.contains(where: { $0 >= 0x80 }) else { return bytes.map(URLPolicy.lowercased) }
        guard let decoded = String(validating: bytes, as: UTF8.self) else { return nil }
        // NFKC, case folding, NFKC again (a lowercase form may have a compatibility mapping),
        // then the separators and the code points UTS #46 maps to nothing.
        let folded = decoded.precomposedStringWithCompatibilityMapping.lowercased().precomposedStringWithCompatibilityMapping
        var labels: [[Unicode.Scalar]] = [[]]
        for scalar in folded.unicodeScalars {
            if Self.labelSeparators.contains(scalar.value) {
                labels.append([])
            } else if !scalar.properties.isDefaultIgnorableCodePoint {
                labels[labels.count - 1].append(scalar)
            }
        }
        var output: [UInt8] = []
        for (position, label) in labels.enumerated() {
            if position > 0 { output.append(46) }
            if label.allSatisfy(\.isASCII) {
                output += label.map { URLPolicy.lowercased(UInt8($0.value)) }
            } else {
                // A DNS label holds 63 bytes (RFC 1035), which no longer label's Punycode fits:
                // such a host resolves nowhere, and the encoder's time grows with the square of
                // the label's length.
                guard label.count <= Self.maximumLabelLength, let encoded = Punycode.encode(label.map(\.value)) else { return nil }
                output += "xn--".utf8
                output += encoded
            }
        }
        return output
    }

    static let maximumLabelLength = 63

    /// U+002E and the full stops UTS #46 maps to it: ideographic, full-width, half-width ideographic.
    static let labelSeparators: Set<UInt32> = [0x2E, 0x3002, 0xFF0E, 0xFF61]

    // MARK: - IPv4 (URL Standard "ends in a number checker", "IPv4 parser")

    /// The last label (a trailing dot aside) is digits, or `0x` and hex digits: then the host must
    /// be an IPv4 address, or the URL fails.
    /// Whether the label after the last dot starts with a digit: every number form does, so a host
    /// whose last label does not never ends in a number (`endsInANumber`). For a host without a
    /// trailing dot.
    static func lastLabelStartsWithDigit(_ host: ArraySlice<UInt8>) -> Bool {
        let start = (host.lastIndex(of: 46) ?? host.startIndex - 1) + 1
        return start < host.endIndex && host[start] >= 48 && host[start] <= 57
    }

    static func endsInANumber(_ host: [UInt8]) -> Bool {
        var end = host.count
        if end > 0, host[end - 1] == 46 { end -= 1 }
        let start = (host[..<end].lastIndex(of: 46) ?? -1) + 1
        // Every number form starts with a digit; a host name's last label nearly never does.
        guard start < end, host[start] >= 48, host[start] <= 57 else { return false }
        let last = host[start..<end]
        return last.allSatisfy { $0 >= 48 && $0 <= 57 } || ipv4Number(last) != nil
    }

    /// `1.2.3.4`, `0x7f.1`, `017700000001`, `3232235521`… as dotted decimal; nil when not an address.
    static func ipv4(_ host: [UInt8]) -> String? {
        var parts = host.split(separator: 46, omittingEmptySubsequences: false)
        if parts.count > 1, parts.last?.isEmpty == true { parts.removeLast() }
        guard parts.count <= 4 else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            guard let number = ipv4Number(part) else { return nil }
            numbers.append(number)
        }
        guard numbers.dropLast().allSatisfy({ $0 <= 255 }), let last = numbers.last,
            last < (UInt64(1) << (8 * UInt64(5 - numbers.count)))
        else { return nil }
        var address = last
        for (position, number) in numbers.dropLast().enumerated() { address += number << (8 * UInt64(3 - position)) }
        return (0..<4).map { String((address >> (8 * UInt64(3 - $0))) & 0xFF) }.joined(separator: ".")
    }

    /// A part in decimal, octal (leading 0) or hex (`0x`); values past 2^32 are clamped there,
    /// which every check above refuses.
    static func ipv4Number(_ part: ArraySlice<UInt8>) -> UInt64? {
        guard !part.isEmpty else { return nil }
        var digits = part[...]
        var radix: UInt64 = 10
        if digits.count >= 2, digits.first == 48, digits[digits.startIndex + 1] | 0x20 == 120 {
            digits = digits.dropFirst(2)
            radix = 16
        } else if digits.count >= 2, digits.first == 48 {
            digits = digits.dropFirst()
            radix = 8
        }
        var value: UInt64 = 0
        for byte in digits {
            let digit: UInt64
            switch byte {
            case 48...57: digit = UInt64(byte - 48)
            case 97...102, 65...70: digit = UInt64((byte | 0x20) - 87)
            default: return nil
            }
            guard digit < radix else { return nil }
            value = min(value * radix + digit, UInt64(1) << 32)
        }
        return value
    }
}
