import FileNameSafety
import Foundation
import TernCore

/// The third pane: the Email Detail screen (FR-ED-01..05) for one page of a thread, in every state
/// of the spec's tables. Bodies are never in this markup: each is its own document in a sandboxed
/// frame (`BodyDocument`), so nothing in a message can reach the app's page.
struct ConversationView: Sendable {
    var conversation: Conversation
    var location: MailLocation
    var csrfToken: String
    /// FR-ED-02: the summary above the messages and the smart replies below them.
    var assist: SummarizeThreadUseCase.Opening = .off
    var time = RelativeTime()

    static let nothingSelected: HTMLText = """
        <div class="thread-state" id="conversation"><p>Select a conversation to read it.</p></div>
        """

    func render() -> HTMLText {
        var messages = HTMLText()
        for (index, message) in conversation.messages.enumerated() {
            var view = MessageView(message: message, threadId: conversation.threadId, location: location, csrfToken: csrfToken, time: time)
            view.fromHere = conversation.messages[index...].map(\.id)
            messages += view.render()
        }
        let subject = conversation.subject.isEmpty ? "(no subject)" : conversation.subject
        let offline: HTMLText =
            conversation.offline
            ? "<p class=\"banner\" role=\"status\">You're offline. Messages stored on this computer are shown.</p>" : ""
        return """
            <div class="conversation" id="conversation" data-thread-id="\(conversation.threadId)" data-location="\(location.url)">
            \(html: ThreadToolbar(threadId: conversation.threadId, location: location, csrfToken: csrfToken,
                              starred: conversation.messages.contains(where: \.isStarred),
                              latestMessageId: conversation.messages.last(where: { $0.sendState == .none })?.id).render())
            <h2 class="thread-subject" id="thread-subject" tabindex="-1">\(subject)</h2>
            \(html: offline)
            \(html: AssistSummaryView(threadId: conversation.threadId, panel: assist).render())
            \(html: earlierControl())
            <div class="messages" id="messages">\(html: messages)</div>
            \(html: smartReplies)
            </div>
            """
    }

    /// FR-ED-02: the placeholder the page fills with smart replies to the latest received message.
    var smartReplies: HTMLText {
        if case .off = assist { return "" }
        guard let latest = conversation.messages.last(where: { $0.sendState == .none })?.id else { return "" }
        return SmartRepliesView(threadId: conversation.threadId, place: .thread, replyTo: latest, location: location).placeholder()
    }

    /// FR-ED-05: "Show earlier messages" above the first page, keeping the reader's place.
    func earlierControl() -> HTMLText {
        guard conversation.hasEarlier else { return "" }
        var next = location
        next.earlierPages += 1
        let fragment = MailLocation.url(
            path: "fragments/earlier",
            items: [
                URLQueryItem(name: "thread", value: String(conversation.threadId)),
                URLQueryItem(name: "page", value: String(location.earlierPages + 1))
            ])
        return """
            <div class="earlier" id="earlier"><a class="button" href="\(next.url)" data-fragment="\(fragment)">Show earlier messages (\(conversation.earlierCount))</a></div>
            """
    }

    /// E-08: "This conversation appears empty", with the way back.
    static func empty(location: MailLocation) -> HTMLText {
        """
        <div class="thread-state" id="conversation"><h2 tabindex="-1">This conversation appears empty</h2>\
        <p><a class="button" href="\(location.listOnly.url)">Back to the list</a></p></div>
        """
    }

    /// FR-ED-01 error state: "Couldn't load this conversation", with Retry.
    static func failed(location: MailLocation, reason: String, title: String = "Couldn't load this conversation") -> HTMLText {
        """
        <div class="thread-state" id="conversation" role="alert"><h2 tabindex="-1">\(title)</h2><p>\(reason)</p>\
        <p><a class="button" href="\(location.url)">Retry</a> <a class="button" href="\(location.listOnly.url)">Back to the list</a></p></div>
        """
    }
}

/// The thread's actions. Reply, Reply all and Forward open the composer on the latest message;
/// the others are forms, so they work without script; `app.js` sends them in the background,
/// moves on, and shows the Undo toast.
struct ThreadToolbar: Sendable {
    var threadId: ThreadID
    var location: MailLocation
    var csrfToken: String
    var starred: Bool
    var latestMessageId: EmailID?

