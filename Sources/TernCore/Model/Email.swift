import Foundation

/// FR-SYNC-07, FR-COMP-02 (Foundation section 5.5): where a message is in the send pipeline.
public enum SendState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Not being sent: a received message, or a draft.
    case none
    /// Waiting for the send queue (including the undo-send window, while `sendHoldUntil` is ahead).
    case queued
    /// An SMTP transaction is under way.
    case sending
    /// Gave up: a permanent refusal, retries exhausted, or queued over 24 hours.
    case failed
    /// The server accepted it.
    case sent

    /// FR-SYNC-07: the virtual Outbox shows these.
    public var isInOutbox: Bool { self == .queued || self == .sending || self == .failed }
}

/// A mailbox address with its optional display name.
public struct EmailAddress: Sendable, Hashable, Codable {
    public var name: String?
    public var address: String

    public init(name: String? = nil, address: String) {
        self.name = name
        self.address = address
    }

    /// FR-ED-01: the sender's display name falls back to the address.
    public var displayName: String {
        if let name, !name.trimmingCharacters(in: .whitespaces).isEmpty { return name }
        return address
    }
}

/// One message, stored once per account however many folders hold it (FR-SYNC-01 step 6).
public struct Email: Sendable, Hashable, Codable, Identifiable {
    public var id: EmailID?
    public var accountId: Account.ID
    public var threadId: ThreadID?
    /// The dedup identity (FR-SYNC-01 step 6): the Message-ID when it is reliable, else nil.
    /// Unique per account where present.
    public var messageId: String?
    /// The Message-ID header as received, kept for threading even when it is not reliable
    /// enough to be the identity (a duplicate Message-ID on a different message).
    public var headerMessageId: String?
    /// FR-SYNC-01 step 6: the canonical fallback key, a hash of normalized headers. Always set.
    public var dedupKey: String
    public var inReplyTo: String?
    /// Space-delimited Message-IDs, oldest ancestor first (Foundation section 5.6).
    public var references: String?
    public var subject: String
    public var fromName: String?
    public var fromAddress: String
    public var toAddresses: [EmailAddress]
    public var ccAddresses: [EmailAddress]
    public var bccAddresses: [EmailAddress]
    public var replyTo: [EmailAddress]
    /// From the Date header; nil when it is missing or unparseable (then `dateReceived` is used).
    public var dateSent: Date?
    /// INTERNALDATE, or the local creation time for composed messages.
    public var dateReceived: Date
    public var snippet: String?
    public var bodyPlain: String?
    public var bodyHTML: String?
    /// FR-SYNC-01 step 7: the body was cut at 10 MB.
    public var bodyTruncated: Bool
    /// FR-COMP-03: the headers by which it declares itself bulk or automated (no smart replies).
    public var bulkMarkers: BulkMailMarkers = []
    /// Issue 35: the addresses of its `Delivered-To` and then `X-Original-To` fields, in field
    /// order: whom the delivering servers handed it to (mail by Bcc or through a list names the
    /// person nowhere else). A reply is sent from the identity among them when To and Cc have none.
    public var deliveredTo: [String] = []
    /// Issue 32: the message's first `Authentication-Results` fields, in field order, with what the
    /// verdict reads (`SenderAuthentication`); nil when they were never recorded (stored before
    /// migration v15, or written here). Kept instead of a verdict so that setting the account's
    /// authserv-id later applies to mail already synced.
    public var authenticationResults: [AuthenticationResults]?
    /// Issue 37: where a read receipt would go (`Disposition-Notification-To`, else
    /// `Return-Receipt-To`); empty when the message asks for none, or was stored before v16.
    public var readReceiptTo: [EmailAddress] = []
    /// Issue 37: the person's Send receipt or Ignore, remembered locally.
    public var readReceiptState: ReadReceiptState?
    /// Issue 37: the `rfc822` address of the message's `Original-Recipient` field, which an MDN
    /// must repeat (RFC 8098 section 3.2.3); kept only for a message that asks for a receipt.
    public var originalRecipient: String?
    /// Bodies were fetched (both nil after fetching means the message has no text body).
    public var bodiesFetched: Bool
    /// The MIME part tree from BODYSTRUCTURE, as JSON, so bodies and attachments are fetched by part.
    public var bodyStructure: String?
    public var sizeBytes: Int64
    public var hasAttachments: Bool
    public var isRead: Bool
    public var isStarred: Bool
    public var isAnswered: Bool
    public var isDraft: Bool
    /// Set when the user deleted or trashed it, so it is not shown in the virtual Archive (FR-SYNC-10).
    public var deletedDate: Date?
    public var sendState: SendState
    public var sendRetryCount: Int
    /// FR-SYNC-07: when it entered the queue; the 24-hour limit counts from here.
    public var sendQueuedDate: Date?
    /// The queue does not pick it up before this time: the undo window (FR-COMP-02) or a retry backoff.
    public var sendNotBefore: Date?
    /// FR-COMP-02: the undo window. A held message is skipped by the queue without holding up others.
    public var sendHoldUntil: Date?
    /// Exactly-once delivery: set just before SMTP DATA, cleared when the outcome is recorded.
    public var sendAttemptStartedDate: Date?
    /// The server's text for a failed send, or "send timeout".
    public var sendError: String?
    public var createdDate: Date

