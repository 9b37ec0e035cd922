import Foundation
import TernCore

/// Where the user is, as the address bar says it (`/mail?account=…&folder=…&thread=…`): every view
/// has a URL, so reload and Back keep the place. The thread list's source is one of: the unified
/// Inbox (nothing named), an account's folder, a virtual view (Archive, Outbox), or a search.
struct MailLocation: Sendable, Hashable {
    enum Source: Sendable, Hashable {
        case unifiedInbox
        case folder(account: AccountName, path: String)
        case virtual(VirtualMailbox, account: AccountName?)
        /// FR-COMP-01 "Draft resume": an account's drafts, local and synced, each opening the composer.
        case drafts(account: AccountName?)
        case search(String)
    }

    var source: Source
    var threadId: ThreadID?
    /// FR-ED-05: "Show earlier messages" pages loaded above the first.
    var earlierPages = 0
    /// The pages a URL may ask for: 25,000 messages above the first page (issue 32).
    static let earlierPagesRange = 1...1_000
    /// Messages the user expanded, and those with "Load remote images".
    var expanded: Set<EmailID> = []
    var remoteImages: Set<EmailID> = []
    /// The composer open in the third pane (issue 18).
    var compose: ComposeTarget?

    init(source: Source, threadId: ThreadID? = nil) {
        self.source = source
        self.threadId = threadId
    }

    init(query: FormFields) {
        let account = AccountName(field: query["account"])
        if let text = query["q"], !text.trimmingCharacters(in: .whitespaces).isEmpty {
            source = .search(text)
        } else if query["view"] == "drafts" {
            source = .drafts(account: account)
        } else if let view = query["view"].flatMap(VirtualMailbox.init(rawValue:)) {
            source = .virtual(view, account: account)
        } else if let account, let folder = query["folder"], !folder.isEmpty {
            source = .folder(account: account, path: folder)
        } else {
            source = .unifiedInbox
        }
        threadId = query["thread"].flatMap { ThreadID($0) }
        earlierPages = min(max(query["earlier"].flatMap { Int($0) } ?? 0, 0), Self.earlierPagesRange.upperBound)
        expanded = Self.ids(query["open"])
        remoteImages = Self.ids(query["images"])
        compose = ComposeTarget(query: query)
    }

    private static func ids(_ text: String?) -> Set<EmailID> {
        Set((text ?? "").split(separator: ",").prefix(500).compactMap { EmailID(String($0)) })
    }

    /// The account whose folder or view is shown (nil for the unified Inbox and search): a new
    /// message is sent from it unless the From picker says otherwise (CO01-M1).
    var accountName: AccountName? {
        switch source {
        case .folder(let account, _): account
        case .virtual(_, let account), .drafts(let account): account
        case .unifiedInbox, .search: nil
        }
    }

    /// The list without a thread open (Back, in the one-pane layout).
    var listOnly: MailLocation { MailLocation(source: source) }

    func opening(_ threadId: ThreadID) -> MailLocation { MailLocation(source: source, threadId: threadId) }

    var queryItems: [URLQueryItem] {
        var items: [URLQueryItem] = []
        switch source {
        case .unifiedInbox: break
        case .folder(let account, let path):
            items += [URLQueryItem(name: "account", value: account.rawValue), URLQueryItem(name: "folder", value: path)]
        case .virtual(let view, let account):
            if let account { items.append(URLQueryItem(name: "account", value: account.rawValue)) }
            items.append(URLQueryItem(name: "view", value: view.rawValue))
        case .drafts(let account):
            if let account { items.append(URLQueryItem(name: "account", value: account.rawValue)) }
            items.append(URLQueryItem(name: "view", value: "drafts"))
        case .search(let text): items.append(URLQueryItem(name: "q", value: text))
        }
        if let threadId { items.append(URLQueryItem(name: "thread", value: String(threadId))) }
        if earlierPages > 0 { items.append(URLQueryItem(name: "earlier", value: String(earlierPages))) }
        if !expanded.isEmpty { items.append(URLQueryItem(name: "open", value: expanded.sorted().map(String.init).joined(separator: ","))) }
        if !remoteImages.isEmpty {
            items.append(URLQueryItem(name: "images", value: remoteImages.sorted().map(String.init).joined(separator: ",")))
        }
        if let compose { items += compose.queryItems }
        return items
    }

    /// `mail?…`, percent-encoded for an attribute (escape it there all the same): relative, so the
    /// page's `<base>` puts it under the app's secret path (issue 32).
    var url: String { Self.url(path: "mail", items: queryItems) }
    /// `/mail?…`: the app's own path, for a redirect back here (`return` fields).
    var returnPath: String { "/" + url }

    static func url(path: String, items: [URLQueryItem]) -> String {
        guard !items.isEmpty else { return path }
        var components = URLComponents()
        components.path = path
        components.queryItems = items
        // `+` is a space in a form query: keep it from being read as one.
        return (components.string ?? path).replacingOccurrences(of: "+", with: "%2B")
    }

    /// What the list is called: the page's title and first heading.
    var title: String {
        switch source {
        case .unifiedInbox: "Inbox"
        case .folder(let account, let path): "\(FolderNames.display(path)) — \(account)"
        case .virtual(.archive, _): "Archive"
        case .virtual(.outbox, _): "Outbox"
        case .drafts(let account): account.map { "Drafts — \($0)" } ?? "Drafts"
        case .search(let text): "Search: \(text)"
        }
    }

    var isSearch: Bool { if case .search = source { true } else { false } }
}

/// Folder paths as people read them: Gmail's `[Gmail]/` prefix left out.
enum FolderNames {
    static func display(_ path: String) -> String {
        if path.uppercased() == "INBOX" { return "Inbox" }
        if let range = path.range(of: "[Gmail]/", options: [.anchored, .caseInsensitive]) { return String(path[range.upperBound...]) }
        return path
    }
}
