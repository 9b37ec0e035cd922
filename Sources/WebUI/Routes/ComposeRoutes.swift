import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TernCore
import TernRuntime

/// The composer's endpoints (issue 18): the composer for a mode and message, recipient suggestions
/// from the local contact cache (FR-COMP-04, merged across accounts, nothing leaves the machine),
/// the checks Send needs (FR-COMP-01 validation), files the user attaches, and sending.
struct ComposeRoutes: Sendable {
    let services: TernServices
    let state: WebState
    let page: PageSecrets
    var csrfToken: String { page.csrfToken }

    /// Uploads wait here until the message is sent or the composer is discarded; a day old, they go.
    static let uploadLimit = Int(ComposeValidationUseCase.attachmentLimitBytes) + 1024 * 1024

    func register(on router: Router<BasicRequestContext>) {
        router.get("fragments/composer") { request, _ in
            let query = FormFields(request.uri.query ?? "")
            guard let target = ComposeTarget(query: query) else { throw HTTPError(.badRequest, message: "compose and message are needed") }
            var location = MailLocation(query: FormFields(query["location"] ?? ""))
            location.compose = nil
            return WebResponse.html(try await composer(target, location: location))
        }
        // Issue 36: the address the browser opens for a mailto: link once Tern is its handler
        // (`navigator.registerProtocolHandler`, offered in Settings): a new message prefilled, in the app.
        router.get("compose") { request, _ in
            let link = FormFields(request.uri.query ?? "")["mailto"] ?? ""
            var location = MailLocation(query: FormFields(""))
            var target = ComposeTarget(mode: .new, messageId: nil)
            target.mailto = link.isEmpty ? nil : link
            location.compose = target
            return WebResponse.redirect(to: location.returnPath)
        }
        router.get("contacts") { request, _ in
            let query = FormFields(request.uri.query ?? "")["q"] ?? ""
            let suggestions = try await state.contacts.index(services.contactsAutocomplete).suggestions(for: query, limit: 8)
            return WebResponse.json(suggestions.map { ContactOption(name: $0.name, address: $0.address) })
        }
        router.post("compose/check") { request, _ in
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit * 32)))
            let (draft, _) = try await draft(from: form)
            return WebResponse.json(ComposeCheck(services.composeValidation.validate(draft)))
        }
        router.post("compose/send") { request, _ in
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit * 32)))
            return try await send(form, scripted: WebResponse.isScripted(request))
        }
        router.post("compose/schedule") { request, _ in
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit * 32)))
            return try await schedule(form, scripted: WebResponse.isScripted(request))
        }
        router.post("compose/undo") { request, _ in
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit)))
            guard let emailId = form["email"].flatMap({ EmailID($0) }) else { throw HTTPError(.badRequest, message: "email is needed") }
            guard let draft = try await services.undoSend.undo(emailId) else {
                return WebResponse.json(ActionReply(ok: false, error: "Too late to undo: the message is being sent."), status: .conflict)
            }
            return WebResponse.json(DraftReply(ok: true, draftId: draft.id, toast: "Sending cancelled."))
        }
        // The page's countdown ended with the page open: the message may go (a closed tab never confirms).
        router.post("compose/commit") { request, _ in
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit)))
            guard let emailId = form["email"].flatMap({ EmailID($0) }) else { throw HTTPError(.badRequest, message: "email is needed") }
            guard await services.undoSend.confirm(emailId) else {
                return WebResponse.json(ActionReply(ok: false, error: "Not sent: the message went back to your drafts."), status: .conflict)
            }
            return WebResponse.json(ActionReply(ok: true))
        }
        // CO01-S5, CO02-T7 "Tap to retry" (issue 34): the failed message back in its own draft, out of the Outbox.
        router.post("compose/reopen") { request, _ in
            let emailId = try await Self.emailField(request)
            do {
                let draft = try await services.drafts.reopenFailed(emailId)
                return WebResponse.json(DraftReply(ok: true, draftId: draft.id))
            } catch let error as TernError {
                return WebResponse.json(ActionReply(ok: false, error: WebErrorText.describe(error)), status: .conflict)
            }
        }
        // FR-COMP-02 "App enters background during undo window: Timer pauses": the page was hidden
        // (and says so again each minute it stays hidden); then seen again, when the countdown goes on.
        router.post("compose/pause") { request, _ in
            let emailId = try await Self.emailField(request)
            guard let remaining = await services.undoSend.pause(emailId) else {
                return WebResponse.json(WindowReply(ok: false, error: "Not sent: the message went back to your drafts."), status: .conflict)
            }
            return WebResponse.json(WindowReply(ok: true, milliseconds: remaining.wholeMilliseconds))
        }
        router.post("compose/resume") { request, _ in
            let emailId = try await Self.emailField(request)
            guard let until = await services.undoSend.resume(emailId) else {
                return WebResponse.json(WindowReply(ok: false, error: "Not sent: the message went back to your drafts."), status: .conflict)
            }
            return WebResponse.json(WindowReply(ok: true, milliseconds: max(0, Int(until.timeIntervalSinceNow * 1000))))
        }
        // FR-COMP-01 "Draft Auto-Save Lifecycle": the page's autosave, Ctrl+S, Save draft and Close with content.
        router.post("compose/draft") { request, _ in
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit * 32)))
            return try await saveDraft(form, scripted: WebResponse.isScripted(request))
        }
        // "Delete draft?" answered Delete: gone here now, from the server's Drafts in the background.
        router.post("compose/discard") { request, _ in
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit * 32)))
            if let id = form["draft"].flatMap({ DraftID($0) }) {
                let draft = try await services.drafts.open(id)
                try await services.drafts.discard(id)
                pushInBackground(draft.accountId)
            }
            for upload in form.all("upload") { state.uploads.remove(id: upload) }
            guard WebResponse.isScripted(request) else { return WebResponse.redirect(to: form["return"]) }
            return WebResponse.json(ActionReply(ok: true, toast: "Draft deleted."))
        }
        // FR-COMP-01 "Conflict": Reload takes the server's version; Keep Local leaves the page's until its next save.
        router.post("compose/keep-local") { request, _ in
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit)))
            guard let id = form["draft"].flatMap({ DraftID($0) }) else { throw HTTPError(.badRequest, message: "draft is needed") }
            try await services.drafts.acknowledgeServerChange(id)
            return WebResponse.json(ActionReply(ok: true))
        }
        router.get("compose/status") { request, _ in
            guard let emailId = FormFields(request.uri.query ?? "")["email"].flatMap({ EmailID($0) }) else {
                throw HTTPError(.badRequest, message: "email is needed")
            }
            let entry = try await services.outbox.outbox(account: nil).first { $0.emailId == emailId }
            return WebResponse.json(SendStatus(state: entry?.state.rawValue ?? "sent", error: entry?.error))
        }
        router.post("compose/attachments") { request, _ in
            var request = request
            let name = request.headers[Self.fileNameHeader].flatMap { $0.removingPercentEncoding } ?? "attachment"
            let type = request.headers[.contentType] ?? "application/octet-stream"
            let body = try await request.collectBody(upTo: Self.uploadLimit)
            let inline = request.headers[Self.inlineImageHeader] == "1"
            let upload = try state.uploads.store(bytes: body.readableBytesView, filename: name, mimeType: type, inline: inline)
            return WebResponse.json(upload)
        }
    }

    static let fileNameHeader = HTTPField.Name("X-File-Name")!
    /// CO01-16: the file was pasted or dropped into the text, to go inline when it is an image.
    static let inlineImageHeader = HTTPField.Name("X-Inline-Image")!

    /// The held message a small form names (`email=34`).
    static func emailField(_ request: Request) async throws -> EmailID {
        var request = request
        let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit)))
        guard let emailId = form["email"].flatMap({ EmailID($0) }) else { throw HTTPError(.badRequest, message: "email is needed") }
        return emailId
    }

    /// What is left of a paused or resumed undo window.
    struct WindowReply: Encodable, Sendable {
        var ok: Bool
        var milliseconds: Int?
        var error: String?
    }

    /// Send: checked again here (the page's checks are a convenience), the confirmations asked
    /// (`confirmed=1` once the page asked them), attachments made local, then queued with the undo
    /// delay (FR-COMP-02) for the send queue.
    func send(_ form: FormFields, scripted: Bool) async throws -> Response {
        let (draft, draftId) = try await draft(from: form)
        if let refusal = try await refusal(of: draft, form: form, scripted: scripted, again: "Send") { return refusal }
        // Sent through its draft: Undo, or this server dying in the window, leaves the draft (FR-COMP-02).
        guard let saved = try await services.drafts.save(draft, id: draftId) else {
            return try await refuse("The message is empty.", form: form, draft: draft, scripted: scripted)
        }
        let reply: SentReply
        do {
            // issue 18: a page with script confirms at the end of its countdown; a closed tab leaves the draft.
            switch try await services.undoSend.send(saved.draftId, watcher: scripted ? .page : .none) {
            case .held(let held, let window):
                reply = SentReply(
                    ok: true, emailId: held.send.emailId, draftId: saved.draftId, undoSeconds: window.wholeSeconds,
                    state: SendState.queued.rawValue)
            case .sent(let outcome):
                reply = SentReply(ok: true, emailId: outcome.emailId, draftId: saved.draftId, undoSeconds: 0, state: outcome.state.rawValue)
            }
        } catch let error as TernError {
            // An attachment that could not be downloaded, an account signed out: the draft keeps everything.
            return try await refuse(
                "\(WebErrorText.describe(error)) The message is saved as a draft.", form: form, draft: draft, scripted: scripted,
                draftId: saved.draftId)
        }
        for id in form.all("upload") { state.uploads.remove(id: id) }
        guard scripted else { return WebResponse.redirect(to: form["return"]) }
        return WebResponse.json(reply)
    }

    /// Send later (issue 36): the same checks as Send, then the draft waits in the Outbox for the time
    /// chosen: a common choice (`when`, a `WhenExpression` read in the server's time zone) or the
    /// picker's (`at`: an ISO time with its offset from the page's script, or the bare local value
    /// of a page without script, read in the server's time zone, which is the browser's on this machine).
    func schedule(_ form: FormFields, scripted: Bool) async throws -> Response {
        let (draft, draftId) = try await draft(from: form)
        let choice = form["when"] ?? ""
        let text = choice == "picker" ? form["at"] ?? "" : choice
        let time: Date
        do {
            time = try WhenExpression(text).date(now: Date(), calendar: .current)
        } catch {
            let reason = text.isEmpty ? "Choose a date and time to send it." : "Couldn't read the time: \(error)."
            return try await refuse(reason, form: form, draft: draft, scripted: scripted)
        }
        if let refusal = try await refusal(of: draft, form: form, scripted: scripted, again: "Schedule") { return refusal }
        guard let saved = try await services.drafts.save(draft, id: draftId) else {
            return try await refuse("The message is empty.", form: form, draft: draft, scripted: scripted)
        }
        let outcome: SendOutcome
        do {
            outcome = try await services.drafts.schedule(saved.draftId, at: time)
        } catch let error as TernError {
            return try await refuse(
                "\(WebErrorText.describe(error)) The message is saved as a draft.", form: form, draft: draft, scripted: scripted,
                draftId: saved.draftId)
        }
        for id in form.all("upload") { state.uploads.remove(id: id) }
        guard scripted else { return WebResponse.redirect(to: form["return"]) }
        let when = outcome.scheduledAt.map { RelativeTime().full($0) } ?? ""
        return WebResponse.json(
            ScheduledReply(ok: true, emailId: outcome.emailId, draftId: saved.draftId, toast: "Scheduled to send \(when). It waits in the Outbox."))
    }

    /// What stops Send or Schedule (checked again here: the page's checks are a convenience), or the
    /// confirmations not yet asked (`confirmed=1` once the page asked them); nil when it may go.
    private func refusal(of draft: ComposeDraft, form: FormFields, scripted: Bool, again verb: String) async throws -> Response? {
        let validation = services.composeValidation.validate(draft)
        guard validation.canSend else {
            let check = ComposeCheck(validation)
            let problems = check.blocking + check.invalid.map { "\($0.text): \($0.reason)" }
            return try await refuse(problems.joined(separator: " "), form: form, draft: draft, scripted: scripted)
        }
        if !validation.confirmations.isEmpty, form["confirmed"] != "1" {
            return try await refuse(
                validation.confirmations.map(\.question).joined(separator: " ") + " \(verb) again to confirm.",
                form: form, draft: draft, scripted: scripted, confirm: true)
        }
        return nil
    }

    /// The composer again, with everything typed and what stops it (no script), or the reason as JSON.
    private func refuse(
        _ reason: String, form: FormFields, draft: ComposeDraft, scripted: Bool, confirm: Bool = false,
        draftId: Draft.ID? = nil
    ) async throws -> Response {
        let status: HTTPResponse.Status = confirm ? .conflict : .unprocessableContent
        let draftId = draftId ?? form["draft"].flatMap { DraftID($0) }
        if scripted { return WebResponse.json(RefusedReply(ok: false, error: reason, draftId: draftId), status: status) }
        var target = ComposeTarget(mode: draft.mode, messageId: draft.originalEmailId)
        target.draftId = draftId
        let location = MailLocation(query: FormFields(URLComponents(string: form["return"] ?? "/mail")?.percentEncodedQuery ?? ""))
        let composer = try await composer(target, location: location, errors: [reason], typed: draft, confirmed: confirm)
        return WebResponse.html(
            """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\
            \(html: page.head)<title>\(target.title) — Tern</title><link rel="stylesheet" href="/assets/app.css"></head>\
            <body class="plain-page"><main>\(html: composer)</main></body></html>
            """, status: status)
    }

    /// The composer prefilled by the use case: a new message, or a reply, reply-all or forward of
    /// a stored one (from the account that received it).
    func composer(
        _ target: ComposeTarget, location: MailLocation, errors: [String] = [], typed: ComposeDraft? = nil,
        confirmed: Bool = false
    ) async throws -> HTMLText {
        var draftId = target.draftId
        if let server = target.serverDraftId { draftId = try await services.drafts.open(serverEmailId: server).id }
        // CO01-M1: a new message from the account asked for, else that of the folder being viewed (the picker changes it).
        let preferred = target.account ?? location.accountName
        var draft: ComposeDraft =
            if let typed {
                typed
            } else if let draftId {
                try await services.drafts.open(draftId).content
            } else if let messageId = target.messageId, target.mode != .new {
                try await state.prefills.prefill(mode: target.mode, original: messageId, account: nil) {
                    try await services.compose.compose(target.mode, replyingTo: messageId)
                }
            } else {
                try await state.prefills.prefill(mode: .new, original: nil, account: preferred) {
                    try await services.compose.new(preferring: preferred)
                }
            }
        if typed == nil, draftId == nil, let suggestion = target.suggestion { draft.body = suggestion + draft.body }
        var mailtoNotes: [String] = []
        if typed == nil, draftId == nil, let link = target.mailto {
            // Issue 36: a link prefills, never sends; what it may not set is said, and a hostile one refused.
            do {
                let mailto = try MailtoURI(link)
                draft = services.composeValidation.applying(mailto.edit, to: draft)
                if !mailto.ignoredFields.isEmpty {
                    let ignored = mailto.ignoredFields.joined(separator: ", ")
                    mailtoNotes.append("The link also tried to set \(ignored): ignored. A link sets only To, Cc, Bcc, Subject and the text.")
                }
            } catch {
                mailtoNotes.append("This email link was not used: \(error).")
            }
        }
        let accounts = try await services.listAccounts()
        let account = accounts.first { $0.id == draft.accountId }?.name ?? ""
        let settings = try await services.settings.current()
        let undoWindow = try await services.undoSend.window()
        let identities = try await services.identities.list().flatMap(\.identities)
        return ComposerView(
            draft: draft, target: target, location: location, csrfToken: csrfToken, account: account, senders: accounts,
            identities: identities, draftId: draftId,
            undoSeconds: undoWindow.wholeSeconds, autosaveSeconds: state.autosaveSeconds, errors: errors, confirmed: confirmed,
            offersSmartReplies: settings.assistProvider != .off, mailtoNotes: mailtoNotes
        ).render()
    }

    /// The message as the form holds it: the prefill again (sender, threading headers) with what the
    /// user changed (recipients, subject, body, attachments kept).
    func draft(from form: FormFields) async throws -> (ComposeDraft, Draft.ID?) {
        let mode = form["mode"].flatMap(ComposeMode.init(rawValue:)) ?? .new
        let draftId = form["draft"].flatMap { DraftID($0) }
        // Issue 35: the picker's value is an account's name, or its name and one of its identities' addresses.
        let pickedParts = (form["account"] ?? "").split(separator: " ", maxSplits: 1).map(String.init)
        let picked = pickedParts.first.map { AccountName($0) }
        let pickedAddress = pickedParts.count > 1 ? pickedParts[1] : nil
        var draft: ComposeDraft =
            if let draftId {
                try await services.drafts.open(draftId).content
            } else if let original = form["original"].flatMap({ EmailID($0) }), mode != .new {
                try await state.prefills.prefill(mode: mode, original: original, account: nil) {
                    try await services.compose.compose(mode, replyingTo: original)
                }
            } else {
                try await state.prefills.prefill(mode: .new, original: nil, account: picked) { try await services.compose.new(account: picked) }
            }
        // CO01-M1: the From picker may name another account than the prefill's (a reply sent from another address).
        let prefilledSignature = draft.signature
        if let picked, let pickedAddress {
            draft = try await services.compose.sending(draft, fromAddress: pickedAddress, accountName: picked)
        } else if let picked {
            draft = try await services.compose.sending(draft, from: picked)
        }
        var edit = ComposeEdit(
            to: form["to"] ?? "", cc: form["cc"] ?? "", bcc: form["bcc"] ?? "", subject: form["subject"] ?? "",
            body: form["body"] ?? "")
        let kept = Set(form.all("attachment").compactMap { AttachmentID($0) })
        let keptFiles = Set(form.all("draftfile"))
        edit.keepsAttachment = { attachment in
            switch attachment.source {
            case .storedAttachment(let id): kept.contains(id)
            case .file: keptFiles.contains(attachment.filename)
            }
        }
        edit.addedAttachments = form.all("upload").compactMap { id in
            state.uploads.upload(id: id).map {
                ComposedAttachment(
                    source: .file(path: $0.path), filename: $0.name, mimeType: $0.type, sizeBytes: $0.size, availability: .local,
                    contentId: $0.contentId)
            }
        }
        var edited = services.composeValidation.applying(edit, to: draft)
        // The text as the page holds it carries the signature it was drawn with: the chosen identity's goes in its place.
        edited.body = SignatureBlock.replacing(prefilledSignature, with: edited.signature, in: edited.body)
        return (edited, draftId)
    }

    /// Saves the form as its draft (a new one the first time). Uploads become the draft's own files,
    /// so the reply says which upload ids the page should now name as draft files.
    func saveDraft(_ form: FormFields, scripted: Bool) async throws -> Response {
        let (content, draftId) = try await draft(from: form)
        let uploads = form.all("upload")
        guard let saved = try await services.drafts.save(content, id: draftId) else {
            guard scripted else { return WebResponse.redirect(to: form["return"]) }
            return WebResponse.json(DraftReply(ok: true, draftId: nil, toast: nil))
        }
        var kept: [String: String] = [:]
        for id in uploads {
            if let upload = state.uploads.upload(id: id) { kept[id] = upload.name }
            state.uploads.remove(id: id)
        }
        if saved.changed { pushInBackground(content.accountId) }
        guard scripted else {
            var location = MailLocation(query: FormFields(URLComponents(string: form["return"] ?? "/mail")?.percentEncodedQuery ?? ""))
            location.compose = ComposeTarget(draftId: saved.draftId)
            return WebResponse.redirect(to: location.returnPath)
        }
        return WebResponse.json(DraftReply(ok: true, draftId: saved.draftId, toast: "Draft saved", uploadsKept: kept))
    }

    /// The server's Drafts follows the local save without the page waiting (FR-COMP-01: best-effort, retried).
    func pushInBackground(_ accountId: Account.ID) {
        let drafts = services.drafts
        Task { _ = try? await drafts.syncToServer(accountId: accountId) }
    }
}

