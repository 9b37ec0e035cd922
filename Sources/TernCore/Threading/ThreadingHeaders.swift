import Foundation

/// What threading reads of one message (FR-SYNC-06 step 1), after dedup (FR-SYNC-01 step 6): one
/// input per stored Email, however many folders (Sent included) hold it.
public struct ThreadingHeaders: Sendable, Hashable {
    public var emailID: Int64
    public var accountID: Account.ID
    /// The Message-ID header as received (`Email.headerMessageId`), without angle brackets.
    public var messageID: String?
    /// In-Reply-To ids, in header order.
    public var inReplyTo: [String]
    /// References ids, oldest ancestor first.
    public var references: [String]
    public var subject: String
    public var date: Date

    public init(emailID: Int64, accountID: Account.ID, messageID: String?, inReplyTo: [String] = [], references: [String] = [],
                subject: String, date: Date) {
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
        self.init(emailID: email.id ?? 0, accountID: email.accountId, messageID: Self.ids(email.headerMessageId).first,
                  inReplyTo: Self.ids(email.inReplyTo), references: Self.ids(email.references), subject: email.subject,
                  date: email.dateSent ?? email.dateReceived)
    }

    /// Message-IDs from a header value: `<a@b> <c@d>` or bare `a@b c@d`; brackets removed.
    public static func ids(_ value: String?) -> [String] {
        guard let value else { return [] }
        return value.split(whereSeparator: { $0.isWhitespace || $0 == "," }).compactMap { token in
            var id = Substring(token)
            if id.hasPrefix("<") { id = id.dropFirst() }
            if id.hasSuffix(">") { id = id.dropLast() }
            return id.isEmpty ? nil : String(id)
        }
    }
}
