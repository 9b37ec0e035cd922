import Crypto
import Foundation

/// FR-SYNC-01 step 6: the canonical fallback identity of a message whose Message-ID is missing or
/// shared with a different message. A SHA-256 over the headers that every copy of one message keeps
/// identical across folders (From, To, Cc, Subject, Date, Message-ID as written), normalized for
/// case and whitespace, so the same message in two folders gets the same key and different messages
/// (even ones sharing a Message-ID) get different keys.
public enum DedupKey {
    public static func make(from: [MailboxAddress], to: [MailboxAddress], cc: [MailboxAddress], subject: String,
                            dateHeader: String?, messageId: String?) -> String {
        func addresses(_ list: [MailboxAddress]) -> String {
            list.map { $0.address.lowercased() }.sorted().joined(separator: ",")
        }
        func collapse(_ text: String?) -> String {
            (text ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }).joined(separator: " ")
        }
        let canonical = [
            "from:" + addresses(from), "to:" + addresses(to), "cc:" + addresses(cc), "subject:" + collapse(subject),
            "date:" + collapse(dateHeader), "message-id:" + collapse(messageId),
        ].joined(separator: "\n")
        let digest = SHA256.hash(data: Data(canonical.utf8))
        let hexDigits = Array("0123456789abcdef".utf8)
        var hex = Array("sha256:".utf8)
        for byte in digest {
            hex.append(hexDigits[Int(byte >> 4)])
            hex.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