struct SentReply: Encodable, Sendable {
    var ok: Bool
    var emailId: EmailID
    var draftId: DraftID
    var undoSeconds: Int
    var state: String
}

struct ScheduledReply: Encodable, Sendable {
    var ok: Bool
    var emailId: EmailID
    var draftId: DraftID
    var toast: String
}

struct RefusedReply: Encodable, Sendable {
    var ok: Bool
    var error: String
    var draftId: DraftID?
}

struct DraftReply: Encodable, Sendable {
    var ok: Bool
    var draftId: DraftID?
    var toast: String?
    var uploadsKept: [String: String] = [:]
}

struct SendStatus: Encodable, Sendable {
    var state: String
    var error: String?
}

/// A suggestion as the combobox shows it.
struct ContactOption: Codable, Sendable {
    var name: String?
    var address: String
}

/// The validation as the page's script reads it: each invalid recipient with its field, what blocks
/// sending, and the questions to ask first.
struct ComposeCheck: Encodable, Sendable {
    var canSend: Bool
    var invalid: [InvalidRecipient]
    var blocking: [String]
    var warnings: [String]
    var confirmations: [String]

    init(_ validation: ComposeValidation) {
        canSend = validation.canSend
        invalid = validation.invalidRecipients
        blocking = validation.warnings.filter(\.blocksSending).map { Self.sentence($0.message) }
        warnings = validation.warnings.filter { !$0.blocksSending }.map { Self.sentence($0.message) }
        confirmations = validation.confirmations.map(\.question)
    }

    static func sentence(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() + "." }
}