    func render() -> HTMLText {
        """
        <div class="toolbar" role="toolbar" aria-label="Conversation actions" aria-controls="conversation">
        <a class="button back-button" href="\(location.listOnly.url)" aria-keyshortcuts="u"><span class="icon icon-back" aria-hidden="true"></span>Back</a>
        \(html: composeLink(.reply, "Reply", key: "r", icon: "reply"))
        \(html: composeLink(.replyAll, "Reply all", key: "a", icon: "reply-all"))
        \(html: composeLink(.forward, "Forward", key: "f", icon: "forward"))
        \(html: button("archive", "Archive", key: "e", icon: "archive"))
        \(html: button("delete", "Delete", key: "#", icon: "trash"))
        \(html: button("move", "Move to…", key: "v", icon: "folder", picksFolder: true))
        \(html: button("label", "Label as…", key: "l", icon: "label", picksFolder: true))
        \(html: button("snooze", "Snooze", key: "b", icon: "snooze", picksFolder: true))
        \(html: button(starred ? "unstar" : "star", starred ? "Unstar" : "Star", key: "s", icon: starred ? "star-filled" : "star",
                       pressed: starred))
        \(html: button("unread", "Mark unread", key: "Shift+U", icon: "unread"))
        <button type="button" class="button print-button" data-print aria-keyshortcuts="Control+P"><span class="icon icon-print" aria-hidden="true"></span>Print</button>
        </div>
        """
    }

    /// FR-ED-01: archive and delete act on the folder being viewed (the Inbox when none is named).
    private var folderField: HTMLText {
        guard case .folder(_, let path) = location.source else { return "" }
        return "<input type=\"hidden\" name=\"folder\" value=\"\(path)\">"
    }

    private func composeLink(_ mode: ComposeMode, _ label: String, key: String, icon: String) -> HTMLText {
        guard let latestMessageId else { return "" }
        var target = location
        target.compose = ComposeTarget(mode: mode, messageId: latestMessageId)
        return """
            <a class="button compose-link" href="\(target.url)" data-compose="\(mode.rawValue)" aria-keyshortcuts="\(key)">\
            <span class="icon icon-\(icon)" aria-hidden="true"></span>\(label)</a>
            """
    }

    /// `picksFolder`: issue 36's Move to… and Label as…, whose script asks for the folder in a
    /// dialog with type-ahead before the form is sent.
    private func button(_ action: String, _ label: String, key: String, icon: String, pressed: Bool? = nil, picksFolder: Bool = false) -> HTMLText {
        var pressedAttribute: HTMLText = pressed.map { " aria-pressed=\"\($0 ? "true" : "false")\"" as HTMLText } ?? ""
        if picksFolder { pressedAttribute += " aria-haspopup=\"dialog\"" }
        let pickAttribute: HTMLText = picksFolder ? " data-pick-folder" : ""
        return """
            <form method="post" action="actions/\(action)" class="action-form" data-action="\(action)"\(html: pickAttribute)>\
            <input type="hidden" name="csrf" value="\(csrfToken)"><input type="hidden" name="thread" value="\(threadId)">\
            <input type="hidden" name="return" value="\(location.listOnly.returnPath)">\(html: folderField)\
            <button type="submit" class="button" aria-keyshortcuts="\(key)"\(html: pressedAttribute)><span class="icon icon-\(icon)" aria-hidden="true"></span>\(label)</button></form>
            """
    }
}

/// One message of the conversation: an `article` named by sender, time and read state (NFR-ED-03),
/// collapsed to a line or expanded with its body frame, notices and attachments.
struct MessageView: Sendable {
    var message: ConversationMessage
    var threadId: ThreadID
    var location: MailLocation
    var csrfToken: String
    var time: RelativeTime
    /// "Mark unread from here": this message and the later ones of the page (just this one when
    /// drawn alone; the script takes every later message the page shows).
    var fromHere: [EmailID] = []

    var domId: String { "message-\(message.id)" }

