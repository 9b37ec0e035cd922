import Foundation

/// A folder as `tern folders` lists it.
public struct FolderSummary: Sendable, Hashable, Codable {
    public var account: AccountName
    public var path: String
    public var folderType: FolderType
    public var messageCount: Int
    public var unreadCount: Int
    public var lastSyncDate: Date?
    /// FR-SYNC-01 step 5: the folder's whole history on the server is stored; nothing older to ask for.
    public var historyComplete: Bool

    public init(
        account: AccountName, path: String, folderType: FolderType, messageCount: Int, unreadCount: Int, lastSyncDate: Date?,
        historyComplete: Bool = false
    ) {
        self.account = account
        self.path = path
        self.folderType = folderType
        self.messageCount = messageCount
        self.unreadCount = unreadCount
        self.lastSyncDate = lastSyncDate
        self.historyComplete = historyComplete
    }
}

/// A row of the thread list (FR-SYNC-06 step 5 metadata, per folder).
public struct ThreadSummary: Sendable, Hashable, Codable {
    public var id: ThreadID
    public var account: AccountName
    public var subject: String
    public var latestDate: Date
    public var messageCount: Int
    public var unreadCount: Int
    public var participants: [EmailAddress]
    public var snippet: String?

    public init(
        id: ThreadID, account: AccountName, subject: String, latestDate: Date, messageCount: Int, unreadCount: Int,
        participants: [EmailAddress], snippet: String?
    ) {
        self.id = id
        self.account = account
        self.subject = subject
        self.latestDate = latestDate
        self.messageCount = messageCount
        self.unreadCount = unreadCount
        self.participants = participants
        self.snippet = snippet
    }
}

/// A message found by `tern search`.
public struct SearchHit: Sendable, Hashable, Codable {
    public var emailId: EmailID
    public var threadId: ThreadID?
    public var account: AccountName
    public var subject: String
    public var from: EmailAddress
    public var date: Date
    public var snippet: String?

    public init(emailId: EmailID, threadId: ThreadID?, account: AccountName, subject: String, from: EmailAddress, date: Date, snippet: String?) {
        self.emailId = emailId
        self.threadId = threadId
        self.account = account
        self.subject = subject
        self.from = from
        self.date = date
        self.snippet = snippet
    }
}

/// One message of a thread as `tern thread` shows it.
public struct ThreadMessage: Sendable, Hashable, Codable {
    public var emailId: EmailID
    public var subject: String
    public var from: EmailAddress
    public var to: [EmailAddress]
    public var cc: [EmailAddress]
    public var date: Date
    public var isRead: Bool
    public var isStarred: Bool
    public var bodyPlain: String?
    public var bodyHTML: String?
    public var bodiesFetched: Bool
    public var folders: [String]
    public var attachments: [AttachmentSummary]
    /// FR-SYNC-07: where a message written here is in the send pipeline (`none` for received mail).
    public var sendState: SendState = .none
    public var sendError: String?
    /// Send later (issue 36): the time a queued message waits for.
    public var scheduledAt: Date?
    /// The Message-ID header as received (FR-COMP-01 replies quote it in In-Reply-To).
    public var messageId: String?
    public var snippet: String?
    /// FR-SYNC-01 step 7: the body was cut at the 10 MB limit.
    public var bodyTruncated = false
    /// Issue 32: whether the account's provider vouched for `from`, by the results stored with the
    /// message and the account's authserv-id as they are now.
    public var senderAuthentication = SenderAuthentication(verdict: .unknown, authservId: nil)
    /// Issue 37's privacy report: the provider's SPF, DKIM and DMARC results.
    public var authenticationChecks = AuthenticationChecks()
    /// Issue 37: the message's read-receipt request and what became of it.
    public var readReceiptTo: [EmailAddress] = []
    public var readReceiptState: ReadReceiptState?
    /// A copy carries `$MDNSent` (RFC 3503).
    public var receiptFlaggedOnServer = false
    public var bulkMarkers: BulkMailMarkers = []

    public init(
        emailId: EmailID, subject: String, from: EmailAddress, to: [EmailAddress], cc: [EmailAddress], date: Date, isRead: Bool,
        isStarred: Bool, bodyPlain: String?, bodyHTML: String?, bodiesFetched: Bool, folders: [String], attachments: [AttachmentSummary]
    ) {
        self.emailId = emailId
        self.subject = subject
        self.from = from
        self.to = to
        self.cc = cc
        self.date = date
        self.isRead = isRead
        self.isStarred = isStarred
        self.bodyPlain = bodyPlain
        self.bodyHTML = bodyHTML
        self.bodiesFetched = bodiesFetched
        self.folders = folders
        self.attachments = attachments
    }
}

public struct AttachmentSummary: Sendable, Hashable, Codable {
    public var id: AttachmentID
    public var filename: String
    public var mimeType: String
    public var sizeBytes: Int64
    public var isDownloaded: Bool
    /// The `cid:` an HTML body names it by (FR-ED-03 inline images).
    public var contentId: String?
    public var isInline: Bool

