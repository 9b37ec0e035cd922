import FileNameSafety
import Foundation
import TernCore

/// What the address asks the composer to open (`compose=reply&message=ID` in `/mail`'s query).
struct ComposeTarget: Sendable, Hashable {
    var mode: ComposeMode
    /// The message replied to or forwarded; nil for a new message.
    var messageId: EmailID?
    /// New messages: the account to send from (nil: the only one).
    var account: AccountName?
    /// A saved draft resumed (`compose=draft&draft=ID`), or a server draft another client wrote
    /// (`compose=draft&server=EMAILID`), adopted when opened (FR-COMP-01 "Draft lifecycle").
    var draftId: DraftID?
    var serverDraftId: EmailID?
    /// AC-U-11: a smart reply chosen in the thread, put above the quote to edit freely.
    var suggestion: String?
    /// Issue 36: a `mailto:` link followed (the browser's handler for email links), prefilling a new message.
    var mailto: String?

    init?(query: FormFields) {
        guard let text = query["compose"] else { return nil }
        if text == "draft" {
            mode = .new
            draftId = query["draft"].flatMap { DraftID($0) }
            serverDraftId = query["server"].flatMap { EmailID($0) }
            if draftId == nil, serverDraftId == nil { return nil }
            return
        }
        guard let mode = ComposeMode(rawValue: text) else { return nil }
        self.mode = mode
        messageId = query["message"].flatMap { EmailID($0) }
        account = AccountName(field: query["from"])
        suggestion = query["suggestion"].map { AssistText.clean($0, maxCharacters: 500) }.flatMap { $0.isEmpty ? nil : $0 }
        if mode == .new { mailto = query["mailto"].flatMap { $0.isEmpty ? nil : $0 } }
        if mode != .new, messageId == nil { return nil }
    }

    init(mode: ComposeMode, messageId: EmailID?) {
        self.mode = mode
        self.messageId = messageId
    }

    /// A draft's composer: a local draft, or one synced from the server's Drafts mailbox.
    init(draftId: DraftID?, serverDraftId: EmailID? = nil) {
        mode = .new
        self.draftId = draftId
        self.serverDraftId = serverDraftId
    }

    var queryItems: [URLQueryItem] {
        if let draftId { return [URLQueryItem(name: "compose", value: "draft"), URLQueryItem(name: "draft", value: String(draftId))] }
        if let serverDraftId { return [URLQueryItem(name: "compose", value: "draft"), URLQueryItem(name: "server", value: String(serverDraftId))] }
        var items = [URLQueryItem(name: "compose", value: mode.rawValue)]
        if let messageId { items.append(URLQueryItem(name: "message", value: String(messageId))) }
        if let account { items.append(URLQueryItem(name: "from", value: account.rawValue)) }
        if let suggestion { items.append(URLQueryItem(name: "suggestion", value: suggestion)) }
        if let mailto { items.append(URLQueryItem(name: "mailto", value: mailto)) }
        return items
    }

    var title: String {
        if draftId != nil || serverDraftId != nil { return "Draft" }
        return switch mode {
        case .new: "New message"
        case .reply: "Reply"
        case .replyAll: "Reply all"
        case .forward: "Forward"
        }
    }
}

/// The composer (FR-COMP-01, 04): From, To, Cc and Bcc (Cc and Bcc shown on demand unless
/// prefilled), Subject, the body with its Markdown toolbar, attachments, Send and Discard. Written
/// as a form that works without script (recipients as comma-separated text); `app.js` turns each
/// recipient field into tokens with an autocomplete combobox and sends without leaving the page.
struct ComposerView: Sendable {
    var draft: ComposeDraft
    var target: ComposeTarget
    var location: MailLocation
    var csrfToken: String
    var account: AccountName
    /// CO01-M1: every account, offered in a From picker when there are two or more.
    var senders: [Account] = []
    /// Issue 35: every account's identities (none given: those the accounts imply); the picker
    /// offers them all once there are two or more.
    var identities: [Identity] = []
    /// The saved draft this composer writes to (autosave, Send and Delete draft name it).
    var draftId: DraftID?
    var undoSeconds: Int
    var autosaveSeconds = 30
    var errors: [String] = []
    /// The confirmations were asked once (a page without script sends again to confirm).
    var confirmed = false
    /// Assist is on in the settings.
    var offersSmartReplies = false
    /// Issue 36: a mailto: link's fields it did not take, or why it was refused.
    var mailtoNotes: [String] = []
    /// The clock and calendar the Schedule send choices are worded in (the server's, as the lists' dates are).
    var now = Date()
    var calendar = Calendar.current