    func render() -> HTMLText {
        let readState = message.isRead ? "read" : "unread"
        let label = "\(message.senderName), \(time.full(message.date)), \(readState)" + (message.isStarred ? ", starred" : "")
        var toggled = location
        if message.collapsed { toggled.expanded.insert(message.id) } else { toggled.expanded.remove(message.id) }
        let fragment = MailLocation.url(
            path: "fragments/message",
            items: [
                URLQueryItem(name: "id", value: String(message.id)), URLQueryItem(name: "thread", value: String(threadId)),
                URLQueryItem(name: "expanded", value: message.collapsed ? "1" : "0")
            ])
        let avatarClass = SenderAvatar.palette.firstIndex(of: message.avatar.color) ?? 0
        return """
            <article class="message \(message.collapsed ? "collapsed" : "expanded") \(readState)" id="\(domId)" data-message-id="\(message.id)" aria-label="\(label)">
            <header class="message-header">
            <span class="avatar avatar-c\(avatarClass)" aria-hidden="true">\(message.avatar.initials)</span>
            <div class="message-meta">
            <h3 class="sender"><a class="expand-toggle" href="\(toggled.url)" data-fragment="\(fragment)" aria-expanded="\(message.collapsed ? "false" : "true")" aria-controls="\(domId)-content">\(message.senderName)</a>\
            <span class="read-mark" title="\(message.isRead ? "Read" : "Unread")"><span class="visually-hidden">\(message.isRead ? "Read" : "Unread")</span></span></h3>
            \(html: recipients())
            \(html: printedHeaders())
            \(html: messageLinks())
            </div>
            <time class="date" datetime="\(RelativeTime.iso(message.date))" title="\(time.full(message.date))">\(time.short(message.date))</time>
            \(html: starButton())
            \(html: actionsMenu())
            </header>
            <div class="message-content" id="\(domId)-content">\(html: message.collapsed ? collapsedLine() : expandedContent())</div>
            \(html: actionLinks())
            </article>
            """
    }

    /// Issue 36: Show original (the source laid out as Gmail does) and Download message (`.eml`)
    /// of a message the server holds, with Unsubscribe before them for list mail.
    private func messageLinks() -> HTMLText {
        guard !message.collapsed, message.sendState == .none || message.sendState == .sent else { return HTMLText() }
        return """
            <p class="message-source">\(html: unsubscribeLink())<a href="\(originalURL)" aria-label="Show original (\(whose))">Show original</a> \
            <a href="\(downloadURL)" download aria-label="Download message (\(whose))">Download message</a></p>
            """
    }

    /// Issue 36: Unsubscribe for a message with `List-Unsubscribe`; a question page comes first,
    /// and nothing reaches the list before its Unsubscribe.
    private func unsubscribeLink() -> HTMLText {
        guard message.offersUnsubscribe else { return HTMLText() }
        let url = MailLocation.url(
            path: "unsubscribe",
            items: [URLQueryItem(name: "message", value: String(message.id)), URLQueryItem(name: "return", value: location.returnPath)])
        return "<a class=\"button unsubscribe-link\" href=\"\(url)\" aria-label=\"Unsubscribe (\(whose))\">Unsubscribe</a> "
    }

    private var originalURL: String {
        MailLocation.url(
            path: "original",
            items: [URLQueryItem(name: "message", value: String(message.id)), URLQueryItem(name: "return", value: location.returnPath)])
    }

    private var downloadURL: String { "original/\(message.id.rawValue)/message.eml" }

    private func collapsedLine() -> HTMLText {
        "<p class=\"snippet\">\(message.snippet)</p>"
    }

    /// "to me, Bob" that opens into the full From/To/Cc/Date list.
    private func recipients() -> HTMLText {
        let names = (message.to + message.cc).prefix(3).map { $0.name.flatMap { $0.isEmpty ? nil : $0 } ?? $0.address }
        let more = message.to.count + message.cc.count > 3 ? " and \(message.to.count + message.cc.count - 3) more" : ""
        let summary = names.isEmpty ? "no recipients" : "to " + names.joined(separator: ", ") + more
        return "<details class=\"recipients\"><summary>\(summary)</summary><dl>\(html: headerRows())</dl></details>"
    }

    private func headerRows() -> HTMLText {
        var rows: HTMLText = "<dt>From</dt><dd>\(Self.format(message.from))</dd>"
        if !message.to.isEmpty { rows += "<dt>To</dt><dd>\(message.to.map(Self.format).joined(separator: ", "))</dd>" }
        if !message.cc.isEmpty { rows += "<dt>Cc</dt><dd>\(message.cc.map(Self.format).joined(separator: ", "))</dd>" }
        rows += "<dt>Date</dt><dd>\(time.full(message.date))</dd>"
        return rows
    }

