/// What a URL in an email is, read the way a browser's URL parser reads it (leading and trailing
/// C0 controls and spaces ignored, tabs and newlines anywhere ignored, scheme case-insensitive), so
/// `java&#x09;script:`, ` JaVaScRiPt:` and friends are recognised for what they are. Character
/// references are already decoded by the HTML parser. Works on UTF-8 bytes: every byte it looks
/// at is ASCII, and the sanitizer classifies every link and image of a message.
enum URLPolicy: Equatable {
    case remote(host: String)
    case mailto
    case cid
    /// `data:image/…` other than SVG: an inline picture that loads nothing.
    case dataImage
    case fragment
    /// No scheme: meaningless in an email (there is no base), never followed.
    case relative
    /// `javascript:`, `vbscript:`, `data:` (not an image), `file:`, anything else.
    case unsafe(scheme: String)

    static func normalize(_ raw: String) -> String {
        if !raw.utf8.contains(where: { $0 <= 0x20 }) { return raw }
        return String(decoding: normalize(bytes: Array(raw.utf8)), as: UTF8.self)
    }

    static func normalize(bytes raw: [UInt8]) -> [UInt8] {
        guard raw.contains(where: { $0 <= 0x20 }) else { return raw }
        var start = 0
        var end = raw.count
        while start < end, raw[start] <= 0x20 { start += 1 }
        while end > start, raw[end - 1] <= 0x20 { end -= 1 }
        return raw[start..<end].filter { $0 != 9 && $0 != 10 && $0 != 13 }
    }

    static func classify(_ raw: String) -> URLPolicy { classify(bytes: Array(raw.utf8)) }

    static func classify(bytes raw: [UInt8]) -> URLPolicy {
        let url = normalize(bytes: raw)
        if url.first == UInt8(ascii: "#") { return .fragment }
        guard let colon = url.firstIndex(of: UInt8(ascii: ":")) else { return .relative }
        // A scheme is ASCII alpha then alphanumerics, '+', '-', '.'; otherwise the colon is in a path.
        guard colon > 0, isAlpha(url[0]),
            url[1..<colon].allSatisfy({ isAlpha($0) || ($0 >= 48 && $0 <= 57) || $0 == 43 || $0 == 45 || $0 == 46 })
        else { return .relative }
        let scheme = url[..<colon]
        let rest = url[(colon + 1)...]
        // The scheme compared on bytes: a String is built only for the rare unsafe ones.
        if ASCIIBytes.equals(scheme, "https") || ASCIIBytes.equals(scheme, "http") {
            guard let host = host(of: rest) else { return .unsafe(scheme: lowercasedString(scheme)) }
            return .remote(host: host)
        }
        if ASCIIBytes.equals(scheme, "mailto") { return .mailto }
        if ASCIIBytes.equals(scheme, "cid") { return .cid }
        if ASCIIBytes.equals(scheme, "data") {
            let type = ASCIIBytes.trimmed(rest.prefix { $0 != 59 && $0 != 44 })
            for image in ["image/png", "image/jpeg", "image/jpg", "image/gif", "image/webp", "image/bmp"] as [StaticString]
            where ASCIIBytes.equals(type, image) {
                return .dataImage
            }
            return .unsafe(scheme: "data")
        }
        return .unsafe(scheme: lowercasedString(scheme))
    }

    /// `//user@Host:port/path` → `host` as the browser reads it (`URLHost.canonical`: decoded,
    /// IDNA-mapped, lowercase ASCII); nil when there is none or a browser would fail the URL.
    static func host(of rest: Substring) -> String? { host(of: ArraySlice(rest.utf8)) }

    static func host(of rest: ArraySlice<UInt8>) -> String? {
        var text = authority(of: rest)
        if let at = text.lastIndex(of: 64) { text = text[(at + 1)...] }
        if text.first == 91 {
            guard let close = text.firstIndex(of: 93) else { return nil }
            return lowercasedString(text[...close])
        }
        if let colon = text.firstIndex(of: 58) { text = text[..<colon] }
        return URLHost.canonical(text)
    }

