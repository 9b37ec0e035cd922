import Foundation
import Hummingbird
import TernCore
import TernRuntime

/// The actions of the thread toolbar and of each message (FR-ED-01, FR-SYNC-10): applied to the
/// store at once and answered at once; the server hears of them in the background (mark, star) or
/// when the undo window ends (archive, delete), through the engine's push. A push the server
/// refuses comes back on the change feed as "Couldn't …", which the page shows (E-10, E-11).
struct ActionRoutes: Sendable {
    let services: TernServices
    let state: WebState
    let page: PageSecrets

    func register(on router: Router<BasicRequestContext>) {
        router.post("actions/:action") { request, context in
            let action = try context.parameters.require("action")
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit)))
            return try await perform(action, form: form, scripted: WebResponse.isScripted(request))
        }
        router.post("outbox/:action") { request, context in
            let action = try context.parameters.require("action")
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit)))
            return try await outbox(action, form: form, scripted: WebResponse.isScripted(request))
        }
        router.post("receipts/:action") { request, context in
            let action = try context.parameters.require("action")
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit)))
            return try await receipt(action, form: form, scripted: WebResponse.isScripted(request))
        }
        router.post("trusted-senders") { request, _ in
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit)))
            guard let address = form["address"], !address.isEmpty else { throw HTTPError(.badRequest, message: "address is needed") }
            return try await reply(scripted: WebResponse.isScripted(request), form: form) {
                _ = try await services.trustedSenders.add(address)
                return ActionReply(ok: true, toast: "Remote images will load for \(address).")
            }
        }
    }

    /// FR-SYNC-07 step 6 and issue 34: a failed message sent again (the same message, requeued) or
    /// discarded. Discarding cannot be undone, so it needs `confirmed=1`: the script asks in a
    /// dialog first; a page without script gets a page that asks.
    func outbox(_ action: String, form: FormFields, scripted: Bool) async throws -> Response {
        guard let id = form["message"].flatMap({ EmailID($0) }) else { throw HTTPError(.badRequest, message: "message is needed") }
        switch action {
        case "retry":
            return try await reply(scripted: scripted, form: form) {
                let outcome = try await services.outbox.retry(id)
                if outcome.state == .failed { return ActionReply(ok: false, error: outcome.error ?? "The server refused it.") }
                return ActionReply(
                    ok: true, toast: outcome.state == .sent ? "Message sent." : "Queued: Tern sends it as soon as the server can be reached.")
            }
        case "edit":
            // Send later (issue 36): a scheduled (or failed) message back in its draft, opened in the composer.
            return try await reply(scripted: scripted, form: form) {
                let draft = try await services.drafts.reopenFailed(id)
                var location = MailLocation(query: FormFields(URLComponents(string: form["return"] ?? "/mail")?.percentEncodedQuery ?? ""))
                location.compose = ComposeTarget(draftId: draft.id)
                return ActionReply(ok: true, toast: "Not scheduled any more: the message is a draft again.", navigate: location.returnPath)
            }
        case "discard":
            guard form["confirmed"] == "1" else {
                if scripted { return WebResponse.json(ActionReply(ok: false, error: "Discarding needs confirmation."), status: .conflict) }
                return WebResponse.html(OutboxDiscardPage(messageId: id, page: page, returnPath: form["return"]).render())
            }
            return try await reply(scripted: scripted, form: form) {
                try await services.outbox.discard(id)
                return ActionReply(ok: true, toast: "Message discarded.", navigate: form["return"])
            }
        default:
            throw HTTPError(.notFound)
        }
    }

    /// Issue 37: Send receipt (an RFC 8098 MDN through the account's send path) or Ignore; the
    /// use case refuses what must not be sent, and the reply says why.
    func receipt(_ action: String, form: FormFields, scripted: Bool) async throws -> Response {
        guard let id = form["message"].flatMap({ EmailID($0) }) else { throw HTTPError(.badRequest, message: "message is needed") }
        switch action {
        case "send":
            return try await reply(scripted: scripted, form: form) {
                let outcome = try await services.readReceipts.send(id)
                let to = outcome.to.map(\.address).joined(separator: ", ")
                switch outcome.state {
                case .failed: return ActionReply(ok: false, error: outcome.error ?? "The server refused it.")
                case .queued, .sending:
                    return ActionReply(ok: true, toast: "Read receipt queued: Tern sends it to \(to) as soon as the server can be reached.")
                case .sent, .none: return ActionReply(ok: true, toast: "Read receipt sent to \(to).")
                }
            }
        case "ignore":
            return try await reply(scripted: scripted, form: form) {
                try await services.readReceipts.ignore(id)
                return ActionReply(ok: true, toast: "Read receipt request ignored.")
            }
        default:
            throw HTTPError(.notFound)
        }
    }

    func targets(_ form: FormFields) throws -> [MailTarget] {
        let threads = form.all("thread").compactMap { ThreadID($0) }.map(MailTarget.thread)
        let messages = form.all("message").compactMap { EmailID($0) }.map(MailTarget.message)
        guard !(threads + messages).isEmpty else { throw HTTPError(.badRequest, message: "thread or message is needed") }
        return threads + messages
    }

    func perform(_ action: String, form: FormFields, scripted: Bool) async throws -> Response {
        switch action {
        case "archive", "delete":
            let targets = try targets(form)
            let window = try await services.undoWindows.action()
            return try await reply(scripted: scripted, form: form) {
                let folder = form["folder"].flatMap { $0.isEmpty ? nil : $0 }
                let result =
                    action == "archive"
                    ? try await services.mailActions.archive(targets, folder: folder, undoWindow: window)
                    : try await services.mailActions.delete(targets, folder: folder, undoWindow: window)
                let threads = targets.filter { if case .thread = $0 { true } else { false } }.count
                let noun = threads > 1 ? "Conversations" : threads == 1 ? "Conversation" : result.action.messages == 1 ? "Message" : "Messages"
                return ActionReply(
                    ok: true, toast: action == "archive" ? "\(noun) archived." : "\(noun) moved to Trash.",
                    undoToken: result.undo?.token, undoSeconds: result.undo == nil ? nil : window.wholeSeconds,
                    navigate: form["return"])
            }
        case "move", "label":
            // Issue 36: "Move to…" (`v`, drag and drop) and "Label as…" (`l`), undone like archive.
            let targets = try targets(form)
            guard let destination = form["to"], !destination.isEmpty else {
                // Without script the toolbar's form arrives without a folder: a page asks for it.
                guard !scripted else { throw HTTPError(.badRequest, message: "to is needed") }
                let folders = try await services.browse.folders(account: nil).filter { $0.folderType.isSyncable && $0.folderType != .drafts }
                var names: [String] = []
                for path in folders.map(\.path) where !names.contains(path) && path != form["folder"] { names.append(path) }
                return WebResponse.html(
                    ActionChoicePage(
                        action: action, title: action == "move" ? "Move to…" : "Label as…", form: form, page: page,
                        choices: names.map { ActionChoicePage.Choice(label: FolderNames.display($0), field: "to", value: $0) }
                    ).render())
            }
            let window = try await services.undoWindows.action()
            return try await reply(scripted: scripted, form: form) {
                let folder = form["folder"].flatMap { $0.isEmpty ? nil : $0 }
                let result =
                    action == "move"
                    ? try await services.mailActions.move(targets, to: destination, folder: folder, undoWindow: window)
                    : try await services.mailActions.label(targets, adding: destination, folder: folder, undoWindow: window)
                let threads = targets.filter { if case .thread = $0 { true } else { false } }.count
                let noun = threads > 1 ? "Conversations" : threads == 1 ? "Conversation" : result.action.messages == 1 ? "Message" : "Messages"
                return ActionReply(
                    ok: true, toast: action == "move" ? "\(noun) moved to \(destination)." : "\(noun) labelled \(destination).",
                    undoToken: result.undo?.token, undoSeconds: result.undo == nil ? nil : window.wholeSeconds,
                    navigate: action == "move" ? form["return"] : nil)
            }
        case "snooze":
            // Issue 36: Snooze (`b`): a choice of the menu or the picker's time, undone like archive.
            let targets = try targets(form)
            guard let until = form["until"], !until.isEmpty else {
                // Without script: the dialog's choices and picker as a page of its own.
                guard !scripted else { throw HTTPError(.badRequest, message: "until is needed") }
                let early = Calendar.current.component(.hour, from: Date()) < 17
                let choices = [
                    ActionChoicePage.Choice(
                        label: early ? "Later today (18:00)" : "Later today (in 3 hours)", field: "until", value: early ? "today 18:00" : "in 3h"),
                    ActionChoicePage.Choice(label: "Tomorrow (08:00)", field: "until", value: "tomorrow 08:00"),
                    ActionChoicePage.Choice(label: "Next week (Monday 08:00)", field: "until", value: "mon 08:00")
                ]
                return WebResponse.html(
                    ActionChoicePage(action: action, title: "Snooze until", form: form, page: page, choices: choices, picksTime: true).render())
            }
            let window = try await services.undoWindows.action()
            return try await reply(scripted: scripted, form: form) {
                let folder = form["folder"].flatMap { $0.isEmpty ? nil : $0 }
                let result = try await services.snooze.snooze(targets, until: until, folder: folder, undoWindow: window)
                let wake = result.wake.formatted(.dateTime.weekday(.abbreviated).day().month(.abbreviated).hour().minute())
                return ActionReply(
                    ok: true, toast: "Snoozed until \(wake).", undoToken: result.removal.undo?.token,
                    undoSeconds: result.removal.undo == nil ? nil : window.wholeSeconds, navigate: form["return"])
            }
        case "folder-create", "folder-rename", "folder-delete":
            // Issue 36: the folder list's own changes, shown at once and made on the server when
            // the undo window has passed, undone like archive.
            guard let path = form["path"], !path.isEmpty else { throw HTTPError(.badRequest, message: "path is needed") }
            let change: FolderChange
            switch action {
            case "folder-create": change = .create(path: path)
            case "folder-rename":
                guard let newPath = form["to"], !newPath.isEmpty else { throw HTTPError(.badRequest, message: "to is needed") }
                change = .rename(from: path, to: newPath)
            default: change = .delete(path: path)
            }
            let window = try await services.undoWindows.action()
            return try await reply(scripted: scripted, form: form) {
                let result = try await services.folderChanges.request(
                    change, account: AccountName(field: form["account"]), undoWindow: window,
                    messagesConfirmed: form["messages"].flatMap { Int($0) })
                let toast =
                    switch change {
                    case .create: "Folder \(path) created."
                    case .rename(_, let to): "Folder renamed to \(to)."
                    case .delete: "Folder \(path) deleted."
                    }
                return ActionReply(
                    ok: true, toast: toast, undoToken: result.undo?.token, undoSeconds: result.undo == nil ? nil : window.wholeSeconds,
                    navigate: form["return"])
            }
        case "star", "unstar", "read", "unread":
            let targets = try targets(form)
            let change = FlagChange(rawValue: action)!
            return try await reply(scripted: scripted, form: form) {
                let scope = try await services.mailActions.markLocally(change, targets, folder: form["folder"].flatMap { $0.isEmpty ? nil : $0 })
                // The store changed; the server hears of it without the page waiting (a refusal
                // comes back on the change feed).
                Task { [mailActions = services.mailActions] in _ = try? await mailActions.push(scope) }
                let toast: String? =
                    switch change {
                    case .unread: "Marked unread."
                    default: nil
                    }
                return ActionReply(ok: true, toast: toast, navigate: change == .unread ? form["return"] : nil)
            }
        case "undo":
            return try await reply(scripted: scripted, form: form) {
                let undone = try await services.mailActions.undo(form["token"])
                if let folder = undone.folderChange {
                    // Back to the folder as it is again (a rename undone: under its old name).
                    let account = try await services.listAccounts().first { $0.id == folder.accountId }?.name
                    var back: String?
                    if let account, folder.kind != .create { back = MailLocation(source: .folder(account: account, path: folder.path)).returnPath }
                    return ActionReply(ok: true, toast: "Folder change undone.", navigate: back)
                }
                return ActionReply(ok: true, toast: undone.threadIds.count == 1 ? "Conversation restored." : "Conversations restored.")
            }
        case "retry":
            guard let id = form["change"].flatMap({ PendingChangeID($0) }) else { throw HTTPError(.badRequest, message: "change is needed") }
            return try await reply(scripted: scripted, form: form) {
                _ = try await services.mailActions.retry(id)
                return ActionReply(ok: true, toast: nil)
            }
        case "load-older":
            return try await reply(scripted: scripted, form: form) {
                let result = try await services.loadOlderMail(account: AccountName(field: form["account"]), folder: form["folder"])
                return ActionReply(ok: true, toast: OlderMailWording.text(result))
            }
        default:
            throw HTTPError(.notFound)
        }
    }

    /// JSON for the app's script; for a form without script, back to the page it came from. A
    /// failure is worded, never a stack of types.
    func reply(scripted: Bool, form: FormFields, _ body: () async throws -> ActionReply) async throws -> Response {
        do {
            let result = try await body()
            return scripted ? WebResponse.json(result) : WebResponse.redirect(to: result.navigate ?? form["return"])
        } catch let error as HTTPError {
            throw error
        } catch {
            let text = WebErrorText.describe(error)
            if scripted { return WebResponse.json(ActionReply(ok: false, error: text), status: .conflict) }
            return WebResponse.html(WebErrorPage.document(title: "That didn't work", message: text), status: .conflict)
        }
    }
}

