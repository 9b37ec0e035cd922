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
    /// The time zone of the attribution line's date ("On [date], …").
    let timeZone: TimeZone

    public init(
        accounts: any AccountRepository, store: any ComposeStore, syntax: any MailSyntax, sanitizer: any BodySanitizing,
        bodies: (any OriginalBodyFetching)? = nil, timeZone: TimeZone = .current
    ) {
        self.accounts = accounts
        self.store = store
        self.syntax = syntax
        self.sanitizer = sanitizer
        self.bodies = bodies
        self.timeZone = timeZone
    }

    /// An empty message from the named account, or the only one.
    public func new(account name: AccountName?) async throws -> ComposeDraft {
        let account = try await accounts.namedOrOnly(name)
        return ComposeDraft(mode: .new, accountId: account.id, from: ComposePrefill.sender(for: account, original: nil))
    }

    /// CO01-M1: an empty message from the account named (the one picked, or that of the folder
    /// being viewed) when it exists, else from the first account by name, so that a person with
    /// several accounts gets a composer with a From picker rather than a refusal.
    public func new(preferring name: AccountName?) async throws -> ComposeDraft {
        let all = try await accounts.allAccounts().sorted { $0.name < $1.name }
        guard let account = all.first(where: { $0.name == name }) ?? all.first else { throw TernError.accountNeeded(available: []) }
        return ComposeDraft(mode: .new, accountId: account.id, from: ComposePrefill.sender(for: account, original: nil))
    }

    /// CO01-M1: the message sent from another account (the From picker): its sender becomes that
    /// account's name and address; recipients, body and threading headers stay. The same account
    /// leaves the draft as it is, so a reply keeps the alias the original was addressed to.
    public func sending(_ draft: ComposeDraft, from name: AccountName) async throws -> ComposeDraft {
        guard let account = try await accounts.account(named: name) else { throw TernError.notFound("account '\(name)'") }
        guard account.id != draft.accountId else { return draft }
        var moved = draft
        moved.accountId = account.id
        moved.from = ComposePrefill.sender(for: account, original: nil)
        return moved
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
        var message = ComposeDraft(
            mode: mode, accountId: account.id, from: ComposePrefill.sender(for: account, original: email),
            originalEmailId: emailId, notes: notes)
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
                    contentId: attachment.contentId)
            }
        }
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