    public init(
        id: EmailID? = nil, accountId: Account.ID, threadId: ThreadID? = nil, messageId: String?, headerMessageId: String? = nil,
        dedupKey: String, inReplyTo: String? = nil, references: String? = nil, subject: String, fromName: String? = nil,
        fromAddress: String, toAddresses: [EmailAddress] = [], ccAddresses: [EmailAddress] = [],
        bccAddresses: [EmailAddress] = [], replyTo: [EmailAddress] = [], dateSent: Date? = nil, dateReceived: Date,
        snippet: String? = nil, bodyPlain: String? = nil, bodyHTML: String? = nil, bodyTruncated: Bool = false,
        bodiesFetched: Bool = false, bodyStructure: String? = nil, sizeBytes: Int64 = 0, hasAttachments: Bool = false,
        isRead: Bool = false, isStarred: Bool = false, isAnswered: Bool = false, isDraft: Bool = false,
        deletedDate: Date? = nil, sendState: SendState = .none, sendRetryCount: Int = 0, sendQueuedDate: Date? = nil,
        sendNotBefore: Date? = nil, sendHoldUntil: Date? = nil, sendAttemptStartedDate: Date? = nil, sendError: String? = nil,
        createdDate: Date = Date()
    ) {
        self.id = id
        self.accountId = accountId
        self.threadId = threadId
        self.messageId = messageId
        self.headerMessageId = headerMessageId ?? messageId
        self.dedupKey = dedupKey
        self.inReplyTo = inReplyTo
        self.references = references
        self.subject = subject
        self.fromName = fromName
        self.fromAddress = fromAddress
        self.toAddresses = toAddresses
        self.ccAddresses = ccAddresses
        self.bccAddresses = bccAddresses
        self.replyTo = replyTo
        self.dateSent = dateSent
        self.dateReceived = dateReceived
        self.snippet = snippet
        self.bodyPlain = bodyPlain
        self.bodyHTML = bodyHTML
        self.bodyTruncated = bodyTruncated
        self.bodiesFetched = bodiesFetched
        self.bodyStructure = bodyStructure
        self.sizeBytes = sizeBytes
        self.hasAttachments = hasAttachments
        self.isRead = isRead
        self.isStarred = isStarred
        self.isAnswered = isAnswered
        self.isDraft = isDraft
        self.deletedDate = deletedDate
        self.sendState = sendState
        self.sendRetryCount = sendRetryCount
        self.sendQueuedDate = sendQueuedDate
        self.sendNotBefore = sendNotBefore
        self.sendHoldUntil = sendHoldUntil
        self.sendAttemptStartedDate = sendAttemptStartedDate
        self.sendError = sendError
        self.createdDate = createdDate
    }

    /// The date shown and sorted by: the Date header when it parsed, else the server's INTERNALDATE.
    public var displayDate: Date { dateSent ?? dateReceived }
}

/// An email's membership in one server folder, with its UID there (FR-SYNC-02, Foundation 5.4).
public struct EmailFolder: Sendable, Hashable, Codable {
    public var id: Int64?
    public var emailId: EmailID
    public var folderId: FolderID
    public var imapUID: Int64
    /// RFC 7162 MODSEQ of this copy, when the server has CONDSTORE.
    public var modSeq: Int64?
    /// The server's flags on this copy, space-separated, as last seen (keywords included).
    public var serverFlags: String

    public init(id: Int64? = nil, emailId: EmailID, folderId: FolderID, imapUID: Int64, modSeq: Int64? = nil, serverFlags: String = "") {
        self.id = id
        self.emailId = emailId
        self.folderId = folderId
        self.imapUID = imapUID
        self.modSeq = modSeq
        self.serverFlags = serverFlags
    }
}