    /// Issue 39: From, To, Cc and Date as a printed page shows them (the summary above folds them
    /// away on screen, and a closed `<details>` prints closed). Hidden on screen and from
    /// assistive technology, which reads the summary.
    private func printedHeaders() -> HTMLText {
        "<dl class=\"printed-headers\">\(html: headerRows())</dl>"
    }

    static func format(_ address: EmailAddress) -> String {
        guard let name = address.name, !name.isEmpty else { return address.address }
        return "\(name) <\(address.address)>"
    }

    /// NFR-ED-03, ED§7-3: the message named as the menu's button and group say it.
    private var whose: String { "the message from \(message.senderName), \(time.short(message.date))" }

    /// Reply, Reply all or Forward of this message (not the thread's latest).
    private func composeURL(_ mode: ComposeMode) -> String {
        var target = location
        target.compose = ComposeTarget(mode: mode, messageId: message.id)
        return target.url
    }

    /// NFR-ED-03 custom actions, ED§7-3's context menu: a "More actions" menu button whose menu
    /// (`app.js`: arrow keys, Escape, the context-menu key and right click) acts on this message.
    /// Shown only with script; `actionLinks()` is the same without it.
    private func actionsMenu() -> HTMLText {
        guard message.sendState == .none || message.sendState == .sent else { return "" }
        let item = { (mode: ComposeMode, label: String) -> HTMLText in
            "<li role=\"none\"><a role=\"menuitem\" tabindex=\"-1\" class=\"message-compose\" href=\"\(composeURL(mode))\" data-compose=\"\(mode.rawValue)\">\(label)</a></li>"
        }
        let text = MailLocation.url(path: "texts/\(message.id)", items: [URLQueryItem(name: "thread", value: String(threadId))])
        return """
            <div class="message-actions"><button type="button" class="icon-button message-menu-button" id="\(domId)-actions" aria-haspopup="menu" \
            aria-expanded="false" aria-controls="\(domId)-menu" aria-keyshortcuts="Shift+F10" aria-label="More actions for \(whose)"><span class="icon icon-more" aria-hidden="true"></span></button>\
            <ul class="message-menu" id="\(domId)-menu" role="menu" aria-label="Actions for \(whose)" hidden>\
            \(html: item(.reply, "Reply"))\(html: item(.replyAll, "Reply all"))\(html: item(.forward, "Forward"))\
            <li role="none"><button type="button" role="menuitem" tabindex="-1" data-copy-text="\(text)">Copy text</button></li>\
            <li role="none"><button type="button" role="menuitem" tabindex="-1" data-submits="\(domId)-star">\(message.isStarred ? "Unstar" : "Star")</button></li>\
            <li role="none"><button type="button" role="menuitem" tabindex="-1" data-submits="\(domId)-unread">Mark unread from here</button></li></ul></div>
            """
    }

    /// The message's actions without script: plain links to the composer and a form (hidden once
    /// the script draws the menu, which submits the same form).
    private func actionLinks() -> HTMLText {
        guard message.sendState == .none || message.sendState == .sent else { return "" }
        var ids = HTMLText()
        for id in fromHere.isEmpty ? [message.id] : fromHere { ids += "<input type=\"hidden\" name=\"message\" value=\"\(id)\">" }
        return """
            <div class="message-links" role="group" aria-label="Actions for \(whose)">\
            <a class="button" href="\(composeURL(.reply))">Reply</a> <a class="button" href="\(composeURL(.replyAll))">Reply all</a> \
            <a class="button" href="\(composeURL(.forward))">Forward</a> \
            <form method="post" action="actions/unread" class="action-form inline-form" id="\(domId)-unread" data-action="unread" data-from-here>\
            <input type="hidden" name="csrf" value="\(csrfToken)">\(html: ids)<input type="hidden" name="return" value="\(location.listOnly.returnPath)">\
            <button type="submit" class="button">Mark unread from here</button></form></div>
            """
    }

    private func starButton() -> HTMLText {
        let action = message.isStarred ? "unstar" : "star"
        return """
            <form method="post" action="actions/\(action)" class="action-form star-form" id="\(domId)-star" data-action="\(action)">\
            <input type="hidden" name="csrf" value="\(csrfToken)"><input type="hidden" name="message" value="\(message.id)">\
            <input type="hidden" name="return" value="\(location.returnPath)">\
            <button type="submit" class="icon-button" aria-pressed="\(message.isStarred ? "true" : "false")" aria-label="Star message from \(message.senderName)">\
            <span class="icon icon-\(message.isStarred ? "star-filled" : "star")" aria-hidden="true"></span></button></form>
            """
    }

