import Foundation
import TernCore

/// The first pane: the unified Inbox, the virtual Archive and Outbox, then each account's folders
/// with unread counts and the account's sync state (FR-SYNC-04), in words as well as a mark.
struct FolderPane: Sendable {
    var accounts: [Account]
    var folders: [FolderSummary]
    var syncStates: [AccountID: SyncStatus]
    var location: MailLocation
    /// An account never synced is about to be (one was just added here).
    var expectsFirstSync = false

    /// Folders shown in this order first; the rest by name.
    static let order: [FolderType] = [.inbox, .starred, .sent, .drafts, .archive, .spam, .trash]

    func render() -> HTMLText {
        let unifiedUnread = folders.filter { $0.folderType == .inbox }.reduce(0) { $0 + $1.unreadCount }
        var items = HTMLText()
        items += link(title: "Inbox", unread: unifiedUnread, target: MailLocation(source: .unifiedInbox), icon: "inbox")
        items += link(title: "Archive", unread: 0, target: MailLocation(source: .virtual(.archive, account: nil)), icon: "archive")
        items += link(title: "Outbox", unread: 0, target: MailLocation(source: .virtual(.outbox, account: nil)), icon: "outbox")
        var sections = HTMLText()
        for account in accounts {
            let own = folders.filter { $0.account == account.name && $0.folderType.isSyncable }.sorted(by: Self.folderOrder)
            var accountItems = HTMLText()
            for folder in own {
                // Drafts list local and synced drafts together, and open the composer (FR-COMP-01 "Draft resume").
                let source: MailLocation.Source =
                    folder.folderType == .drafts
                    ? .drafts(account: account.name) : .folder(account: account.name, path: folder.path)
                accountItems += link(
                    title: FolderNames.display(folder.path), unread: folder.folderType == .drafts ? 0 : folder.unreadCount,
                    target: MailLocation(source: source), icon: icon(folder.folderType),
                    destination: folder.folderType == .drafts ? nil : (account.name, folder.path, folder.folderType == .custom),
                    messages: folder.messageCount)
            }
            let headingId = "account-\(account.id)"
            let lastSync = own.compactMap(\.lastSyncDate).max() ?? account.lastSyncDate
            sections += """
                <section class="account" aria-labelledby="\(headingId)">
                <h2 id="\(headingId)" class="account-name">\(account.name)</h2>
                \(html: SyncStatusView(account: account, status: syncStates[account.id], lastSync: lastSync, expectsFirstSync: expectsFirstSync).render())
                <ul class="folder-list">\(html: accountItems)</ul>
                <button type="button" class="button new-folder" data-new-folder="\(account.name.rawValue)" hidden>\
                <span class="icon icon-folder" aria-hidden="true"></span>New folder<span class="visually-hidden"> in \(account.name)</span></button>
                </section>
                """
        }
        return """
            <nav class="folders-pane" id="folders-pane" aria-label="Folders">
            <ul class="folder-list">\(html: items)</ul>
            \(html: sections)
            </nav>
            """
    }

    /// `destination`: a folder messages can be moved to (issue 36: the Move dialog's choices and
    /// drop targets), with whether it is the person's own (renamed and deleted from its list).
    private func link(
        title: String, unread: Int, target: MailLocation, icon: String, destination: (AccountName, String, Bool)? = nil, messages: Int = 0
    ) -> HTMLText {
        let current = target.source == location.source
        let count: HTMLText = unread > 0 ? "<span class=\"unread-count\">\(unread)<span class=\"visually-hidden\"> unread</span></span>" : ""
        var data = HTMLText()
        if let destination {
            let (account, path, own) = destination
            // Issue 36: an own folder's message count, which Delete folder asks the person to confirm.
            let ownData: HTMLText = own ? " data-own-folder data-messages=\"\(messages)\"" : ""
            data = " data-account=\"\(account.rawValue)\" data-folder-path=\"\(path)\"\(html: ownData)"
        }
        return """
            <li><a class="folder-link" href="\(target.url)"\(html: current ? " aria-current=\"page\"" : "")\(html: data)><span class="icon icon-\(icon)" aria-hidden="true"></span><span class="folder-name">\(title)</span>\(html: count)</a></li>
            """
    }