/// FR-SYNC-01 step 5's states in words.
enum OlderMailWording {
    static func text(_ result: OlderMailResult) -> String {
        switch result {
        case .notApplicable(let reason): "Older mail can't be loaded here: \(reason)."
        case .fetched(let count): count == 1 ? "1 older message loaded." : "\(count) older messages loaded."
        case .reachedBoundary(serverHistory: true): "No more messages: this is the start of the folder."
        case .reachedBoundary(serverHistory: false): "No more messages within the sync window."
        }
    }
}

/// Without script, Discard asks on a page of its own (the script asks in a dialog).
struct OutboxDiscardPage: Sendable {
    var messageId: EmailID
    var page: PageSecrets
    var returnPath: String?

    func render() -> HTMLText {
        let back = MailLocation(query: FormFields(URLComponents(string: returnPath ?? "/mail")?.percentEncodedQuery ?? ""))
        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\
            \(html: page.head)<title>Discard this message? — Tern</title><link rel="stylesheet" href="/assets/app.css"></head>\
            <body class="plain-page"><main><h1>Discard this message?</h1><p>It will not be sent, and it cannot be brought back.</p>\
            <form method="post" action="outbox/discard"><input type="hidden" name="csrf" value="\(page.csrfToken)">\
            <input type="hidden" name="message" value="\(messageId)"><input type="hidden" name="confirmed" value="1">\
            <input type="hidden" name="return" value="\(back.returnPath)">\
            <button type="submit" class="button">Discard</button> <a class="button" href="\(back.url)">Cancel</a></form></main></body></html>
            """
    }
}

/// Issue 36 without script: Move to…, Label as… and Snooze ask on a page of their own what their
/// dialogs ask, and post the same form again with the answer (the CSRF token, the conversation, the
/// folder in view and where to go back carried over).
struct ActionChoicePage: Sendable {
    struct Choice: Sendable {
        var label: String
        var field: String
        var value: String
    }

    var action: String
    var title: String
    var form: FormFields
    var page: PageSecrets
    var choices: [Choice]
    /// Snooze: a date and time of the person's own as well.
    var picksTime = false

    func render() -> HTMLText {
        var carried = HTMLText()
        for name in ["thread", "message", "folder", "return"] {
            for value in form.all(name) { carried += "<input type=\"hidden\" name=\"\(name)\" value=\"\(value)\">" }
        }
        let hidden: HTMLText = "<input type=\"hidden\" name=\"csrf\" value=\"\(page.csrfToken)\">\(html: carried)"
        var items = HTMLText()
        for choice in choices {
            items += "<li><button type=\"submit\" class=\"button\" name=\"\(choice.field)\" value=\"\(choice.value)\">\(choice.label)</button></li>"
        }
        let picker: HTMLText =
            picksTime
            ? """
            <form method="post" action="actions/\(action)" class="snooze-pick">\(html: hidden)<div><label for="snooze-at">Date and time</label>\
            <input id="snooze-at" name="until" type="datetime-local" required></div><button type="submit" class="button primary">Snooze</button></form>
            """ : ""
        let back = MailLocation(query: FormFields(URLComponents(string: form["return"] ?? "/mail")?.percentEncodedQuery ?? ""))
        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\
            \(html: page.head)<title>\(title) — Tern</title><link rel="stylesheet" href="/assets/app.css"></head>\
            <body class="plain-page"><main><h1 id="choice-title">\(title)</h1>\
            <form method="post" action="actions/\(action)">\(html: hidden)<ul class="choice-list" aria-labelledby="choice-title">\(html: items)</ul></form>\
            \(html: picker)<p><a class="button" href="\(back.url)">Cancel</a></p></main></body></html>
            """
    }
}