    /// An Outbox message's state (issue 34, CO01-S5, CO01-E2, SY07-7): a failed one says why and
    /// offers Retry (the same message queued again: never a second copy) and Discard (confirmed); a
    /// queued one that could not go yet says it waits and that Tern tries again by itself.
    private func sendState() -> HTMLText {
        if message.sendState == .queued, let time = message.scheduledAt, time > Date() { return scheduled(time) }
        guard let sendError = message.sendError else { return HTMLText() }
        switch message.sendState {
        case .failed:
            let list = location.listOnly.returnPath
            return """
                <div class="send-failure" role="alert"><p class="notice notice-error">Couldn't send: \(sendError)</p>\
                <form method="post" action="outbox/retry" class="action-form inline-form" data-action="retry sending">\
                <input type="hidden" name="csrf" value="\(csrfToken)"><input type="hidden" name="message" value="\(message.id)">\
                <input type="hidden" name="return" value="\(location.returnPath)">\
                <button type="submit" class="button">Retry sending</button></form> \
                <form method="post" action="outbox/discard" class="action-form inline-form" data-action="discard"\
                 data-confirm="Discard this message? It will not be sent, and it cannot be brought back.">\
                <input type="hidden" name="csrf" value="\(csrfToken)"><input type="hidden" name="message" value="\(message.id)">\
                <input type="hidden" name="return" value="\(list)">\
                <button type="submit" class="button">Discard</button></form></div>
                """
        case .queued, .sending:
            return "<p class=\"notice\" role=\"status\">Waiting to send: \(sendError). Tern tries again by itself.</p>"
        case .sent where SendQueueProcessor.saysSentLate(sendError):
            // Issue 36: a Send later message that went out at a later start says so.
            return "<p class=\"notice\" role=\"status\">Sent late: \(sendError).</p>"
        case .none, .sent:
            return HTMLText()
        }
    }

    /// Send later (issue 36): when it goes, with Edit (back to its draft, unscheduled) and Cancel
    /// sending (the message discarded, confirmed first).
    private func scheduled(_ time: Date) -> HTMLText {
        let list = location.listOnly.returnPath
        return """
            <div class="send-scheduled" role="group" aria-label="Scheduled send">            <p class="notice" role="status">Scheduled to send <time datetime="\(RelativeTime.iso(time))">\(RelativeTime().full(time))</time>.</p>            <form method="post" action="outbox/edit" class="action-form inline-form" data-action="edit the scheduled message">            <input type="hidden" name="csrf" value="\(csrfToken)"><input type="hidden" name="message" value="\(message.id)">            <input type="hidden" name="return" value="\(list)">            <button type="submit" class="button">Edit</button></form>             <form method="post" action="outbox/discard" class="action-form inline-form" data-action="cancel sending"             data-confirm="Cancel sending this message? It will not be sent, and it cannot be brought back.">            <input type="hidden" name="csrf" value="\(csrfToken)"><input type="hidden" name="message" value="\(message.id)">            <input type="hidden" name="return" value="\(list)">            <button type="submit" class="button">Cancel sending</button></form></div>
            """
    }

    private func expandedContent() -> HTMLText {
        var content = HTMLText()
        content += sendState()
        content += readReceiptPrompt()
        switch message.bodyState {
        case .loading:
            content += "<p class=\"body-state\" data-body-loading=\"\(message.id)\">Loading message…</p>"
        case .unavailableOffline:
            content += "<p class=\"body-state\">Message body not available offline</p>"
        case .empty:
            content += "<p class=\"body-state\">This message has no text.</p>"
        case .available, .truncated:
            if let body = message.body {
                content += notices(body)
                content += frame(body)
            }
            if message.bodyState == .truncated {
                content += "<p class=\"notice\">This message is too large to show in full. Only its first 10 MB were downloaded.</p>"
            }
        }
        content += AttachmentListView(attachments: message.attachments, csrfToken: csrfToken).render()
        return content
    }

