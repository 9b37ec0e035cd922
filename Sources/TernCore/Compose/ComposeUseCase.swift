import Foundation

/// FR-COMP-01: a new message, or a reply, reply-all or forward of a stored message, prefilled as
/// the spec's table says (`ComposePrefill`). Nothing is saved: the result is what the composer
/// opens with, and a draft is made from it only once the user edits it.
public struct ComposeUseCase: Sendable {
    let accounts: any AccountRepository
    let store: any ComposeStore
    let syntax: any MailSyntax
    let sanitizer: any BodySanitizing
    let bodies: (any OriginalBodyFetching)?
    /// Issue 35: the accounts' identities (addresses, names, signatures); without them, those each account implies.
    let identities: (any IdentityRepository)?
    /// The time zone of the attribution line's date ("On [date], …").
    let timeZone: TimeZone

    public init(
        accounts: any AccountRepository, store: any ComposeStore, syntax: any MailSyntax, sanitizer: any BodySanitizing,
        bodies: (any OriginalBodyFetching)? = nil, identities: (any IdentityRepository)? = nil, timeZone: TimeZone = .current
    ) {
        self.accounts = accounts
        self.store = store
        self.syntax = syntax
        self.sanitizer = sanitizer
        self.bodies = bodies
        self.identities = identities
        self.timeZone = timeZone
    }

    /// An empty message from the named account, or the only one.
    public func new(account name: AccountName?) async throws -> ComposeDraft {
        try await newDraft(from: try await accounts.namedOrOnly(name))
    }

    /// CO01-M1: an empty message from the account named (the one picked, or that of the folder
    /// being viewed) when it exists, else from the first account by name, so that a person with
    /// several accounts gets a composer with a From picker rather than a refusal.
    public func new(preferring name: AccountName?) async throws -> ComposeDraft {
        let all = try await accounts.allAccounts().sorted { $0.name < $1.name }
        guard let account = all.first(where: { $0.name == name }) ?? all.first else { throw TernError.accountNeeded(available: []) }
        return try await newDraft(from: account)
    }

    /// An empty message from the account's default identity, its signature in place (issue 35).
    func newDraft(from account: Account) async throws -> ComposeDraft {
        let identity = try await identities(of: account).first(where: \.isDefault)
        var draft = ComposeDraft(mode: .new, accountId: account.id, from: identity?.sender ?? ComposePrefill.sender(for: account, original: nil))
        draft.signature = identity?.signature
        draft.body = SignatureBlock.inserting(identity?.signature, into: "")
        return draft
    }

    /// CO01-M1: the message sent from another account (the From picker): its sender becomes that
    /// account's name and address; recipients, body and threading headers stay. The same account
    /// leaves the draft as it is, so a reply keeps the alias the original was addressed to.
    public func sending(_ draft: ComposeDraft, from name: AccountName) async throws -> ComposeDraft {
        guard let account = try await accounts.account(named: name) else { throw TernError.notFound("account '\(name)'") }
        guard account.id != draft.accountId else { return draft }
        guard let identity = try await identities(of: account).first(where: \.isDefault) else { return draft }
        return sending(draft, as: identity)
    }

    /// Issue 35: the message sent as one of the person's identities (the From picker, `--from`):
    /// that identity's account, address, name and signature (swapped for the one the body held).
    /// `accountName` narrows the search to one account; without it, the draft's own account is
    /// looked in first. An address that is no identity is refused: mail never goes out from an
    /// address the person does not own.
    public func sending(_ draft: ComposeDraft, fromAddress address: String, accountName: AccountName? = nil) async throws -> ComposeDraft {
        let key = address.trimmingCharacters(in: .whitespaces).lowercased()
        var candidates = try await accounts.allAccounts()
        if let accountName {
            candidates = candidates.filter { $0.name == accountName }
            guard !candidates.isEmpty else { throw TernError.notFound("account '\(accountName)'") }
        }
        candidates.sort { ($0.id == draft.accountId ? 0 : 1, $0.name) < ($1.id == draft.accountId ? 0 : 1, $1.name) }
        for account in candidates {
            if let identity = try await identities(of: account).first(where: { $0.key == key }) { return sending(draft, as: identity) }
        }
        throw TernError.invalidInput("\(address) is not one of your identities (see `tern identity list`)")
    }

