import Foundation
import TernCore

extension ParsedMessage {
    /// The `Email` a synced message becomes (FR-SYNC-01 steps 6-8). `internalDate` is the server's
    /// INTERNALDATE: it is `dateReceived`, and it stands in for a missing or unreadable Date header
    /// (never "now"). `messageIdIsReliable` is false when another message of the account already
    /// carries this Message-ID: the identity then falls back to the canonical key alone.
    public func email(accountId: Account.ID, internalDate: Date, sizeBytes: Int64, messageIdIsReliable: Bool = true) -> Email {
        let plainSnippet = bodyPlain.map { Self.snippet(from: $0) }
        return Email(
            accountId: accountId, messageId: messageIdIsReliable ? messageId : nil, headerMessageId: messageId,
            dedupKey: dedupKey, inReplyTo: inReplyTo.last, references: references.isEmpty ? nil : references.joined(separator: " "),
            subject: subject, fromName: from.first?.name, fromAddress: from.first?.address ?? sender?.address ?? "",
            toAddresses: to, ccAddresses: cc, bccAddresses: bcc, replyTo: replyTo, dateSent: date, dateReceived: internalDate,
            snippet: plainSnippet ?? (bodyPlain == nil && bodyHTML == nil ? nil : ""), bodyPlain: bodyPlain, bodyHTML: bodyHTML,
            bodyTruncated: bodyTruncated, bodiesFetched: true, sizeBytes: sizeBytes,
            hasAttachments: attachments.contains { !$0.isInline })
    }

    /// The snippet of a text that did not come from this parser (an HTML body's text).
    public static func previewSnippet(from text: String) -> String { snippet(from: text) }

    /// FR-SYNC-06 step 5: the first ~100 characters of the text, whitespace collapsed, quotes skipped.
    static func snippet(from text: String, length: Int = 100) -> String {
        var words: [Substring] = []
        var count = 0
        // Line by line, stopping as soon as there is enough: a body can be megabytes long.
        var rest = text[...]
        while !rest.isEmpty {
            let end = rest.firstIndex(of: "\n") ?? rest.endIndex
            let line = rest[..<end]
            rest = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
            guard !line.hasPrefix(">") else { continue }
            for word in line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }) {
                words.append(word)
                count += word.count + 1
                if count >= length { return String(words.joined(separator: " ").prefix(length)) }
            }
        }
        return words.joined(separator: " ")
    }
}
