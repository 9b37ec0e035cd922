import Foundation

/// One message as the sync engine hands it to the store: the Email it becomes (FR-SYNC-01 steps
/// 6-8), where it is on the server, and its server flags, which are authoritative (FR-SYNC-05).
public struct IncomingMessage: Sendable, Hashable {
    public var email: Email
    public var uid: Int64
    public var modSeq: Int64?
    public var serverFlags: [String]
    public var attachments: [Attachment]
    /// FR-SYNC-04 Indexing: the text search reads when the bodies came with the headers but there
    /// is no plain body (the HTML's text).
    public var searchText: String?

    public init(
        email: Email, uid: Int64, modSeq: Int64? = nil, serverFlags: [String] = [], attachments: [Attachment] = [],
        searchText: String? = nil
    ) {
        self.email = email
        self.uid = uid
        self.modSeq = modSeq
        self.serverFlags = serverFlags
        self.attachments = attachments
        self.searchText = searchText
    }

    /// FR-SYNC-05: the flags Tern shows, from the server's.
    public func applyingServerFlags(to email: Email) -> Email {
        var email = email
        let flags = Set(serverFlags.map { $0.lowercased() })
        email.isRead = flags.contains("\\seen")
        email.isStarred = flags.contains("\\flagged")
        email.isAnswered = flags.contains("\\answered")
        email.isDraft = flags.contains("\\draft")
        return email
    }
}

/// What storing a batch did.
public struct StoredBatch: Sendable, Hashable {
    /// New Email rows.
    public var inserted = 0
    /// Messages already stored (another folder, or seen before) that gained or kept a folder association.
    public var linked = 0
    /// Threads whose metadata was recomputed.
    public var threadsTouched: Set<ThreadID> = []
    /// Threads merged into others (late parents, subject matches) and removed.
    public var threadsRemoved: Set<ThreadID> = []
    /// The new messages, for "new mail" notices.
    public var newMessages: [NewMessage] = []

    public init() {}
}

/// A message that just arrived, as a notice shows it.
public struct NewMessage: Sendable, Hashable, Codable {
    public var emailId: EmailID
    public var from: EmailAddress
    public var subject: String
    public var date: Date
    /// Issue 36's notifications: the thread a click opens, whether it was read elsewhere before it
    /// arrived here (no notice then), and whether it arrived in the Inbox (the only folder notified).
    public var threadId: ThreadID?
    public var isRead: Bool
    public var inInbox: Bool

    public init(
        emailId: EmailID, from: EmailAddress, subject: String, date: Date, threadId: ThreadID? = nil, isRead: Bool = false,
        inInbox: Bool = false
    ) {
        self.emailId = emailId
        self.from = from
        self.subject = subject
        self.date = date
        self.threadId = threadId
        self.isRead = isRead
        self.inInbox = inInbox
    }
}
