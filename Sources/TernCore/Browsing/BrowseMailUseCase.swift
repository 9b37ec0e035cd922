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
    /// Issue 36: folder changes waiting for their undo window or the server, laid over the folder list.
    let pendingFolders: (any PendingFolderChangeStore)?
    let accounts: (any AccountRepository)?

    public init(
        queries: any MailQueries, now: @escaping @Sendable () -> Date = { Date() }, calendar: Calendar = .current,
        pendingFolders: (any PendingFolderChangeStore)? = nil, accounts: (any AccountRepository)? = nil
    ) {
        self.queries = queries
        self.pendingFolders = pendingFolders
        self.accounts = accounts
        self.now = now
        self.calendar = calendar
    }

    /// The folders of one account, or of every account.
    /// Folder changes still waiting show as made (issue 36: the new folder there, the new name, the folder gone).
    public func folders(account: AccountName?) async throws -> [FolderSummary] {
        let stored = try await queries.folders(account: account)
        guard let pendingFolders, let accounts else { return stored }
        let waiting = try await pendingFolders.pendingFolderChanges(accountId: nil)
        guard !waiting.isEmpty else { return stored }
        let names = Dictionary(uniqueKeysWithValues: try await accounts.allAccounts().map { ($0.id, $0.name) })
        return PendingFolderChanges.overlay(stored, waiting, accounts: names)
    }

    /// One page, newest first, of at most `limit` threads older than `cursor`.
    public func threads(_ source: ThreadListSource, before cursor: ThreadListCursor?, limit: Int) async throws -> [ThreadSummary] {
        switch source {
        case .folder(let account, let path?):
            // A folder renamed or created here whose change waits: its messages are still stored under the old name, or none.
            guard let stored = try await storedPath(path, account: account) else { return [] }
            return try await queries.threads(account: account, folder: stored, before: cursor, limit: limit)
        case .folder(let account, let path): return try await queries.threads(account: account, folder: path, before: cursor, limit: limit)
        case .virtual(let view, let account): return try await queries.threads(in: view, account: account, before: cursor, limit: limit)
        }
    }

    /// Whether a folder's list has reached its server history's start (the list's end offers no older mail).
    public func historyComplete(account: AccountName, folder: String) async throws -> Bool {
        guard let stored = try await storedPath(folder, account: account) else { return true }
        return try await queries.historyComplete(account: account, folder: stored)
    }

    /// The stored path of a folder as the overlaid list names it; nil for one only created here so far.
    func storedPath(_ shown: String, account name: AccountName?) async throws -> String? {
        guard let pendingFolders, let accounts, let name, let account = try await accounts.account(named: name) else { return shown }
        let waiting = try await pendingFolders.pendingFolderChanges(accountId: account.id)
        return waiting.isEmpty ? shown : PendingFolderChanges.storedPath(shown, account: account.id, waiting)
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
