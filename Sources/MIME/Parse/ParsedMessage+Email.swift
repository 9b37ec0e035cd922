import Foundation
import TernCore

extension ParsedMessage {
    /// The `Email` a synced message becomes (FR-SYNC-01 steps 6-8). `internalDate` is the server's
    /// INTERNALDATE: it is `dateReceived`, and it stands in for a missing or unreadable Date header
    /// (never "now"). `messageIdIsReliable` is false when another message of the account already
    /// carries this Message-ID: the identity then falls back to the canonical key alone.
    public func email(accountId: Account.ID, internalDate: Date, sizeBytes: Int64, messageIdIsReliable: Bool = true) -> Email {
        let plainSnippet = bodyPlain.map { Self.snippet(from: $0) }
        var email = Email(
            accountId: accountId, messageId: messageIdIsReliable ? messageId : nil, headerMessageId: messageId,
            dedupKey: dedupKey, inReplyTo: inReplyTo.last, references: references.isEmpty ? nil : references.joined(separator: " "),
            subject: subject, fromName: from.first?.name, fromAddress: from.first?.address ?? sender?.address ?? "",
            toAddresses: to, ccAddresses: cc, bccAddresses: bcc, replyTo: replyTo, dateSent: date, dateReceived: internalDate,
            snippet: plainSnippet ?? (bodyPlain == nil && bodyHTML == nil ? nil : ""), bodyPlain: bodyPlain, bodyHTML: bodyHTML,
            bodyTruncated: bodyTruncated, bodiesFetched: true, sizeBytes: sizeBytes,
            hasAttachments: attachments.contains { !$0.isInline })
        email.bulkMarkers = BulkMailMarkers.from { headers.first($0.lowercased())?.decodedValue }
        // Issue 32: whether the user's provider vouched for the From is decided when the thread is read.
        email.authenticationResults = AuthenticationResultsParser.parse(fields: headers.fields).map(\.evidence)
        return email
    }

    /// The snippet of a text that did not come from this parser (an HTML body's text).
    public static func previewSnippet(from text: String) -> String { snippet(from: text) }

    /// FR-SYNC-06 step 5: the first ~100 characters of the text, whitespace collapsed, quotes skipped.
    static func snippet(from text: String, length: Int = 100) -> String {
        var words: [Substring] = []
        var count = 0
        // Line by line over UTF-8 (newlines, spaces, tabs and CRs are ASCII), stopping as soon as
        // there is enough: a body can be megabytes long, and a quoted reply can come first.
        let utf8 = text.utf8
        var lineStart = utf8.startIndex
        while lineStart < utf8.endIndex {
            let lineEnd = utf8[lineStart...].firstIndex(of: 0x0A) ?? utf8.endIndex
            defer { lineStart = lineEnd == utf8.endIndex ? lineEnd : utf8.index(after: lineEnd) }
            guard utf8[lineStart] != UInt8(ascii: ">") || lineStart == lineEnd else { continue }
            var wordStart: String.Index?
            var index = lineStart
            while true {
                let atEnd = index == lineEnd
                let byte = atEnd ? 0x20 : utf8[index]
                if byte == 0x20 || byte == 0x09 || byte == 0x0D {
                    if let start = wordStart {
                        let word = text[start..<index]
                        words.append(word)
                        count += word.count + 1
                        if count >= length { return String(words.joined(separator: " ").prefix(length)) }
                        wordStart = nil
                    }
                } else if wordStart == nil {
                    wordStart = index
                }
                if atEnd { break }
                index = utf8.index(after: index)
            }
        }
        return words.joined(separator: " ")
    }
}
