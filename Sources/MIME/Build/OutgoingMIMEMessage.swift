import Foundation

/// What `MessageBuilder` writes (FR-COMP-01, FR-SYNC-07): the header fields and the parts of a
/// message to send or to keep as a draft, in MIME's own terms. The runtime makes one from the
/// core's `OutgoingMessage`.
public struct OutgoingMIMEMessage: Sendable, Hashable {
    public var from: MailboxAddress
    public var to: [MailboxAddress]
    public var cc: [MailboxAddress]
    /// Written only into a draft's copy (`MessageBuilder.build(_:draft:)`), never into mail sent.
    public var bcc: [MailboxAddress]
    public var replyTo: [MailboxAddress]
    public var subject: String
    public var date: Date
    /// Generated from the sender's domain when nil.
    public var messageId: String?
    public var inReplyTo: String?
    public var references: [String]
    public var bodyPlain: String
    /// A minimal HTML alternative is generated from the plain text when nil.
    public var bodyHTML: String?
    public var attachments: [OutgoingMIMEAttachment]
    /// Set for a read receipt (issue 37): the message is RFC 8098's `multipart/report` of
    /// `bodyPlain` and these fields, with no HTML alternative and no attachments.
    public var dispositionNotification: DispositionNotificationFields?

    public init(
        from: MailboxAddress, to: [MailboxAddress], cc: [MailboxAddress] = [], bcc: [MailboxAddress] = [],
        replyTo: [MailboxAddress] = [], subject: String, date: Date = Date(), messageId: String? = nil,
        inReplyTo: String? = nil, references: [String] = [], bodyPlain: String, bodyHTML: String? = nil,
        attachments: [OutgoingMIMEAttachment] = []
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
}

/// A file part of an `OutgoingMIMEMessage`: attached, or inline when it has a Content-ID.
public struct OutgoingMIMEAttachment: Sendable, Hashable {
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