    /// Trackers blocked, remote images blocked with the two ways to load them (FR-ED-04), and
    /// links whose text names another place.
    private func notices(_ body: RenderedBody) -> HTMLText {
        var notices = HTMLText()
        if body.trackersBlocked > 0 {
            let hosts = body.trackerHosts.map { "<li>\(html: HTMLText.escape($0))</li>" as HTMLText }
            notices += """
                <details class="notice trackers"><summary><span class="icon icon-shield" aria-hidden="true"></span>\(body.trackersBlocked) tracker\(body.trackersBlocked == 1 ? "" : "s") blocked</summary><ul>\(html: hosts)</ul></details>
                """
        }
        notices += privacyReport(body)
        if body.remoteImagesBlocked > 0, !body.remoteImagesLoaded {
            var withImages = location
            withImages.expanded.insert(message.id)
            withImages.remoteImages.insert(message.id)
            let fragment = MailLocation.url(
                path: "fragments/message",
                items: [
                    URLQueryItem(name: "id", value: String(message.id)), URLQueryItem(name: "thread", value: String(threadId)),
                    URLQueryItem(name: "expanded", value: "1"), URLQueryItem(name: "images", value: "1")
                ])
            notices += """
                <div class="notice remote-images"><p><span class="icon icon-image-off" aria-hidden="true"></span>\(body.remoteImagesBlocked) remote image\(body.remoteImagesBlocked == 1 ? "" : "s") blocked to protect your privacy.</p>\
                <a class="button" href="\(withImages.url)" data-fragment="\(fragment)">Load remote images</a>\
                \(html: body.senderTrusted ? notVerifiedNotice() : trustForm(returning: withImages.returnPath))</div>
                """
        } else if body.remoteImagesLoaded, loadsByTrust(body) {
            let unverified: HTMLText =
                message.senderAuthentication.isVerified
                ? ""
                : """
                 <span class="sender-not-verified">The sender is not verified: Tern does not know which checks your provider adds to mail (<code>tern account set --authserv-id</code>).</span>
                """
            notices +=
                "<p class=\"notice\">Remote images load for \(message.from.address).\(html: unverified) <a href=\"settings#trusted-senders\">Trusted senders</a></p>"
        }
        if body.suspiciousLinks > 0 {
            notices += """
                <p class="notice notice-warning"><span class="icon icon-warning" aria-hidden="true"></span>\(body.suspiciousLinks) link\(body.suspiciousLinks == 1 ? " goes" : "s go") somewhere other than \(body.suspiciousLinks == 1 ? "its" : "their") text says. Hover or focus a link to see where it goes.</p>
                """
        }
        return notices
    }

    /// Issue 37: "SENDER asks for a read receipt" with Send receipt and Ignore, while the request
    /// is open (`ReadReceiptRequest.asks`): nothing is sent unless the person presses Send receipt.
    private func readReceiptPrompt() -> HTMLText {
        guard let receipt = message.readReceipt, receipt.asks else { return HTMLText() }
        let to = receipt.to.map(\.address).joined(separator: ", ")
        let form = { (action: String, verb: String, label: String) -> HTMLText in
            """
            <form method="post" action="receipts/\(action)" class="action-form inline-form" data-action="\(verb)">\
            <input type="hidden" name="csrf" value="\(csrfToken)"><input type="hidden" name="message" value="\(message.id)">\
            <input type="hidden" name="return" value="\(location.returnPath)">\
            <button type="submit" class="button">\(label)</button></form>
            """
        }
        return """
            <section class="notice read-receipt" aria-labelledby="\(domId)-receipt"><p id="\(domId)-receipt">\(message.senderName) asks for a read receipt\
            <span class="receipt-address"> (it would go to \(to))</span>.</p>\
            \(html: form("send", "send the read receipt", "Send receipt")) \(html: form("ignore", "ignore the request", "Ignore"))</section>
            """
    }

