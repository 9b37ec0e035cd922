import Foundation

/// A folder as `tern folders` lists it.
public struct FolderSummary: Sendable, Hashable, Codable {
    public var account: String
    public var path: String
    public var folderType: FolderType
    public var messageCount: Int
    public var unreadCount: Int
    public var lastSyncDate: Date?

    public init(account: String, path: String, folderType: FolderType, messageCount: Int, unreadCount: Int, lastSyncDate: Date?) {
        self.account = account
        self.path = path
        self.folderType = folderType
        self.messageCount = messageCount
        self.unreadCount = unreadCount
        self.lastSyncDate = lastSyncDate
    }
}

/// A row of the thread list (FR-SYNC-06 step 5 metadata, per folder).
public struct ThreadSummary: Sendable, Hashable, Codable {
    public var id: Int64
    public var account: String
    public var subject: String
    public var latestDate: Date
    public var messageCount: Int
    public var unreadCount: Int
    public var participants: [EmailAddress]
    public var snippet: String?

    public init(id: Int64, account: String, subject: String, latestDate: Date, messageCount: Int, unreadCount: Int,
                participants: [EmailAddress], snippet: String?) {
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
    public var emailId: Int64
    public var threadId: Int64?
    public var account: String
    public var subject: String
    public var from: EmailAddress
    public var date: Date
    public var snippet: String?

    public init(emailId: Int64, threadId: Int64?, account: String, subject: String, from: EmailAddress, date: Date, snippet: String?) {
        self.emailId = emailId
        self.threadId = threadId
        self.account = account
        self.subject = subject
        self.from = from
        self.date = date
        self.snippet = snippet
    }
}

/// The read side front ends list mail with.
public protocol MailQueries: Sendable {
    func folders(account: String?) async throws -> [FolderSummary]
    /// Newest first. `folder` is a path, or nil for every account's Inbox (the unified inbox).
    func threads(account: String?, folder: String?, limit: Int) async throws -> [ThreadSummary]
    /// Full-text search (FTS5): every word must match, as a word or the start of one; newest first.
    func search(_ query: String, account: String?, limit: Int) async throws -> [SearchHit]
}