    private func icon(_ type: FolderType) -> String {
        switch type {
        case .inbox: "inbox"
        case .sent: "sent"
        case .drafts: "drafts"
        case .trash: "trash"
        case .spam: "spam"
        case .starred: "star"
        case .archive: "archive"
        default: "folder"
        }
    }

    static func folderOrder(_ a: FolderSummary, _ b: FolderSummary) -> Bool {
        let x = order.firstIndex(of: a.folderType) ?? order.count
        let y = order.firstIndex(of: b.folderType) ?? order.count
        return x != y ? x < y : a.path.localizedStandardCompare(b.path) == .orderedAscending
    }
}

/// An account's sync state as the folder pane shows it (`aria-live` through the page's refresh).
struct SyncStatusView: Sendable {
    var account: Account
    var status: SyncStatus?
    var lastSync: Date?
    var expectsFirstSync = false

    func render() -> HTMLText {
        let (label, kind): (String, String) =
            if !account.isActive {
                ("Sign-in needed: run tern account login \(account.name)", "error")
            } else if let status {
                (status.text, status.kind)
            } else if let last = lastSync ?? account.lastSyncDate {
                ("Synced \(RelativeTime().short(last))", "idle")
            } else {
                ("Not synced yet", "idle")
            }
        // Issue 35: an account never synced is about to be; the page's script looks again once its stream is open.
        let firstSync: HTMLText =
            expectsFirstSync && account.isActive && status == nil && lastSync == nil && account.lastSyncDate == nil ? " data-first-sync" : ""
        var line: HTMLText =
            "<p class=\"sync-state sync-\(kind)\" data-account=\"\(account.id.rawValue)\"\(html: firstSync)><span class=\"icon icon-sync-\(kind)\" aria-hidden=\"true\"></span>\(label)</p>"
        line += HeaderProgressText.bar(account: account, headers: status?.headersText == nil ? nil : status?.headers)
        return line
    }
}

/// The latest sync state the change feed reported for an account.
struct SyncStatus: Sendable, Hashable {
    var state: SyncState
    var detail: String?
    var date: Date
    /// Issue 35: the first sync's headers fetched of its total, while it runs.
    var headers: FolderHeaderProgress?

    static func isBusy(_ state: SyncState) -> Bool {
        switch state {
        case .error, .idle, .listening, .paused: false
        default: true
        }
    }

    /// "Fetched 130 of 600 messages (Inbox: 30 of 100)", while the first sync runs.
    var headersText: String? {
        guard let headers, Self.isBusy(state) else { return nil }
        return HeaderProgressText.text(headers)
    }

    var kind: String {
        switch state {
        case .error: "error"
        case .idle, .listening: "idle"
        case .paused: "paused"
        default: "busy"
        }
    }

    var text: String {
        if let headersText { return headersText }
        return switch state {
        case .idle: "Up to date"
        case .listening: "Up to date, watching for new mail"
        case .connecting: "Connecting…"
        case .authenticating, .tokenRefresh: "Signing in…"
        case .syncingFolders, .initialFast, .catchingUp, .indexing: "Syncing…"
        case .paused: "Sync paused"
        case .error: "Couldn't sync" + (detail.map { ": \($0)" } ?? "")
        }
    }
}

/// Issue 35: the first sync's progress in words and as a progress bar (FR-SYNC-01's staged
/// bootstrap made visible); the page's script moves both as `headers` events come.
enum HeaderProgressText {
    static func text(_ headers: FolderHeaderProgress) -> String {
        let folder = FolderNames.display(headers.folderPath)
        return "Fetched \(headers.accountFetched) of \(headers.accountTotal) messages (\(folder): \(headers.fetched) of \(headers.total))"
    }

    static func bar(account: Account, headers: FolderHeaderProgress?) -> HTMLText {
        let hidden: HTMLText = headers == nil ? " hidden" : ""
        return """
            <progress class="sync-progress" data-account="\(account.id.rawValue)" max="\(max(headers?.accountTotal ?? 1, 1))" \
            value="\(headers?.accountFetched ?? 0)" aria-label="Messages fetched for \(account.name)"\(html: hidden)></progress>
            """
    }
}
