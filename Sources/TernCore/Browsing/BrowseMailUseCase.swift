import Foundation

/// Where a list of threads comes from, as a front end names it.
public enum ThreadListSource: Sendable, Hashable {
    /// Every account's Inbox (`account` nil, `folder` nil), or one folder of one account.
    case folder(account: AccountName?, path: String?)
    /// Archive, Outbox and the other views the store makes up.
    case virtual(VirtualMailbox, account: AccountName?)
}

/// The read side a front end browses (FR-ED-01): the folder pane, a page of a thread list, search.
/// Front ends call this, never `MailQueries` itself.
public struct BrowseMailUseCase: Sendable {
    let queries: any MailQueries
    /// The instant `older_than:` and `newer_than:` count back from.
    let now: @Sendable () -> Date
    /// The days `before:` and `after:` name start at midnight in its time zone.
    let calendar: Calendar

    public init(queries: any MailQueries, now: @escaping @Sendable () -> Date = { Date() }, calendar: Calendar = .current) {
        self.queries = queries
        self.now = now
        self.calendar = calendar
    }

    /// The folders of one account, or of every account.
    public func folders(account: AccountName?) async throws -> [FolderSummary] { try await queries.folders(account: account) }

    /// One page, newest first, of at most `limit` threads older than `cursor`.
    public func threads(_ source: ThreadListSource, before cursor: ThreadListCursor?, limit: Int) async throws -> [ThreadSummary] {
        switch source {
        case .folder(let account, let path): try await queries.threads(account: account, folder: path, before: cursor, limit: limit)
        case .virtual(let view, let account): try await queries.threads(in: view, account: account, before: cursor, limit: limit)
        }
    }

    /// Whether a folder's list has reached its server history's start (the list's end offers no older mail).
    public func historyComplete(account: AccountName, folder: String) async throws -> Bool {
        try await queries.historyComplete(account: account, folder: folder)
    }

    /// Messages matching `text` (words, phrases and Gmail's operators, issue 36), newest first.
    /// Throws `SearchQueryError`, naming the part, for a query that cannot be read.
    public func search(_ text: String, account: AccountName?, limit: Int) async throws -> [SearchHit] {
        try await search(SearchQueryParser().parse(text), account: account, limit: limit)
    }

    /// A query already read (the web app reads it first for its chips).
    public func search(_ parsed: ParsedSearch, account: AccountName?, limit: Int) async throws -> [SearchHit] {
        guard let query = parsed.query else { return [] }
        return try await queries.search(query, account: account, limit: limit, now: now(), calendar: calendar)
    }
}
