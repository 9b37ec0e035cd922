import Foundation

/// FR-COMP-01's four composition modes.
public enum ComposeMode: String, Sendable, Hashable, Codable, CaseIterable {
    case new
    case reply
    case replyAll
    case forward
}

/// A message being written: what the composer shows and edits, and what a draft will store
/// (FR-COMP-01). Recipients are parsed addresses; `ComposeValidationUseCase` says whether it can go.
public struct ComposeDraft: Sendable, Hashable, Codable {
    public var mode: ComposeMode
    /// The account it is sent from: for replies and forwards, the one that received the original.
    public var accountId: Account.ID
    /// The sender: the account's display name with its address, or with the alias the original
    /// was addressed to.
    public var from: EmailAddress
    public var to: [EmailAddress]
    public var cc: [EmailAddress]
    public var bcc: [EmailAddress]
    public var subject: String
    /// Plain text with the Markdown subset (`MarkdownSubset`), converted on send.
    public var body: String
    /// The original's Message-ID, with angle brackets (replies only).
    public var inReplyTo: String?
    /// The original's References and then its Message-ID, oldest first (replies only).
    public var references: [String]
    /// Forward: the original's attachments, each removable.
    public var attachments: [ComposedAttachment]
    /// The stored message this replies to or forwards.
    public var originalEmailId: EmailID?
    /// Things the prefill could not do fully (the original's body not downloaded).
    public var notes: [ComposeNote]
    /// Issue 35: the sending identity's signature the prefill put in `body` (after `-- `), so that
    /// changing the From swaps it and a body holding only it counts as nothing typed.
    public var signature: String?

    public init(
        mode: ComposeMode, accountId: Account.ID, from: EmailAddress, to: [EmailAddress] = [], cc: [EmailAddress] = [],
        bcc: [EmailAddress] = [], subject: String = "", body: String = "", inReplyTo: String? = nil, references: [String] = [],
        attachments: [ComposedAttachment] = [], originalEmailId: EmailID? = nil, notes: [ComposeNote] = []
    ) {
        self.mode = mode
        self.accountId = accountId
        self.from = from
        self.to = to
        self.cc = cc
        self.bcc = bcc
        self.subject = subject
        self.body = body
        self.inReplyTo = inReplyTo
        self.references = references
        self.attachments = attachments
        self.originalEmailId = originalEmailId
        self.notes = notes
    }

    /// Nothing typed: closing such a composer creates no draft (FR-COMP-01, "On dismiss").
    public var isEmpty: Bool {
        to.isEmpty && cc.isEmpty && bcc.isEmpty && subject.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
            && SignatureBlock.replacing(signature, with: nil, in: body).trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }
}

/// An attachment of a message being written.
public struct ComposedAttachment: Sendable, Hashable, Codable {
    /// Where its bytes come from.
    public enum Source: Sendable, Hashable, Codable {
        /// A stored message's attachment (a forward): `Attachment.id`.
        case storedAttachment(id: AttachmentID)
        /// A file the user picked.
        case file(path: String)
    }

    /// FR-COMP-01 "Attachment Handling": an original attachment not downloaded yet is pending,
    /// and the message may not go to SMTP until it is local.
    public enum Availability: String, Sendable, Hashable, Codable {
        case local
        case pending
    }

    public var source: Source
    public var filename: String
    public var mimeType: String
    public var sizeBytes: Int64
    public var availability: Availability
    /// The `cid:` an HTML body names an inline image by.
    public var contentId: String?

    public init(source: Source, filename: String, mimeType: String, sizeBytes: Int64, availability: Availability, contentId: String? = nil) {
        self.source = source
        self.filename = filename
        self.mimeType = mimeType
        self.sizeBytes = sizeBytes
        self.availability = availability
        self.contentId = contentId
    }
}

/// What the prefill could not do fully; the front end says so next to the composer.
public enum ComposeNote: String, Sendable, Hashable, Codable {
    /// The original's body is not in the store (not downloaded, and the download failed): the
    /// quote or forwarded text is empty.
    case originalBodyUnavailable
    /// The original's body was cut at the store's limit: so is the quote.
    case originalBodyTruncated
}

/// What a front end changed in a message being written (FR-COMP-01): recipients as a person types
/// them, subject, text, attachments kept and added. Nil leaves a field as it was. The web form,
/// the CLI's flags and the `$EDITOR` file are all read into one, so every front end edits a draft
/// the same way (`ComposeValidationUseCase.applying`).
public struct ComposeEdit: Sendable {
    public var to: String?
    public var cc: String?
    public var bcc: String?
    public var subject: String?
    public var body: String?
    /// The text goes above what was prefilled (a reply's quote, a forward) instead of replacing it.
    public var bodyAboveQuote = false
    /// Which attachments stay; nil keeps them all.
    public var keepsAttachment: (@Sendable (ComposedAttachment) -> Bool)?
    public var addedAttachments: [ComposedAttachment] = []

    public init(to: String? = nil, cc: String? = nil, bcc: String? = nil, subject: String? = nil, body: String? = nil) {
        self.to = to
        self.cc = cc
        self.bcc = bcc
        self.subject = subject
        self.body = body
    }
}
