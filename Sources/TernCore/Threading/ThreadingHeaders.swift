import Foundation

/// What threading reads of one message (FR-SYNC-06 step 1), after dedup (FR-SYNC-01 step 6): one
/// input per stored Email, however many folders (Sent included) hold it.
public struct ThreadingHeaders: Sendable, Hashable {
    public var emailID: EmailID
    public var accountID: Account.ID
    /// The Message-ID header as received (`Email.headerMessageId`), without angle brackets.
    public var messageID: String?
    /// In-Reply-To ids, in header order.
    public var inReplyTo: [String]
    /// References ids, oldest ancestor first.
    public var references: [String]
    public var subject: String
    public var date: Date

    public init(
        emailID: EmailID, accountID: Account.ID, messageID: String?, inReplyTo: [String] = [], references: [String] = [],
        subject: String, date: Date
    ) {
        self.emailID = emailID
        self.accountID = accountID
        self.messageID = messageID
        self.inReplyTo = inReplyTo
        self.references = references
        self.subject = subject
        self.date = date
    }

    /// From a stored Email: `inReplyTo` and `references` are space-separated ids.
    public init(_ email: Email) {
        self.init(
            emailID: email.id ?? 0, accountID: email.accountId, messageID: Self.ids(email.headerMessageId).first,
            inReplyTo: Self.ids(email.inReplyTo), references: Self.ids(email.references), subject: email.subject,
            date: email.dateSent ?? email.dateReceived)
    }

    /// Message-IDs from a header value: `<a@b> <c@d>` or bare `a@b c@d`; brackets removed.
    public static func ids(_ value: String?) -> [String] {
        guard let value else { return [] }
        var ids: [String] = []
        var token: [UInt8] = []
        func finish() {
            var start = token.startIndex
            var end = token.endIndex
            if start < end, token[start] == UInt8(ascii: "<") { start += 1 }
            if start < end, token[end - 1] == UInt8(ascii: ">") { end -= 1 }
            if start < end { ids.append(String(decoding: token[start..<end], as: UTF8.self)) }
            token.removeAll(keepingCapacity: true)
        }
        // Message-IDs are ASCII (RFC 5322 msg-id); separators are ASCII white space and commas.
        for byte in value.utf8 {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C, UInt8(ascii: ","): finish()
            default: token.append(byte)
            }
        }
        finish()
        return ids
    }
}