    /// FR-COMP-03: smart replies for a new reply (not a resumed draft, not one started from a
    /// suggestion), filled in by the page when they are ready.
    var suggestions: HTMLText {
        guard offersSmartReplies, draftId == nil, target.suggestion == nil, errors.isEmpty, draft.mode == .reply || draft.mode == .replyAll,
            let original = draft.originalEmailId
        else { return "" }
        return SmartRepliesView(threadId: nil, place: .composer, replyTo: original, location: nil).placeholder()
    }

    func render() -> HTMLText {
        var hidden = HTMLText()
        var fields: [(String, String)] =
            [
                ("csrf", csrfToken), ("mode", draft.mode.rawValue), ("account", account.rawValue),
                ("original", draft.originalEmailId.map { String($0) } ?? ""),
                ("return", location.returnPath), ("draft", draftId.map { String($0) } ?? "")
            ] + (confirmed ? [("confirmed", "1")] : [])
        if offersSenderChoice { fields.removeAll { $0.0 == "account" } }
        for (name, value) in fields { hidden += "<input type=\"hidden\" name=\"\(name)\" value=\"\(value)\">" }
        let errorList: HTMLText = errors.isEmpty ? "" : "<ul>\(html: errors.map { "<li>\($0)</li>" as HTMLText })</ul>"
        let notes = draft.notes.map { note -> HTMLText in
            switch note {
            case .originalBodyUnavailable: "<p class=\"notice\">The original message isn't downloaded, so it isn't quoted.</p>"
            case .originalBodyTruncated: "<p class=\"notice\">The original message was too large to quote in full.</p>"
            }
        }
        let showCc = !draft.cc.isEmpty
        let showBcc = !draft.bcc.isEmpty
        let focusField = draft.mode == .reply || draft.mode == .replyAll ? "body" : "to"
        return """
            <form class="composer" id="composer" method="post" action="compose/send" aria-labelledby="composer-title" \
            data-undo-seconds="\(undoSeconds)" data-autosave-seconds="\(autosaveSeconds)" data-focus="\(focusField)" enctype="application/x-www-form-urlencoded">
            <div class="composer-header"><h2 id="composer-title" tabindex="-1">\(target.title)</h2>\
            <span id="draft-status" class="hint" role="status">\(html: draftId == nil ? "" : "Draft saved")</span>\
            <a class="button" href="\(location.url)" data-discard>Close</a></div>
            \(html: hidden)
            \(html: fromField())
            \(html: notes)
            \(html: mailtoNotes.map { "<p class=\"notice\" role=\"status\">\($0)</p>" as HTMLText })
            \(html: recipientField("to", "To", draft.to, shown: true))
            <div class="reveal-fields">\(html: showCc ? "" : "<button type=\"button\" class=\"link-button\" data-reveal=\"cc\">Add Cc</button>")\
            \(html: showBcc ? "" : " <button type=\"button\" class=\"link-button\" data-reveal=\"bcc\">Add Bcc</button>")</div>
            \(html: recipientField("cc", "Cc", draft.cc, shown: showCc))
            \(html: recipientField("bcc", "Bcc", draft.bcc, shown: showBcc))
            <p class="composer-field"><label for="compose-subject">Subject</label>\
            <input id="compose-subject" name="subject" type="text" value="\(draft.subject)" autocomplete="off"></p>
            \(html: suggestions)
            <div class="format-toolbar" role="toolbar" aria-label="Formatting" aria-controls="compose-body">\
            <button type="button" class="button" data-format="bold" aria-keyshortcuts="Control+B">Bold</button>\
            <button type="button" class="button" data-format="italic" aria-keyshortcuts="Control+I">Italic</button>\
            <button type="button" class="button" data-format="link" aria-keyshortcuts="Control+K">Link</button></div>
            <p class="composer-field composer-body"><label for="compose-body" class="visually-hidden">Message</label>\
            <textarea id="compose-body" name="body" rows="14" aria-describedby="body-hint">\(draft.body)</textarea></p>
            <p id="body-hint" class="hint">**bold**, *italic* and [text](https://link) are sent as formatting. \
            An image pasted or dropped here is sent in the message.</p>
            <p id="body-size" class="notice notice-warning" role="status" hidden></p>
            \(html: attachments())
            <div class="composer-errors" id="composer-errors" role="alert">\(html: errorList)</div>
            <div class="composer-actions"><button type="submit" class="button primary" id="send-button" aria-keyshortcuts="Control+Enter">Send</button>\
            \(html: scheduleSend())\
            <button type="submit" class="button" formaction="compose/draft" id="save-draft" aria-keyshortcuts="Control+S">Save draft</button>\
            <button type="submit" class="button" formaction="compose/discard" id="delete-draft"\(html: draftId == nil ? " hidden" : "")>Delete draft</button></div>
            </form>
            """
    }