    /// Issue 37: the message's privacy report, a disclosure beside "N trackers blocked": the
    /// remote hosts it would contact (with counts), the trackers blocked by kind with their hosts,
    /// the links cleaned and tracked, a read-receipt request, and what the provider's own
    /// `Authentication-Results` said of the sender (SPF, DKIM, DMARC).
    private func privacyReport(_ body: RenderedBody) -> HTMLText {
        let privacy = body.privacy
        func list(_ items: [String]) -> HTMLText {
            guard !items.isEmpty else { return HTMLText() }
            var entries = HTMLText()
            for item in items { entries += "<li>\(item)</li>" }
            return "<ul>\(html: entries)</ul>"
        }
        var rows = HTMLText()
        let remoteCount = privacy.remoteHosts.reduce(0) { $0 + $1.count }
        let remoteVerb = body.remoteImagesLoaded ? "Remote content loaded" : "Remote content blocked"
        rows +=
            "<dt>\(remoteVerb)</dt><dd>\(Self.count(remoteCount, "load")) from \(Self.count(privacy.remoteHosts.count, "host"))\(html: list(privacy.remoteHosts.map { "\($0.host) (\($0.count))" }))</dd>"
        rows += """
            <dt>Trackers blocked</dt><dd>\(Self.count(body.trackersBlocked, "tracker")): \(Self.count(privacy.imageTrackers, "pixel")), \
            \(privacy.cssTrackers) CSS, \(Self.count(privacy.fontTrackers, "font"))\(html: list(body.trackerHosts))</dd>
            """
        rows += """
            <dt>Links</dt><dd>\(privacy.linksCleaned) cleaned of tracking, \(privacy.linksUnwrapped) unwrapped, \(privacy.linksTracked) tracked\
            \(html: list(privacy.trackedLinkHosts.map { "goes through \($0) first" }))</dd>
            """
        rows += "<dt>Read receipt</dt><dd>\(Self.receiptText(message.readReceipt))</dd>"
        rows +=
            "<dt>Sender checked by your provider</dt><dd>\(Self.authenticationText(message.senderAuthentication, message.authenticationChecks))</dd>"
        return """
            <details class="notice privacy-report"><summary><span class="icon icon-shield" aria-hidden="true"></span>Privacy</summary><dl>\(html: rows)</dl></details>
            """
    }

    static func count(_ value: Int, _ noun: String) -> String { "\(value) \(noun)\(value == 1 ? "" : "s")" }

    static func receiptText(_ receipt: ReadReceiptRequest?) -> String {
        guard let receipt else { return "not requested" }
        switch receipt.status {
        case .ask: return "requested: nothing is sent unless you choose Send receipt"
        case .sent: return "requested, and sent"
        case .ignored: return "requested, and ignored"
        case .refused: return "requested, not offered: \(receipt.refusal?.sentence ?? "")"
        }
    }

    /// The provider's own results only (docs/decisions.md, "Whose Authentication-Results count").
    static func authenticationText(_ authentication: SenderAuthentication, _ checks: AuthenticationChecks) -> String {
        guard let authservId = authentication.authservId else { return "unknown: Tern knows no checks of this account's provider" }
        guard checks.spf != nil || checks.dkim != nil || checks.dmarc != nil || authentication.verdict != .unknown else {
            return "no result from \(authservId) in this message"
        }
        let verdict =
            switch authentication.verdict {
            case .verified: "verified"
            case .failed: "not verified"
            case .unknown: "unknown"
            }
        return "\(verdict) by \(authservId): SPF \(checks.spf ?? "none"), DKIM \(checks.dkim ?? "none"), DMARC \(checks.dmarc ?? "none")"
    }

    /// Issue 32: a trusted sender's images load only when the provider did not contradict the From.
    private func loadsByTrust(_ body: RenderedBody) -> Bool {
        body.senderTrusted && message.senderAuthentication.letsTrustLoadImages
    }

    private func trustForm(returning returnPath: String) -> HTMLText {
        """
        <form method="post" action="trusted-senders" class="action-form" data-action="trust">\
        <input type="hidden" name="csrf" value="\(csrfToken)"><input type="hidden" name="address" value="\(message.from.address)">\
        <input type="hidden" name="return" value="\(returnPath)">\
        <button type="submit" class="button">Always load from \(message.from.address)</button></form>
        """
    }

    /// Why a trusted sender's images were not loaded (issue 32).
    private func notVerifiedNotice() -> HTMLText {
        let why =
            switch message.senderAuthentication.verdict {
            case .failed: "the sender's domain did not pass your provider's checks"
            case .unknown, .verified: "your provider's checks are missing from it"
            }
        return
            "<p class=\"sender-not-verified\">\(message.from.address) is a trusted sender, but this message is not verified: \(why), so it may not be from them.</p>"
    }

