import Foundation

/// Drafts (FR-COMP-01 "Draft lifecycle") and sending what was written with undo (FR-COMP-02).
/// A save is local, one transaction and idempotent: the front end's autosave can call it on its own
/// cadence (first meaningful edit, then every 30 s while the content changes) without waiting for
/// the network. The server copy follows in `LocalChangesPusher`'s pass (`DraftSyncProcessor`).
public struct DraftsUseCase: Sendable {
    let accounts: any AccountRepository
    let store: any DraftStore
    let coding: any DraftMessageCoding
    let files: any DraftFiles
    let attachments: any ComposeAttachmentLoading
    let validation: ComposeValidationUseCase
    let outbox: OutboxUseCase
    let pusher: LocalChangesPusher
    let changes: ChangeFeed?
    let clock: any WallClock

    public init(
        accounts: any AccountRepository, store: any DraftStore, coding: any DraftMessageCoding, files: any DraftFiles,
        attachments: any ComposeAttachmentLoading, validation: ComposeValidationUseCase, outbox: OutboxUseCase,
        pusher: LocalChangesPusher, changes: ChangeFeed? = nil, clock: any WallClock = SystemClock()
    ) {
        self.accounts = accounts
        self.store = store
        self.coding = coding
        self.files = files
        self.attachments = attachments
        self.validation = validation
        self.outbox = outbox
        self.pusher = pusher
        self.changes = changes
        self.clock = clock
    }

    /// Saves `content` as draft `id`, or as a new draft. A composer closed with nothing typed creates
    /// nothing (nil). Files attached are copied into the draft's own directory first.
    public func save(_ content: ComposeDraft, id: Draft.ID? = nil) async throws -> DraftSave? {
        var existing: Draft?
        if let id {
            guard let stored = try await store.draft(id: id), stored.sync.state != .removing else { throw TernError.notFound("draft \(id)") }
            existing = stored
        }
        if existing == nil, content.isEmpty { return nil }
        let messageId = existing?.messageId ?? coding.newMessageId(for: content.from)
        var content = content
        content.notes = []
        for index in content.attachments.indices {
            guard case .file(let path) = content.attachments[index].source else { continue }
            content.attachments[index].source = .file(path: try files.keep(path, key: messageId))
        }
        let saved = try await store.save(
            id: id, accountId: existing?.accountId ?? content.accountId, messageId: messageId, content: content,
            at: clock.now())
        if saved.changed { changes?.publish(.draftsChanged) }
        return saved
    }

    /// The Drafts list: local drafts and the drafts other clients left in the server's Drafts
    /// mailbox, newest first, each once.
    public func list(account name: AccountName? = nil) async throws -> [DraftSummary] {
        var accountId: Account.ID?
        if let name { accountId = try await accounts.namedOrOnly(name).id }
        let local = try await store.drafts(accountId: accountId).map { draft in
            DraftSummary(
                origin: .local, id: draft.id.rawValue, accountId: draft.accountId, subject: draft.content.subject, to: draft.content.to,
                snippet: Self.snippet(draft.content.body), updatedDate: draft.updatedDate, sync: draft.sync.state,
                lastError: draft.sync.lastError)
        }
        let server = try await store.serverOnlyDrafts(accountId: accountId)
        return (local + server).sorted { $0.updatedDate > $1.updatedDate }
    }

    public func open(_ id: Draft.ID) async throws -> Draft {
        guard let draft = try await store.draft(id: id), draft.sync.state != .removing else { throw TernError.notFound("draft \(id)") }
        return draft
    }

    /// Opens a draft another client saved: it becomes a local draft that is that server copy, so
    /// the next save replaces it there (same Message-ID) instead of adding a second one.
    public func open(serverEmailId emailId: EmailID) async throws -> Draft {
        guard let (original, copy) = try await store.serverDraft(emailId: emailId) else {
            throw TernError.notFound("a message \(emailId) in a Drafts mailbox")
        }
        let email = original.email
        guard let messageId = email.headerMessageId ?? email.messageId else {
            throw TernError.invalidInput("the draft \(emailId) has no Message-ID, so Tern cannot replace it on the server")
        }
        let account = try await accounts.account(id: email.accountId)
        let from = EmailAddress(
            name: email.fromName ?? account?.displayName, address: email.fromAddress.isEmpty ? account?.emailAddress ?? "" : email.fromAddress)
        let body = email.bodyPlain ?? ""
        // CO01-16: an inline image stays when the text refers to it (a draft Tern wrote elsewhere), with its Content-ID.
        func isShown(_ attachment: Attachment) -> Bool { attachment.contentId.map { body.contains("(cid:\($0))") } ?? false }
        let content = ComposeDraft(
            mode: email.inReplyTo == nil ? .new : .reply, accountId: email.accountId, from: from, to: email.toAddresses,
            cc: email.ccAddresses, bcc: email.bccAddresses, subject: email.subject, body: body,
            inReplyTo: email.inReplyTo, references: (email.references ?? "").split(separator: " ").map(String.init),
            attachments: original.attachments.filter { !$0.isInline || isShown($0) }.compactMap { attachment in
                attachment.id.map {
                    ComposedAttachment(
                        source: .storedAttachment(id: $0), filename: attachment.filename,
                        mimeType: attachment.mimeType, sizeBytes: attachment.sizeBytes,
                        availability: attachment.isDownloaded ? .local : .pending, contentId: isShown(attachment) ? attachment.contentId : nil)
                }
            })
        let id = try await store.adopt(accountId: email.accountId, messageId: messageId, content: content, copy: copy, at: clock.now())
        return try await open(id)
    }