    /// Send later (issue 36): "Schedule send" beside Send, a disclosure (it works without script)
    /// holding Gmail's common choices, each with the day and time it means, and a date-time picker.
    /// Each is a submit button of the composer to `compose/schedule` with its `when`; the picker's
    /// value is local to the browser, which app.js sends as an ISO time with its offset.
    private func scheduleSend() -> HTMLText {
        var buttons = HTMLText()
        for choice in ScheduleChoice.common(now: now, calendar: calendar) {
            buttons += """
                <button type="submit" class="button schedule-choice" formaction="compose/schedule" name="when" value="\(choice.expression)" \
                data-schedule>\(choice.label)</button>
                """
        }
        let earliest = Self.pickerValue(now.addingTimeInterval(60), calendar: calendar)
        return """
            <details class="schedule-send" id="schedule-send"><summary class="button">Schedule send</summary>\
            <div class="schedule-panel" role="group" aria-labelledby="schedule-title"><p id="schedule-title" class="schedule-title">Send later</p>\
            \(html: buttons)\
            <p class="schedule-picker"><label for="schedule-at">Date and time</label> \
            <input id="schedule-at" name="at" type="datetime-local" min="\(earliest)" step="60"> \
            <button type="submit" class="button" formaction="compose/schedule" name="when" value="picker" data-schedule id="schedule-picked">Schedule</button></p>\
            </div></details>
            """
    }