    /// What follows `http(s):` up to the path: slashes and backslashes before it skipped, and
    /// ended by `/`, `\`, `?` or `#` (URL Standard, special authority states: for http(s) a
    /// backslash is a slash).
    static func authority(of rest: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let text = rest.drop { $0 == 47 || $0 == 92 }
        return text[..<(text.firstIndex(where: { $0 == 47 || $0 == 92 || $0 == 63 || $0 == 35 }) ?? text.endIndex)]
    }

    /// The path and query an http(s) URL requests, as a server reads them, for the blocklist's
    /// path rules: backslashes are slashes, dot segments (`.`, `..`, also spelled `%2e`) are
    /// resolved as the URL Standard's path state does, and the unreserved characters a server
    /// reads the same encoded or not are decoded (RFC 3986 §6.2.2.2), so `/track/%6Fpen` and
    /// `/x/../track/open` are `/track/open`. The fragment is not sent.
    static func requestPath(of url: [UInt8]) -> [UInt8] {
        let url = normalize(bytes: url)
        guard let colon = url.firstIndex(of: 58) else { return [47] }
        let authority = authority(of: url[(colon + 1)...])
        var rest = url[authority.endIndex...]
        if let hash = rest.firstIndex(of: 35) { rest = rest[..<hash] }
        let queryStart = rest.firstIndex(of: 63) ?? rest.endIndex
        var segments: [ArraySlice<UInt8>] = []
        let parts = rest[..<queryStart].split(omittingEmptySubsequences: false) { $0 == 47 || $0 == 92 }.dropFirst()
        for (position, segment) in parts.enumerated() {
            let isLast = position == parts.count - 1
            if isDotSegment(segment, dots: 2) {
                _ = segments.popLast()
                if isLast { segments.append([]) }
            } else if isDotSegment(segment, dots: 1) {
                if isLast { segments.append([]) }
            } else {
                segments.append(segment)
            }
        }
        var path: [UInt8] = [47]
        for (position, segment) in segments.enumerated() {
            if position > 0 { path.append(47) }
            path += segment
        }
        path += rest[queryStart...]
        return decodingUnreserved(path)
    }

    /// `.` or `..` (`dots` of them), each dot possibly written `%2e` (URL Standard).
    static func isDotSegment(_ segment: ArraySlice<UInt8>, dots: Int) -> Bool {
        var index = segment.startIndex
        var found = 0
        while index < segment.endIndex {
            if segment[index] == 46 {
                index += 1
            } else if segment[index] == 37, index + 2 < segment.endIndex, segment[index + 1] == 50, segment[index + 2] | 0x20 == 101 {
                index += 3
            } else {
                return false
            }
            found += 1
        }
        return found == dots
    }

    /// `%XX` for a letter, digit, `-`, `.`, `_` or `~` becomes that character; other escapes stay.
    static func decodingUnreserved(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(37) else { return bytes }
        return URLHost.percentDecoded(bytes[...]) { isAlpha($0) || ($0 >= 48 && $0 <= 57) || $0 == 45 || $0 == 46 || $0 == 95 || $0 == 126 }
    }

    /// Lowercased as `String.lowercased()` does, without its cost for the usual ASCII host.
    static func lowercasedString(_ bytes: ArraySlice<UInt8>) -> String {
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return String(decoding: bytes, as: UTF8.self).lowercased() }
        return String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for (offset, byte) in bytes.enumerated() { buffer[offset] = lowercased(byte) }
            return bytes.count
        }
    }

    static func isAlpha(_ byte: UInt8) -> Bool { (byte | 0x20) >= 97 && (byte | 0x20) <= 122 }
    static func lowercased(_ byte: UInt8) -> UInt8 { byte >= 65 && byte <= 90 ? byte | 0x20 : byte }
}