    /// The body's own document, in a frame without scripts (`BodyDocument.sandbox`). Its height is
    /// first estimated from the text; issue 39: the app's script then sizes the frame to the
    /// document it shows (the frame keeps the app's origin so that its height can be read), and
    /// without script the estimate stays. A body with colours of its own keeps a light surface.
    private func frame(_ body: RenderedBody) -> HTMLText {
        let images = body.remoteImagesLoaded && !loadsByTrust(body) ? "&images=1" : ""
        let surface = body.html.map(BodyColours.setOwn) == true ? " light-surface" : ""
        return """
            <iframe class="message-body \(Self.heightClass(body.text))\(surface)" src="bodies/\(message.id)?thread=\(threadId)\(images)" sandbox="\(BodyDocument.sandbox)" \
            title="Message from \(message.senderName), \(time.full(message.date))" referrerpolicy="no-referrer"></iframe>
            """
    }

    static func heightClass(_ text: String) -> String {
        var lines = 0
        for line in text.prefix(40_000).split(separator: "\n", omittingEmptySubsequences: false) { lines += max(1, line.count / 60 + 1) }
        switch lines {
        case ..<5: return "body-h1"
        case ..<10: return "body-h2"
        case ..<20: return "body-h3"
        default: return "body-h4"
        }
    }
}

/// FR-ED-03: each attachment with name, type, size and state; download only on the user's click
/// (warnings first, `app.js` asks them in a dialog), progress and Cancel while it runs, Save and
/// Preview (images, PDF) once it is here.
struct AttachmentListView: Sendable {
    var attachments: [AttachmentView]
    var csrfToken: String

    func render() -> HTMLText {
        let shown = attachments.filter { !$0.isInline }
        guard !shown.isEmpty else { return "" }
        var items = HTMLText()
        for attachment in shown { items += item(attachment) }
        return "<section class=\"attachments\" aria-label=\"Attachments\"><ul>\(html: items)</ul></section>"
    }

    static func size(_ bytes: Int64) -> String {
        if bytes < 1024 { return "\(bytes) bytes" }
        if bytes < 1024 * 1024 { return "\((bytes + 512) / 1024) KB" }
        return String(format: "%.1f MB", Double(bytes) / 1_048_576)
    }

    /// `DownloadURL`'s `type:name:url` is split at colons: the type keeps only a MIME type's
    /// characters, and the name has its colons (and controls) replaced.
    static func dragType(_ mimeType: String) -> String {
        let essence = mimeType.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
        let type = essence.lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber || "/.+-".contains($0)) }
        return type.contains("/") ? type : "application/octet-stream"
    }

    static func dragName(_ filename: String) -> String {
        let name = AttachmentFilename.visible(filename).map { $0 == ":" || $0 == "/" || $0 == "\\" ? "_" : $0 }
        return name.isEmpty ? "attachment" : String(name)
    }

    static func isPreviewable(_ mimeType: String) -> Bool {
        let type = mimeType.lowercased()
        return ["image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf"].contains(type)
    }

    private func item(_ attachment: AttachmentView) -> HTMLText {
        let warnings = attachment.warnings.map(\.text).joined(separator: "\n")
        let actions: HTMLText
        if attachment.isDownloaded {
            // Issue 34, ED§7-4: dragged to the desktop or a file manager as the file itself (`app.js`
            // sets Chromium's `DownloadURL` from these on dragstart).
            var links: HTMLText = """
                <a class="button" href="attachments/\(attachment.id)/file" download draggable="true" data-drag-type="\(Self.dragType(attachment.mimeType))" \
                data-drag-name="\(Self.dragName(attachment.filename))">Save</a>
                """
            if Self.isPreviewable(attachment.mimeType) {
                links +=
                    " <a class=\"button\" href=\"attachments/\(attachment.id)/preview\" target=\"_blank\" rel=\"noopener noreferrer\">Preview</a>"
            }
            actions = links
        } else {
            actions = """
                <form method="post" action="attachments/\(attachment.id)/download" class="download-form" data-attachment-id="\(attachment.id)" data-warnings="\(warnings)">\
                <input type="hidden" name="csrf" value="\(csrfToken)"><button type="submit" class="button">Download</button></form>
                """
        }
        return """
            <li class="attachment" data-attachment-id="\(attachment.id)"><span class="icon icon-attachment" aria-hidden="true"></span>\
            <span class="attachment-name">\(AttachmentFilename.visible(attachment.filename))</span> <span class="attachment-meta">\(attachment.mimeType), \(Self.size(attachment.size))\
            \(attachment.isDownloaded ? ", downloaded" : "")</span> \(html: actions)\
            <span class="attachment-progress" role="status" aria-live="polite"></span></li>
            """
    }
}