    /// The front end reloaded the server's version, or chose to keep its own (its next save wins).
    public func acknowledgeServerChange(_ id: Draft.ID) async throws {
        try await store.clearChangedOnServer(id: id)
    }

    /// FR-COMP-01 "Delete draft?" answered yes: gone locally now, from the server at the next pass.
    public func discard(_ id: Draft.ID) async throws {
        let draft = try await open(id)
        guard draft.heldEmailId == nil else { throw TernError.invalidInput("draft \(id) is being sent (undo it first)") }
        try await store.remove(id: id)
        files.removeAll(key: draft.messageId)
        changes?.publish(.draftsChanged)
    }

    /// Sends draft `id` (FR-COMP-02). With an undo window the message is queued held by this process
    /// and the draft stays until `commit`: Undo, or the process dying in the window, leaves it a draft.
    /// Without one the draft goes at once. Front ends check and confirm first (`ComposeValidationUseCase`);
    /// this refuses only what cannot be sent.
    public func send(_ id: Draft.ID, undoWindow: Duration) async throws -> DraftSending {
        let (draft, account, loaded, awaiting) = try await readyToSend(id)
        let message = draft.content.outgoingMessage(date: clock.now(), attachments: loaded)
        guard undoWindow > .zero else {
            // Linked before the queue runs, as after an undo window: the draft goes once the message is sent.
            let queued = try await outbox.send(message, from: account, attemptNow: false, awaitingAttachments: awaiting)
            try await store.setHeld(id: id, emailId: queued.emailId)
            let outcome = try await outbox.pushNow(queued, account: account)
            changes?.publish(.draftsChanged)
            changes?.publish(.composerSend(ComposerSendUpdate(draftId: id, outcome: outcome)))
            return .sent(outcome)
        }
        let held = try await outbox.sendHeld(message, from: account, window: undoWindow, awaitingAttachments: awaiting)
        do {
            try await store.setHeld(id: id, emailId: held.emailId)
        } catch {
            try? await outbox.undo(held)
            throw error
        }
        changes?.publish(.draftsChanged)
        changes?.publish(.composerSend(ComposerSendUpdate(draftId: id, emailId: held.emailId, state: .undoWindow, until: held.until)))
        return .held(HeldDraftSend(draftId: id, draftMessageId: draft.messageId, send: held))
    }

    /// A draft that can go: not being sent already, nothing that blocks sending, its account, its
    /// attachments loaded (downloaded first when they are not local), and whether a forwarded
    /// original's could not be downloaded now because its server cannot be reached: then the
    /// message is queued without them, as a stand-in the queue completes when it can (CO01-15: a
    /// forward may be queued offline, and no SMTP transaction starts before every attachment is local).
    func readyToSend(_ id: Draft.ID) async throws -> (Draft, Account, [OutgoingAttachment], awaiting: Bool) {
        let draft = try await open(id)
        guard draft.heldEmailId == nil else { throw TernError.invalidInput("draft \(id) is being sent already") }
        let check = validation.validate(draft.content)
        guard check.canSend else {
            let reasons = check.invalidRecipients.map { "\($0.text): \($0.reason)" } + check.warnings.filter(\.blocksSending).map(\.message)
            throw TernError.invalidInput(reasons.joined(separator: "; "))
        }
        guard let account = try await accounts.account(id: draft.accountId) else { throw TernError.notFound("the account of draft \(id)") }
        var loaded: [OutgoingAttachment] = []
        var awaiting = false
        for attachment in draft.content.attachments {
            do {
                loaded.append(try await attachments.load(attachment))
            } catch let error as TernError where error.isRetryable {
                guard case .storedAttachment = attachment.source else { throw error }
                awaiting = true
            }
        }
        return (draft, account, loaded, awaiting)
    }

