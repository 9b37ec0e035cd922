import Foundation
import TernCore

/// One row of the thread list: who, subject, snippet, when, and unread by weight, a dot and words
/// (never by colour alone, NFR-ED-03). The row is a link, so it opens without script too.
struct ThreadRow: Sendable {
    /// Nil for a draft's row (issue 33: a draft's id is not a thread's).
    var id: ThreadID?
    var participants: String
    var subject: String
    var snippet: String
    var date: Date
    var messageCount: Int
    var unread: Bool
    var account: AccountName
    /// A draft's row opens the composer instead of a conversation.
    var composer: ComposeTarget?
    /// Issue 36: in Snoozed, when the conversation comes back to the Inbox.
    var wake: Date?

    init(_ summary: ThreadSummary) {
        id = summary.id
        participants = Self.names(summary.participants)
        subject = summary.subject
        snippet = summary.snippet ?? ""
        date = summary.latestDate
        messageCount = summary.messageCount
        unread = summary.unreadCount > 0
        account = summary.account
    }

    init(_ hit: SearchHit) {
        id = hit.threadId
        participants = hit.from.name.flatMap { $0.isEmpty ? nil : $0 } ?? hit.from.address
        subject = hit.subject
        snippet = hit.snippet ?? ""
        date = hit.date
        messageCount = 1
        unread = false
        account = hit.account
    }

    init(_ draft: DraftSummary, account: AccountName) {
        id = nil
        participants = draft.to.isEmpty ? "(no recipient)" : "To " + Self.names(draft.to)
        subject = draft.subject
        snippet = draft.snippet
        date = draft.updatedDate
        messageCount = 1
        unread = false
        self.account = account
        composer = ComposeTarget(draftId: draft.localDraftId, serverDraftId: draft.serverEmailId)
    }

    /// The row's identity for the list's script (focus kept across redraws): `data-row` is `t12` for
    /// a thread and `d5` or `m34` for a draft; only a thread's row carries `data-thread-id`.
    var rowKey: HTMLText {
        if let id { return "data-row=\"t\(id)\" data-thread-id=\"\(id)\"" }
        if let draft = composer?.draftId { return "data-row=\"d\(draft)\"" }
        if let server = composer?.serverDraftId { return "data-row=\"m\(server)\"" }
        return ""
    }

    static func names(_ people: [EmailAddress]) -> String {
        let names = people.prefix(4).map { person in
            let name = person.name.flatMap { $0.isEmpty ? nil : $0 } ?? person.address
            return String(name.split(separator: " ").first ?? Substring(name))
        }
        return names.isEmpty ? "(no sender)" : names.joined(separator: ", ") + (people.count > 4 ? " …" : "")
    }

    func render(location: MailLocation, time: RelativeTime, selected: Bool) -> HTMLText {
        let subjectText = subject.isEmpty ? "(no subject)" : subject
        let count: HTMLText = messageCount > 1 ? " <span class=\"message-count\">\(messageCount)</span>" : ""
        let state = unread ? "Unread. " : ""
        let wakeText = wake.map { "Snoozed until \(time.full($0))" }
        let label =
            "\(state)\(participants), \(subjectText), \(time.full(date))" + (messageCount > 1 ? ", \(messageCount) messages" : "")
            + (wakeText.map { ", \($0)" } ?? "")
        let wakeLine: HTMLText = wakeText.map { text -> HTMLText in "<span class=\"snooze-wake\">\(text). </span>" } ?? ""
        var href = location.listOnly
        if let composer {
            href.compose = composer
        } else if let id {
            href = location.opening(id)
        }
        return """
            <li class="thread-row\(html: unread ? " unread" : "")" \(html: rowKey)><a class="\(composer == nil ? "thread-link" : "compose-link draft-link")" href="\(href.url)" aria-label="\(composer == nil ? label : "Draft. " + label)"\(html: selected ? " aria-current=\"true\"" : "")>\
            <span class="unread-dot" aria-hidden="true"></span>\
            <span class="participants">\(participants)\(html: count)</span>\
            <span class="subject">\(subjectText)</span>\
            <span class="snippet">\(html: wakeLine)\(snippet)</span>\
            <time class="date" datetime="\(RelativeTime.iso(date))" title="\(time.full(date))">\(time.short(date))</time></a></li>
            """
    }
}