/// A conversation grouped locally from Message-ID/In-Reply-To/References (FR-SYNC-06).
/// Named `MailThread` in Swift to stay clear of `Foundation.Thread`; the table is `thread`.
public struct MailThread: Sendable, Hashable, Codable, Identifiable {
    public var id: ThreadID?
    public var accountId: Account.ID
    /// Subject of the root (earliest) message.
    public var subject: String
    /// The subject with reply/forward prefixes stripped, for the subject fallback.
    public var normalizedSubject: String
    public var latestDate: Date
    public var earliestDate: Date
    public var messageCount: Int
    public var unreadCount: Int
    /// Deduplicated From addresses.
    public var participants: [EmailAddress]
    public var snippet: String?
    public var hasAttachments: Bool
    public var isStarred: Bool
    /// FR-ED-02: the summary the Assist provider wrote, and when.
    public var aiSummary: String?
    public var aiSummaryDate: Date?
    /// What the cached summary was written from: the provider and the thread's messages, so a new
    /// message or another provider recomputes it (issue 19).
    public var aiSummaryKey: String?

    public init(
        id: ThreadID? = nil, accountId: Account.ID, subject: String, normalizedSubject: String, latestDate: Date,
        earliestDate: Date, messageCount: Int = 0, unreadCount: Int = 0, participants: [EmailAddress] = [],
        snippet: String? = nil, hasAttachments: Bool = false, isStarred: Bool = false, aiSummary: String? = nil,
        aiSummaryDate: Date? = nil
    ) {
        self.id = id
        self.accountId = accountId
        self.subject = subject
        self.normalizedSubject = normalizedSubject
        self.latestDate = latestDate
        self.earliestDate = earliestDate
        self.messageCount = messageCount
        self.unreadCount = unreadCount
        self.participants = participants
        self.snippet = snippet
        self.hasAttachments = hasAttachments
        self.isStarred = isStarred
        self.aiSummary = aiSummary
        self.aiSummaryDate = aiSummaryDate
    }
}

/// An attachment's metadata from BODYSTRUCTURE, and where its content is once downloaded (FR-SYNC-08).
public struct Attachment: Sendable, Hashable, Codable, Identifiable {
    public var id: AttachmentID?
    public var emailId: EmailID
    /// The IMAP body section (`2`, `1.3`), used to fetch exactly this part.
    public var partId: String
    public var filename: String
    public var mimeType: String
    public var sizeBytes: Int64
    /// The Content-ID without angle brackets, for `cid:` references (FR-ED-03).
    public var contentId: String?
    public var isInline: Bool
    public var transferEncoding: String?
    public var isDownloaded: Bool
    /// Under `$TERN_HOME/attachments/<account>/`.
    public var localPath: String?
    /// FR-SYNC-08: the 500 MB per-account cache evicts least recently accessed first.
    public var lastAccessDate: Date?

    public init(
        id: AttachmentID? = nil, emailId: EmailID, partId: String, filename: String, mimeType: String, sizeBytes: Int64,
        contentId: String? = nil, isInline: Bool = false, transferEncoding: String? = nil, isDownloaded: Bool = false,
        localPath: String? = nil, lastAccessDate: Date? = nil
    ) {
        self.id = id
        self.emailId = emailId
        self.partId = partId
        self.filename = filename
        self.mimeType = mimeType
        self.sizeBytes = sizeBytes
        self.contentId = contentId
        self.isInline = isInline
        self.transferEncoding = transferEncoding
        self.isDownloaded = isDownloaded
        self.localPath = localPath
        self.lastAccessDate = lastAccessDate
    }
}

/// FR-ED-04: a sender whose remote images the user chose to always load. Local only.
public struct TrustedSender: Sendable, Hashable, Codable, Identifiable {
    public var id: String
    /// Lowercased address; the exact-match key.
    public var senderEmail: String
    public var createdDate: Date

    public init(id: String = UUID().uuidString.lowercased(), senderEmail: String, createdDate: Date = Date()) {
        self.id = id
        self.senderEmail = senderEmail.lowercased()
        self.createdDate = createdDate
    }
}

/// FR-COMP-04: an address seen in synced mail, for local-only autocomplete.
public struct ContactCacheEntry: Sendable, Hashable, Codable, Identifiable {
    public var id: String
    public var accountId: Account.ID
    /// Lowercased address; unique per account.
    public var emailAddress: String
    public var displayName: String?
    public var lastSeenDate: Date
    public var frequency: Int

    public init(
        id: String = UUID().uuidString.lowercased(), accountId: Account.ID, emailAddress: String,
        displayName: String? = nil, lastSeenDate: Date, frequency: Int = 1
    ) {
        self.id = id
        self.accountId = accountId
        self.emailAddress = emailAddress.lowercased()
        self.displayName = displayName
        self.lastSeenDate = lastSeenDate
        self.frequency = frequency
    }
}
