import IDNA

/// Domain names as discovery sends them to DNS and HTTP: ASCII, internationalized labels in their
/// IDNA (Punycode) form, and host names checked before anything connects to them.
public enum DomainName {
    /// The ASCII form of a domain (`bücher.example` → `xn--bcher-kva.example`), lowercased; nil when
    /// a label is empty, too long (RFC 1035: 63 bytes, 253 in all) or not letters, digits and hyphens.
    public static func ascii(_ domain: String) -> String? {
        let labels = domain.lowercased().split(separator: ".", omittingEmptySubsequences: false)
        var encoded: [String] = []
        for label in labels {
            if label.unicodeScalars.allSatisfy(\.isASCII) {
                encoded.append(String(label))
            } else {
                guard let punycode = Punycode.encode(String(label)) else { return nil }
                encoded.append("xn--" + punycode)
            }
        }
        let result = encoded.joined(separator: ".")
        return isHostName(result) && !isAddressLiteral(result) ? result : nil
    }

    /// A DNS host name (letters, digits, hyphens, underscore-free labels of 1-63 bytes, 253 in
    /// all, a trailing dot allowed) or an IPv4 or bracket-free IPv6 literal.
    public static func isHostName(_ host: String) -> Bool {
        if isAddressLiteral(host) { return true }
        let name = host.hasSuffix(".") ? host.dropLast() : Substring(host)
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.utf8.count) && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
        }
    }

    static func isAddressLiteral(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4 && parts.allSatisfy({ UInt8($0) != nil && $0.count <= 3 }) { return true }
        return host.contains(":") && host.count <= 45 && host.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
    }
}