/// The second pane: the list's heading, its rows, and its end: "Load more" while the store has
/// more, then (a server folder whose history is not all stored) "Load older mail from the server"
/// (FR-SYNC-01 step 5, fetched by the script when it scrolls into view), then "No more
/// conversations". Empty lists and failures say so in words.
struct ThreadListView: Sendable {
    static let pageSize = 50

    var location: MailLocation
    var rows: [ThreadRow]
    /// The store may hold more rows after these.
    var hasMore: Bool
    /// Where the next page starts (`before=` in the fragment's address).
    var nextCursor: ThreadListCursor?
    var error: String?
    /// FR-SYNC-01 step 5: the folder's whole server history is stored, so nothing older is offered.
    var historyComplete = false
    /// Issue 36: the search could not be read (`SearchViews.filters` says which part), so nothing was searched.
    var searchUnreadable = false

    func render() -> HTMLText {
        let filters: HTMLText = if case .search(let text) = location.source { SearchViews.filters(for: text, location: location) } else { "" }
        return """
            <div class="list-header"><h2 id="list-title">\(location.title)</h2></div>
            \(html: filters)\(html: items())
            """
    }

    func items() -> HTMLText {
        let time = RelativeTime()
        if let error {
            return """
                <div class="list-state" role="alert"><p>Couldn't load conversations: \(error)</p>\
                <p><a class="button" href="\(location.listOnly.url)">Retry</a></p></div>
                """
        }
        if searchUnreadable {
            return "<p class=\"list-state\" id=\"thread-list\" tabindex=\"-1\">Nothing was searched: change the search above.</p>"
        }
        if rows.isEmpty {
            let text = location.isSearch ? "No messages match your search." : "No conversations here."
            return "<p class=\"list-state\" id=\"thread-list\" tabindex=\"-1\">\(text)</p>"
        }
        var list = HTMLText()
        for row in rows { list += row.render(location: location.listOnly, time: time, selected: row.id == location.threadId) }
        return """
            <ul class="thread-list" id="thread-list" tabindex="-1" aria-labelledby="list-title">\(html: list)</ul>
            \(html: footer())
            """
    }

    /// Rows after the first page, for `app.js` to append, with the new footer.
    func continuation() -> HTMLText {
        let time = RelativeTime()
        var list = HTMLText()
        for row in rows { list += row.render(location: location.listOnly, time: time, selected: false) }
        return "<template data-rows>\(html: list)</template>\(html: footer())"
    }

    func footer() -> HTMLText {
        if hasMore, let nextCursor {
            var items = location.listOnly.queryItems
            items += nextCursor.queryItems
            let href = MailLocation.url(path: "mail", items: items)
            let fragment = MailLocation.url(path: "fragments/threads", items: items)
            return """
                <div class="list-footer" id="list-footer"><a class="button load-more" href="\(href)" data-fragment="\(fragment)">Load more conversations</a></div>
                """
        }
        if case .folder(let account, let path) = location.source, !historyComplete {
            let items = [URLQueryItem(name: "account", value: account.rawValue), URLQueryItem(name: "folder", value: path)]
            return """
                <div class="list-footer" id="list-footer"><form method="post" action="actions/load-older" data-older>\
                \(html: hiddenFields(items))<button type="submit" class="button">Load older mail from the server</button></form></div>
                """
        }
        return "<div class=\"list-footer\" id=\"list-footer\"><p class=\"list-end\">No more conversations.</p></div>"
    }

    private func hiddenFields(_ items: [URLQueryItem]) -> HTMLText {
        var fields = HTMLText()
        for item in items { fields += "<input type=\"hidden\" name=\"\(item.name)\" value=\"\(item.value ?? "")\">" }
        return fields
    }
}
