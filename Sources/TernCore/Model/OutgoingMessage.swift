import Foundation

/// A message to send (FR-COMP-01, FR-SYNC-07), before it becomes bytes.
public struct OutgoingMessage: Sendable, Hashable {
    public var from: EmailAddress
    public var to: [EmailAddress]
    public var cc: [EmailAddress]
    /// Recipients for the SMTP envelope only: never written into the message.
    public var bcc: [EmailAddress]
    public var replyTo: [EmailAddress]
    public var subject: String
    public var date: Date
    /// Generated from the sender's domain when nil.
    public var messageId: String?
    public var inReplyTo: String?
    public var references: [String]
    public var bodyPlain: String
    /// A minimal HTML alternative is generated from the plain text when nil.
    public var bodyHTML: String?
    public var attachments: [OutgoingAttachment]
    /// Issue 37: set for a read receipt, which is written as RFC 8098's `multipart/report` around
    /// `bodyPlain` instead of the usual alternatives.
    public var dispositionNotice: DispositionNotice?

    public init(
        from: EmailAddress, to: [EmailAddress], cc: [EmailAddress] = [], bcc: [EmailAddress] = [],
        replyTo: [EmailAddress] = [], subject: String, date: Date = Date(), messageId: String? = nil,
        inReplyTo: String? = nil, references: [String] = [], bodyPlain: String, bodyHTML: String? = nil,
        attachments: [OutgoingAttachment] = []
    ) {
        self.from = from
        self.to = to
        self.cc = cc
        self.bcc = bcc
        self.replyTo = replyTo
        self.subject = subject
        self.date = date
        self.messageId = messageId
        self.inReplyTo = inReplyTo
        self.references = references
        self.bodyPlain = bodyPlain
        self.bodyHTML = bodyHTML
        self.attachments = attachments
    }

    /// Every address the SMTP envelope must reach (To, Cc and Bcc, deduplicated).
    public var envelopeRecipients: [String] {
        var seen = Set<String>()
        return (to + cc + bcc).map(\.address).filter { seen.insert($0.lowercased()).inserted }
    }
}

public struct OutgoingAttachment: Sendable, Hashable {
    public var filename: String
    public var mimeType: String
    public var data: Data
    /// Set for an inline image the HTML refers to as `cid:`.
    public var contentId: String?

    public init(filename: String, mimeType: String, data: Data, contentId: String? = nil) {
        self.filename = filename
        self.mimeType = mimeType
        self.data = data
        self.contentId = contentId
    }
}
