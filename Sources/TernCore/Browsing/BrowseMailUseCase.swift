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

    public init(queries: any MailQueries) {
        self.queries = queries
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

    /// Messages matching `text` (FTS5), best first.
    public func search(_ text: String, account: AccountName?, limit: Int) async throws -> [SearchHit] {
        try await queries.search(text, account: account, limit: limit)
    }
}
