/// What a URL in an email is, read the way a browser's URL parser reads it (leading and trailing
/// C0 controls and spaces ignored, tabs and newlines anywhere ignored, scheme case-insensitive), so
/// `java&#x09;script:`, ` JaVaScRiPt:` and friends are recognised for what they are. Character
/// references are already decoded by the HTML parser.
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
        var scalars = Array(raw.unicodeScalars)
        while let first = scalars.first, first.value <= 0x20 { scalars.removeFirst() }
        while let last = scalars.last, last.value <= 0x20 { scalars.removeLast() }
        scalars.removeAll { $0 == "\t" || $0 == "\n" || $0 == "\r" }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }

    static func classify(_ raw: String) -> URLPolicy {
        let url = normalize(raw)
        if url.hasPrefix("#") { return .fragment }
        guard let colon = url.firstIndex(of: ":") else { return .relative }
        let scheme = url[..<colon]
        // A scheme is ASCII alpha then alphanumerics, '+', '-', '.'; otherwise the colon is in a path.
        let schemeScalars = Array(scheme.unicodeScalars)
        guard let first = schemeScalars.first, first.isASCII, first.properties.isAlphabetic,
              schemeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ($0.value >= 48 && $0.value <= 57) || $0 == "+" || $0 == "-" || $0 == ".") })
        else { return .relative }
        let lowerScheme = scheme.lowercased()
        let rest = url[url.index(after: colon)...]
        switch lowerScheme {
        case "http", "https":
            guard let host = host(of: rest) else { return .unsafe(scheme: lowerScheme) }
            return .remote(host: host)
        case "mailto": return .mailto
        case "cid": return .cid
        case "data":
            let type = rest.prefix { $0 != ";" && $0 != "," }.lowercased().trimmingASCIIWhitespace
            if ["image/png", "image/jpeg", "image/jpg", "image/gif", "image/webp", "image/bmp"].contains(type) { return .dataImage }
            return .unsafe(scheme: "data")
        default: return .unsafe(scheme: lowerScheme)
        }
    }

    /// `//user@Host:port/path` → `host` (lowercased); nil when there is no host.
    static func host(of rest: Substring) -> String? {
        var text = rest.drop { $0 == "/" || $0 == "\\" }
        if let end = text.firstIndex(where: { $0 == "/" || $0 == "\\" || $0 == "?" || $0 == "#" }) { text = text[..<end] }
        if let at = text.lastIndex(of: "@") { text = text[text.index(after: at)...] }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            return String(text[...close]).lowercased()
        }
        if let colon = text.firstIndex(of: ":") { text = text[..<colon] }
        let host = String(text).lowercased().trimmingCharactersDot
        return host.isEmpty ? nil : host
    }
}

extension String {
    var trimmingCharactersDot: String {
        var text = self
        while text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
