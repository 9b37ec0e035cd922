import Foundation
import IDNA

/// Message-IDs as Tern writes them (RFC 5322 section 3.6.4): `<` id-left `@` id-right `>`.
public enum MessageID {
    /// An id longer than this cannot stand on a folded line of its own (a space, the id) within
    /// RFC 5322's 998 bytes: ids are never split, so longer ones are refused.
    public static let maxBytes = 997

    /// `<uuid.milliseconds@domain>`, in ASCII whatever the domain: IMAP SEARCH takes no 8-bit
    /// text, and the check of Sent after a crash searches for this id (FR-SYNC-07).
    static func generate(domain: String) -> String {
        let host = domain.isEmpty ? "tern.invalid" : asciiDomain(domain)
        return "<\(UUID().uuidString.lowercased()).\(UInt64(Date().timeIntervalSince1970 * 1000))@\(host)>"
    }

    /// The id's syntax, read the way the rest of the mail system needs it: printable ASCII with
    /// no space, `<` and `>` only around it, a non-empty left and right of the last `@`. The RFC's
    /// left side may be an obsolete quoted local part, which can hold an `@`.
    public static func isValid(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard bytes.count >= 5, bytes.count <= maxBytes, bytes.first == ASCII.lessThan, bytes.last == ASCII.greaterThan else { return false }
        let inner = bytes[1..<(bytes.count - 1)]
        guard inner.allSatisfy({ $0 > 32 && $0 < 127 && $0 != ASCII.lessThan && $0 != ASCII.greaterThan }),
            let at = inner.lastIndex(of: ASCII.at)
        else { return false }
        return at > inner.startIndex && at + 1 < inner.endIndex
    }

    /// A Content-ID as `OutgoingMIMEAttachment.contentId` holds it, without its angle brackets (RFC 2392:
    /// the `cid:` URL names it so): a msg-id's inside by `isValid`'s rule. Its length is not limited
    /// here: an id too long for its header line is refused by the line check, with what it was.
    public static func isValidContentID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard bytes.allSatisfy({ $0 > 32 && $0 < 127 && $0 != ASCII.lessThan && $0 != ASCII.greaterThan }),
            let at = bytes.lastIndex(of: ASCII.at)
        else { return false }
        return at > 0 && at + 1 < bytes.count
    }

    /// IDNA's ASCII form of a domain: labels split at the dots IDNA reads as dots (also the
    /// ideographic ones), case folded and composed (NFC), non-ASCII labels written as `xn--`
    /// Punycode (RFC 5891 section 4.4). The id needs ASCII, not a registrable name, so this skips
    /// UTS #46's other mappings and the validity rules; what comes out is ASCII either way.
    static func asciiDomain(_ domain: String) -> String {
        guard !domain.utf8.allSatisfy({ $0 < 0x80 }) else { return domain }
        let labels = domain.precomposedStringWithCanonicalMapping.lowercased()
            .split(omittingEmptySubsequences: false, whereSeparator: { "\u{3002}\u{FF0E}\u{FF61}.".contains($0) })
        return labels.map { label in
            guard !label.utf8.allSatisfy({ $0 < 0x80 }) else { return String(label) }
            return Punycode.encode(String(label)).map { "xn--" + $0 } ?? "invalid"
        }.joined(separator: ".")
    }
}