    /// Send later (issue 36): draft `id` waits in the Outbox until `time`, linked to its draft as a sent
    /// one is, so `reopen` gives it back to edit and `tern outbox discard` cancels it. No undo window:
    /// until its time it can be taken back whole.
    public func schedule(_ id: Draft.ID, at time: Date) async throws -> SendOutcome {
        try OutboxUseCase.checkScheduledTime(time, now: clock.now())
        let (draft, account, loaded, awaiting) = try await readyToSend(id)
        let outcome = try await outbox.schedule(
            draft.content.outgoingMessage(date: time, attachments: loaded), from: account, at: time, awaitingAttachments: awaiting)
        do {
            try await store.setHeld(id: id, emailId: outcome.emailId)
        } catch {
            try? await outbox.discard(outcome.emailId)
            throw error
        }
        changes?.publish(.draftsChanged)
        changes?.publish(.outboxChanged(accountId: account.id))
        return outcome
    }

    /// The end of the undo window: the hold is lifted. The draft stays linked to its message, out of
    /// the Drafts list, until the message is sent (the outbox store marks it for removal then, and the
    /// drafts pass removes it and its files) or fails and is reopened (`reopenFailed`, issue 34), so
    /// a failed message goes back to the composer whole, attachments included. A process killed
    /// before the hold is lifted leaves an orphaned hold, which returns the draft; after, a queued
    /// message whose draft goes once it is sent (never one sent twice).
    public func commit(_ held: HeldDraftSend) async throws -> SendOutcome {
        changes?.publish(.composerSend(ComposerSendUpdate(draftId: held.draftId, emailId: held.send.emailId, state: .sending)))
        let outcome = try await outbox.commit(held.send)
        changes?.publish(.draftsChanged)
        changes?.publish(.composerSend(ComposerSendUpdate(draftId: held.draftId, outcome: outcome)))
        return outcome
    }

    /// Undo in the window: nothing reached SMTP, and the message is its draft again, with every field.
    public func undo(_ held: HeldDraftSend) async throws -> Draft {
        try await outbox.undo(held.send)
        try await store.setHeld(id: held.draftId, emailId: nil)
        changes?.publish(.draftsChanged)
        changes?.publish(.composerSend(ComposerSendUpdate(draftId: held.draftId, emailId: held.send.emailId, state: .undoCancelled)))
        return try await open(held.draftId)
    }

    /// CO01-S5, CO02-T7 "Tap to retry" (issue 34): a failed message goes back to the draft it was sent
    /// from, with every field and attachment, and leaves the Outbox (no copy is left to be retried
    /// as well). The draft is unlinked first: a process killed between the two leaves the draft and
    /// the failed message, which is never sent by itself.
    ///
    /// Send later (issue 36): a message still waiting for its time goes back to its draft the same way
    /// (Edit in the Outbox), unscheduled.
    public func reopenFailed(_ emailId: EmailID) async throws -> Draft {
        guard let entry = try await outbox.entry(emailId), entry.state == .failed || entry.isScheduled(after: clock.now()) else {
            throw TernError.invalidInput(
                "message \(emailId) has not failed and is not waiting for its time: only those go back to their draft")
        }
        guard let draft = try await store.draft(holding: emailId) else {
            throw TernError.notFound("the draft message \(emailId) was sent from (it was sent before Tern kept drafts until sending)")
        }
        try await store.setHeld(id: draft.id, emailId: nil)
        try await outbox.discard(emailId)
        changes?.publish(.draftsChanged)
        changes?.publish(.outboxChanged(accountId: draft.accountId))
        return try await open(draft.id)
    }

    /// Pushes the account's drafts (and everything else local) now, for a front end that just saved.
    public func syncToServer(accountId: Account.ID) async throws -> PushReport {
        guard let account = try await accounts.account(id: accountId) else { throw TernError.notFound("account \(accountId)") }
        return try await pusher.push(account: account)
    }

    static func snippet(_ body: String) -> String {
        let words = body.split(whereSeparator: \.isWhitespace)
        return String(words.joined(separator: " ").prefix(140))
    }
}

/// What `DraftsUseCase.send` started.
public enum DraftSending: Sendable {
    /// In its undo window: `commit` at its end, or `undo`.
    case held(HeldDraftSend)
    /// Queued without a window (and tried at once).
    case sent(SendOutcome)
}

/// A draft's message in its undo window, owned by this process.
public struct HeldDraftSend: Sendable {
    public let draftId: Draft.ID
    let draftMessageId: String
    public let send: HeldSend
}