    static func pickerValue(_ date: Date, calendar: Calendar) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = calendar.timeZone
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm"
        return formatter.string(from: date)
    }

    private var offersSenderChoice: Bool { senders.count > 1 || senderIdentities.count > 1 }

    /// The identities in the picker's order: accounts by name, each account's default first.
    private var senderIdentities: [Identity] {
        let given = Dictionary(grouping: identities, by: \.accountId)
        return senders.sorted(by: { $0.name < $1.name }).flatMap { given[$0.id] ?? Identity.implied(by: $0) }
    }

    /// The sender: the address as text, or with several identities (issue 35; accounts, CO01-M1) a
    /// labelled select of every identity as the form's `account`: the account's name alone for an
    /// account with one identity, the name and the address for one with several. The draft's own
    /// sender is chosen; one that is no identity of its account (an older draft) shows on its
    /// account's default. Each option carries its signature, which app.js swaps in the text.
    private func fromField() -> HTMLText {
        guard offersSenderChoice else { return "<p class=\"composer-from\">From <span>\(MessageView.format(draft.from))</span></p>" }
        let all = senderIdentities
        let perAccount = Dictionary(grouping: all, by: \.accountId).mapValues(\.count)
        let fromKey = draft.from.address.lowercased()
        let draftMatches = all.contains { $0.accountId == draft.accountId && $0.key == fromKey }
        var options = HTMLText()
        for identity in all {
            guard let sender = senders.first(where: { $0.id == identity.accountId }) else { continue }
            let ownAccount = identity.accountId == draft.accountId
            let chosen = ownAccount && (draftMatches ? identity.key == fromKey : identity.isDefault)
            let address = chosen && !draftMatches ? draft.from : identity.sender
            let value = (perAccount[identity.accountId] ?? 1) > 1 ? "\(sender.name) \(identity.emailAddress)" : sender.name.rawValue
            let signature: HTMLText = identity.signature.map { " data-signature=\"\($0)\"" } ?? ""
            options += "<option value=\"\(value)\"\(html: chosen ? " selected" : "")\(html: signature)>\(MessageView.format(address))</option>"
        }
        return """
            <p class="composer-field composer-from-choice"><label for="compose-from">From</label>\
            <select id="compose-from" name="account">\(html: options)</select></p>
            """
    }

    /// One recipient field: a text input holding the comma-separated list (the form's value), which
    /// the script shows as tokens with a combobox of suggestions.
    private func recipientField(_ name: String, _ label: String, _ addresses: [EmailAddress], shown: Bool) -> HTMLText {
        let value = addresses.map(MessageView.format).joined(separator: ", ")
        return """
            <div class="composer-field recipient-field" data-field="\(name)"\(html: shown ? "" : " hidden")>\
            <label for="compose-\(name)" id="compose-\(name)-label">\(label)</label>\
            <input id="compose-\(name)" name="\(name)" type="text" value="\(value)" autocomplete="off" spellcheck="false" class="recipient-text"></div>
            """
    }

    private func attachments() -> HTMLText {
        var items = HTMLText()
        for attachment in draft.attachments {
            let kept: HTMLText
            switch attachment.source {
            case .storedAttachment(let id): kept = "<input type=\"hidden\" name=\"attachment\" value=\"\(id)\">"
            case .file: kept = "<input type=\"hidden\" name=\"draftfile\" value=\"\(attachment.filename)\">"
            }
            var state: HTMLText = ""
            var download: HTMLText = ""
            var itemAttributes: HTMLText = ""
            if case .file = attachment.source, let contentId = attachment.contentId {
                // CO01-16: shown in the text where its `![name](cid:…)` is; Remove takes that out too.
                state = ", inline image"
                itemAttributes = " data-content-id=\"\(contentId)\""
            }
            if attachment.availability == .pending, case .storedAttachment(let id) = attachment.source {
                // FR-COMP-01 "Attachment Handling": not local yet; downloaded before sending, or now (progress, and Retry when it fails).
                state = ", not downloaded yet"
                itemAttributes = " data-attachment-id=\"\(id)\""
                download = """
                    <button type="button" class="button" data-download-attachment="\(id)" aria-label="Download \(attachment.filename) now">Download now</button>\
                    <span class="attachment-progress" role="status" aria-live="polite"></span>
                    """
            }
            items += """
                <li class="attachment"\(html: itemAttributes)><span class="icon icon-attachment" aria-hidden="true"></span>\
                <span class="attachment-name">\(AttachmentFilename.visible(attachment.filename))</span> <span class="attachment-meta">\(AttachmentListView.size(attachment.sizeBytes))\(html: state)</span>\
                \(html: download)\
                \(html: kept)\
                <button type="button" class="button" data-remove-attachment aria-label="Remove \(attachment.filename)">Remove</button></li>
                """
        }
        return """
            <section class="composer-attachments" aria-labelledby="attachments-title"><h3 id="attachments-title" class="visually-hidden">Attachments</h3>\
            <ul id="compose-attachments">\(html: items)</ul>\
            <p class="drop-zone"><label class="button" for="compose-files">Attach files</label>\
            <input id="compose-files" type="file" multiple class="visually-hidden"> <span class="hint">or drop files here</span></p>\
            <p id="attachments-size" class="notice notice-error" role="status" hidden></p></section>
            """
    }
}

/// A common Send later choice (issue 36), as Gmail offers them: tomorrow morning, tomorrow afternoon,
/// Monday morning; each is a `WhenExpression` the server reads again, with the moment it means shown.
struct ScheduleChoice: Sendable, Hashable {
    var expression: String
    var label: String

    static func common(now: Date, calendar: Calendar) -> [ScheduleChoice] {
        [("tomorrow 08:00", "Tomorrow morning"), ("tomorrow 13:00", "Tomorrow afternoon"), ("mon 08:00", "Monday morning")].compactMap {
            (expression: String, name: String) -> ScheduleChoice? in
            guard let date = try? WhenExpression(expression).date(now: now, calendar: calendar) else { return nil }
            return ScheduleChoice(expression: expression, label: "\(name), \(RelativeTime(now: now, calendar: calendar).full(date))")
        }
    }
}
