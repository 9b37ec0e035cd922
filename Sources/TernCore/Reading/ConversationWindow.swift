import Foundation

/// FR-ED-05 and FR-ED-01's rules for which messages of a thread a page holds and which are expanded.
/// Pure: the use case reads the outline, asks this, then reads only the chosen messages' bodies.
public struct ConversationWindow: Sendable, Hashable {
    /// FR-ED-05: threads above this many messages are paged.
    public static let pagingThreshold = 50
    /// FR-ED-05: the first page is the newest 25; each "Show earlier messages" adds 25 older.
    public static let pageSize = 25

    /// Indexes into the outline's entries (oldest first), ascending.
    public var indexes: [Int]
    /// Messages older than the page that are not in it.
    public var earlierCount: Int

    /// `earlierPages`: how many "Show earlier messages" pages are loaded on top of the first.
    public init(entries: [ThreadOutline.Entry], earlierPages: Int = 0) {
        let count = entries.count
        guard count > Self.pagingThreshold else {
            indexes = Array(0..<count)
            earlierCount = 0
            return
        }
        let start = max(0, count - Self.pageSize * (1 + Self.clampedPages(earlierPages, count: count)))
        var chosen = Array(start..<count)
        // FR-ED-05: "the most recent unread message MUST always be included in the initial load".
        if let latestUnread = entries.lastIndex(where: { !$0.isRead }), latestUnread < start {
            chosen.insert(latestUnread, at: 0)
        }
        indexes = chosen
        earlierCount = start - (chosen.count > count - start ? 1 : 0)
    }

    /// The `page`th page of earlier messages (1 is the one just above the first page), without
    /// messages the first page already holds (the latest unread).
    public static func earlierPage(_ page: Int, of entries: [ThreadOutline.Entry]) -> (indexes: [Int], remaining: Int) {
        let first = ConversationWindow(entries: entries)
        guard entries.count > pagingThreshold, page >= 1 else { return ([], first.earlierCount) }
        let end = max(0, entries.count - pageSize * clampedPages(page, count: entries.count))
        let start = max(0, end - pageSize)
        let shown = Set(first.indexes)
        let indexes = (start..<end).filter { !shown.contains($0) }
        let remaining = (0..<start).filter { !shown.contains($0) }.count
        return (indexes, remaining)
    }

    /// A page number is outside input (a URL, a flag): past the thread's last page every number means
    /// the same, so it is cut there before it is multiplied (issue 32: `Int.max` trapped).
    static func clampedPages(_ pages: Int, count: Int) -> Int {
        min(max(0, pages), count / pageSize + 1)
    }

    /// FR-ED-01: read messages collapsed, unread ones expanded; when every message is read, the latest
    /// is expanded. Decided on the read state *before* opening marked them read.
    public static func expanded(entries: [ThreadOutline.Entry]) -> Set<EmailID> {
        let unread = entries.filter { !$0.isRead }.map(\.emailId)
        if !unread.isEmpty { return Set(unread) }
        return entries.last.map { [$0.emailId] } ?? []
    }
}