    func sending(_ draft: ComposeDraft, as identity: Identity) -> ComposeDraft {
        var moved = draft
        moved.accountId = identity.accountId
        moved.from = identity.sender
        moved.body = SignatureBlock.replacing(draft.signature, with: identity.signature, in: draft.body)
        moved.signature = identity.signature
        return moved
    }

    /// The account's identities: stored, else those it implies (`Identity.implied`).
    public func identities(of account: Account) async throws -> [Identity] {
        let stored = try await identities?.identities(of: account.id) ?? []
        return stored.isEmpty ? Identity.implied(by: account) : stored
    }

    /// A reply (`.reply`, `.replyAll`) or forward of stored message `emailId`, from the account that
    /// received it. `.new` ignores the original: use `new(account:)`.
    public func compose(_ mode: ComposeMode, replyingTo emailId: EmailID) async throws -> ComposeDraft {
        guard var original = try await store.original(emailId: emailId) else { throw TernError.notFound("message \(emailId)") }
        guard let account = try await accounts.account(id: original.email.accountId) else {
            throw TernError.notFound("the account of message \(emailId)")
        }
        var notes: [ComposeNote] = []
        if !original.email.bodiesFetched, let bodies {
            // Best effort: offline, the reply is still written, with the note that the quote is empty.
            if (try? await bodies.fetchBody(of: original.email)) != nil, let refreshed = try await store.original(emailId: emailId) {
                original = refreshed
            }
        }
        let text = originalText(original.email)
        if text == nil { notes.append(.originalBodyUnavailable) }
        if original.email.bodyTruncated { notes.append(.originalBodyTruncated) }
        let email = original.email
        // Issue 35: from the identity the original was addressed to, else the account's own.
        let identity = IdentityChoice.forReply(to: email, identities: try await identities(of: account))
        var message = ComposeDraft(
            mode: mode, accountId: account.id, from: identity?.sender ?? ComposePrefill.sender(for: account, original: email),
            originalEmailId: emailId, notes: notes)
        message.signature = identity?.signature
        switch mode {
        case .new:
            break
        case .reply, .replyAll:
            if mode == .reply {
                message.to = ComposePrefill.replyRecipients(to: email, ownAddresses: account.ownAddresses)
            } else {
                (message.to, message.cc) = ComposePrefill.replyAllRecipients(to: email, ownAddresses: account.ownAddresses)
            }
            message.subject = ComposePrefill.replySubject(email.subject)
            let senderName = EmailAddress(name: email.fromName, address: email.fromAddress).displayName
            message.body = ComposePrefill.quotedReply(body: text ?? "", senderName: senderName, date: email.displayDate, timeZone: timeZone)
            (message.inReplyTo, message.references) = ComposePrefill.threadingHeaders(of: email, isValid: syntax.isValidMessageID)
        case .forward:
            message.subject = ComposePrefill.forwardSubject(email.subject)
            message.body = ComposePrefill.forwardedBody(original: email, body: text ?? "", timeZone: timeZone)
            message.attachments = original.attachments.map { attachment in
                ComposedAttachment(
                    source: .storedAttachment(id: attachment.id ?? 0), filename: attachment.filename, mimeType: attachment.mimeType,
                    sizeBytes: attachment.sizeBytes, availability: attachment.isDownloaded && attachment.localPath != nil ? .local : .pending,
                    // A Content-ID the builder would refuse (a stranger's) makes the part an ordinary attachment, never an unsendable forward.
                    contentId: attachment.contentId.flatMap { syntax.isValidMessageID("<\($0)>") ? $0 : nil })
            }
        }
        message.body = SignatureBlock.inserting(message.signature, into: message.body)
        return message
    }

    /// The original's text as a reader sees it: the plain part, else the sanitized HTML's text
    /// (blockquotes marked with `>`); nil when neither is stored.
    func originalText(_ email: Email) -> String? {
        if let plain = email.bodyPlain, !plain.isEmpty { return plain }
        if let html = email.bodyHTML, !html.isEmpty { return sanitizer.readableText(ofHTML: html) }
        return email.bodiesFetched ? "" : nil
    }
}