    public init(
        id: AttachmentID, filename: String, mimeType: String, sizeBytes: Int64, isDownloaded: Bool, contentId: String? = nil,
        isInline: Bool = false
    ) {
        self.id = id
        self.filename = filename
        self.mimeType = mimeType
        self.sizeBytes = sizeBytes
        self.isDownloaded = isDownloaded
        self.contentId = contentId
        self.isInline = isInline
    }
}

/// A thread before its bodies are read: enough to choose a page and what to expand (FR-ED-01, 05).
public struct ThreadOutline: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public var emailId: EmailID
        public var date: Date
        public var isRead: Bool

        public init(emailId: EmailID, date: Date, isRead: Bool) {
            self.emailId = emailId
            self.date = date
            self.isRead = isRead
        }
    }

    public var threadId: ThreadID
    public var subject: String
    /// Oldest first, as the thread is shown.
    public var entries: [Entry]

    public init(threadId: ThreadID, subject: String, entries: [Entry]) {
        self.threadId = threadId
        self.subject = subject
        self.entries = entries
    }
}

/// Views that exist only locally.
public enum VirtualMailbox: String, Sendable, Hashable, Codable, CaseIterable {
    /// FR-SYNC-10: emails in no synced folder (Gmail's All Mail) or only in the server's Archive
    /// folders (`\Archive`), neither deleted nor trashed nor being sent.
    case archive
    /// FR-SYNC-07: emails whose sendState is queued, sending or failed.
    case outbox
}

/// The read side front ends list mail with.
public protocol MailQueries: Sendable {
    func folders(account: AccountName?) async throws -> [FolderSummary]
    /// Newest first. `folder` is a path, or nil for every account's Inbox (the unified inbox);
    /// `before`: the rows after that one (the next page as the user scrolls).
    func threads(account: AccountName?, folder: String?, before: ThreadListCursor?, limit: Int) async throws -> [ThreadSummary]
    /// The views that are queries, not IMAP folders (FR-SYNC-07 Outbox, FR-SYNC-10 Archive).
    func threads(in view: VirtualMailbox, account: AccountName?, before: ThreadListCursor?, limit: Int) async throws -> [ThreadSummary]
    /// A thread's messages, oldest first; nil when there is no such thread.
    func thread(id: ThreadID) async throws -> [ThreadMessage]?
    /// FR-ED-05: what a thread holds, without bodies, oldest first (cheap for 500 messages); nil when
    /// there is no such thread.
    func threadOutline(id: ThreadID) async throws -> ThreadOutline?
    /// Whole messages (bodies, folders, attachments) by id, oldest first: one page of a thread.
    func threadMessages(ids: [EmailID]) async throws -> [ThreadMessage]
    /// The messages matching `query` (issue 36: words, phrases and Gmail's operators), newest first.
    /// `now` and `calendar` turn `older_than:`, `before:` and their kind into instants.
    func search(_ query: SearchQuery, account: AccountName?, limit: Int, now: Date, calendar: Calendar) async throws -> [SearchHit]
    /// FR-SYNC-01 step 5: whether the folder's whole history on the server is stored (no older mail
    /// to fetch). False for a folder that is not there.
    func historyComplete(account: AccountName, folder: String) async throws -> Bool
}

extension MailQueries {
    /// From the folder list, for doubles; the store answers with one indexed read.
    public func historyComplete(account: AccountName, folder: String) async throws -> Bool {
        try await folders(account: account).first { $0.path == folder }?.historyComplete ?? false
    }

    /// `text` read by `SearchQueryParser` and searched now, in the process's calendar; nothing for an
    /// empty query. Throws `SearchQueryError` for a query that cannot be read.
    public func search(_ text: String, account: AccountName?, limit: Int) async throws -> [SearchHit] {
        guard let query = try SearchQueryParser().parse(text).query else { return [] }
        return try await search(query, account: account, limit: limit, now: Date(), calendar: .current)
    }

    public func threads(account: AccountName?, folder: String?, limit: Int) async throws -> [ThreadSummary] {
        try await threads(account: account, folder: folder, before: nil, limit: limit)
    }

    public func threads(in view: VirtualMailbox, account: AccountName?, limit: Int) async throws -> [ThreadSummary] {
        try await threads(in: view, account: account, before: nil, limit: limit)
    }
}

/// Where a page of a thread list ends: lists are ordered newest first, ties by thread id, so the
/// next page is "older than this row" however many rows arrive meanwhile (keyset paging).
public struct ThreadListCursor: Sendable, Hashable, Codable {
    public var latestDate: Date
    public var threadId: ThreadID

    public init(latestDate: Date, threadId: ThreadID) {
        self.latestDate = latestDate
        self.threadId = threadId
    }

    public init(after summary: ThreadSummary) { self.init(latestDate: summary.latestDate, threadId: summary.id) }
}
