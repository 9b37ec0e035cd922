import Foundation

/// Issue 37: what the person decided about a message's read-receipt request, remembered locally.
public enum ReadReceiptState: String, Sendable, Hashable, Codable {
    /// A receipt (RFC 8098 MDN) was sent from here.
    case sent
    /// The person chose Ignore: never asked again for this message.
    case ignored
}

/// The "Never ask" setting (`read-receipts`): `ask` shows each request with Send receipt and
/// Ignore; `never` hides them all, and no receipt is ever sent.
public enum ReadReceiptSetting: String, Sendable, Hashable, Codable, CaseIterable {
    case ask, never
}

/// Why a read receipt is not sent, or not asked for (issue 37); `sentence` is the neutral wording
/// front ends build on.
public enum ReadReceiptRefusal: String, Sendable, Hashable, Codable, CaseIterable {
    case notRequested
    /// RFC 8098 section 2.1 leaves it to the client; a list's or a bulk sender's request only
    /// confirms an address to a mass mailer.
    case fromList
    /// A receipt says the message was displayed; one not opened was not.
    case notOpened
    /// Sent already, from here or by another client (`$MDNSent` on the server, RFC 3503).
    case alreadySent
    /// The `read-receipts` setting is `never`.
    case turnedOff

    public var sentence: String {
        switch self {
        case .notRequested: "the message does not ask for one"
        case .fromList: "the message came from a mailing list or a bulk sender"
        case .notOpened: "the message has not been opened"
        case .alreadySent: "a receipt was already sent for it"
        case .turnedOff: "read receipts are set to never be sent"
        }
    }
}

/// A message's request for a read receipt as the front ends show it (issue 37).
public struct ReadReceiptRequest: Sendable, Hashable, Codable {
    public enum Status: String, Sendable, Hashable, Codable {
        /// Shown with Send receipt and Ignore.
        case ask
        case sent
        case ignored
        /// Not asked: `refusal` says why.
        case refused
    }

    /// Where the receipt would go (`Disposition-Notification-To`, else `Return-Receipt-To`).
    public var to: [EmailAddress]
    public var status: Status
    public var refusal: ReadReceiptRefusal?

    public init(to: [EmailAddress], status: Status, refusal: ReadReceiptRefusal? = nil) {
        self.to = to
        self.status = status
        self.refusal = refusal
    }

    public var asks: Bool { status == .ask }

    /// The one rule for whether a message's request is asked, sent, or refused: an MDN goes only
    /// on the person's Send receipt, never for list mail or an unopened message, never twice
    /// (`$MDNSent` from any client), and never with the setting at `never` (RFC 8098 section 2.1:
    /// the recipient's choice; RFC 3503 for the keyword). Nil when the message asks for nothing.
    public static func judge(
        to: [EmailAddress], state: ReadReceiptState?, flaggedSentOnServer: Bool, bulkMarkers: BulkMailMarkers, isRead: Bool,
        setting: ReadReceiptSetting
    ) -> ReadReceiptRequest? {
        guard !to.isEmpty else { return nil }
        if state == .sent || flaggedSentOnServer { return ReadReceiptRequest(to: to, status: .sent) }
        if state == .ignored { return ReadReceiptRequest(to: to, status: .ignored) }
        if let refusal = refusal(bulkMarkers: bulkMarkers, isRead: isRead, setting: setting) {
            return ReadReceiptRequest(to: to, status: .refused, refusal: refusal)
        }
        return ReadReceiptRequest(to: to, status: .ask)
    }

    static func refusal(bulkMarkers: BulkMailMarkers, isRead: Bool, setting: ReadReceiptSetting) -> ReadReceiptRefusal? {
        if !bulkMarkers.intersection([.listId, .listUnsubscribe, .bulkPrecedence]).isEmpty { return .fromList }
        if setting == .never { return .turnedOff }
        if !isRead { return .notOpened }
        return nil
    }
}

/// What the receipt use case reads of a message (issue 37).
public struct ReadReceiptSubject: Sendable, Hashable {
    public var emailId: EmailID
    public var accountId: Account.ID
    /// The original's Message-ID header, as received (`Original-Message-ID`).
    public var messageId: String?
    public var subject: String
    public var from: EmailAddress
    public var to: [EmailAddress]
    public var cc: [EmailAddress]
    public var date: Date
    public var isRead: Bool
    public var bulkMarkers: BulkMailMarkers
    public var receiptTo: [EmailAddress]
    public var state: ReadReceiptState?
    /// A copy carries `$MDNSent` (RFC 3503): another client, or this one, sent the receipt.
    public var flaggedSentOnServer: Bool
    /// The original's `Original-Recipient` address, repeated in the MDN (RFC 8098 section 3.2.3).
    public var originalRecipient: String?

    public init(
        emailId: EmailID, accountId: Account.ID, messageId: String?, subject: String, from: EmailAddress, to: [EmailAddress],
        cc: [EmailAddress], date: Date, isRead: Bool, bulkMarkers: BulkMailMarkers, receiptTo: [EmailAddress], state: ReadReceiptState?,
        flaggedSentOnServer: Bool, originalRecipient: String? = nil
    ) {
        self.originalRecipient = originalRecipient
        self.emailId = emailId
        self.accountId = accountId
        self.messageId = messageId
        self.subject = subject
        self.from = from
        self.to = to
        self.cc = cc
        self.date = date
        self.isRead = isRead
        self.bulkMarkers = bulkMarkers
        self.receiptTo = receiptTo
        self.state = state
        self.flaggedSentOnServer = flaggedSentOnServer
    }
}

/// The store side of read receipts.
public protocol ReadReceiptStore: Sendable {
    func receiptSubject(_ emailId: EmailID) async throws -> ReadReceiptSubject?
    /// Remembers the decision (nil forgets it).
    func recordReceipt(_ state: ReadReceiptState?, for emailId: EmailID) async throws
    /// Records `.sent` unless it already is, in one write: false means another request sent it.
    func claimReceiptSend(_ emailId: EmailID) async throws -> Bool
    /// Queues `$MDNSent` (RFC 3503) on every copy that lacks it, as flag changes the
    /// pending-operation path pushes; returns their scope.
    func flagReceiptSent(_ emailId: EmailID, at date: Date) async throws -> ActionScope
}

/// RFC 8098's disposition-notification fields of a receipt (section 3.2), in the core's terms;
/// the runtime makes MIME's `multipart/report` of them.
public struct DispositionNotice: Sendable, Hashable {
    /// `Reporting-UA`: the product only, no host name or version (they would tell the sender more
    /// than that the message was displayed).
    public var reportingUA: String
    /// `Original-Recipient: rfc822;` when the original carried the field (RFC 8098 section 3.2.3:
    /// then it must be repeated).
    public var originalRecipient: String?
    /// `Final-Recipient: rfc822;` the address the original reached: the identity it was addressed to.
    public var finalRecipient: String
    /// `Original-Message-ID`, when the original had one.
    public var originalMessageId: String?
    /// `Disposition:` always `manual-action/MDN-sent-manually; displayed`: only the person sends one.
    public var disposition: String

    public static let sentManuallyDisplayed = "manual-action/MDN-sent-manually; displayed"

    public init(
        reportingUA: String = "Tern", originalRecipient: String? = nil, finalRecipient: String, originalMessageId: String?,
        disposition: String = DispositionNotice.sentManuallyDisplayed
    ) {
        self.originalRecipient = originalRecipient
        self.reportingUA = reportingUA
        self.finalRecipient = finalRecipient
        self.originalMessageId = originalMessageId
        self.disposition = disposition
    }
}

/// What `ReadReceiptUseCase.send` did.
public struct ReadReceiptOutcome: Sendable, Hashable, Codable {
    public var emailId: EmailID
    /// The receipt's own message (in the Outbox until it goes, then in Sent).
    public var receiptId: EmailID
    public var to: [EmailAddress]
    public var from: EmailAddress
    public var state: SendState
    public var error: String?
}

/// Issue 37: read receipts never leave on their own. A receipt (an RFC 8098 MDN) is sent only on
/// the person's Send receipt, through the account's ordinary send path, from the address the
/// original was addressed to; Ignore is remembered here. After sending, `$MDNSent` (RFC 3503) is
/// set on the server through the flag push, so other clients do not ask again.
public struct ReadReceiptUseCase: Sendable {
    let store: any ReadReceiptStore
    let accounts: any AccountRepository
    let settings: any SettingsStore
    let outbox: OutboxUseCase
    let actions: MailActionsUseCase
    let changes: ChangeFeed?
    let clock: any WallClock

    public init(
        store: any ReadReceiptStore, accounts: any AccountRepository, settings: any SettingsStore, outbox: OutboxUseCase,
        actions: MailActionsUseCase, changes: ChangeFeed? = nil, clock: any WallClock = SystemClock()
    ) {
        self.store = store
        self.accounts = accounts
        self.settings = settings
        self.outbox = outbox
        self.actions = actions
        self.changes = changes
        self.clock = clock
    }

    /// The request of a message as it stands (nil: it asks for none).
    public func request(_ emailId: EmailID) async throws -> ReadReceiptRequest? {
        let subject = try await subject(emailId)
        return ReadReceiptRequest.judge(
            to: subject.receiptTo, state: subject.state, flaggedSentOnServer: subject.flaggedSentOnServer, bulkMarkers: subject.bulkMarkers,
            isRead: subject.isRead, setting: try await settings.settings().readReceipts)
    }

    /// Send receipt. Refused (`TernError.readReceiptRefused`) for a message that asks for none,
    /// came from a list, is unopened, was answered already (here or by another client), or with
    /// the setting at `never`. An ignored request can still be sent: the person changed their mind.
    public func send(_ emailId: EmailID) async throws -> ReadReceiptOutcome {
        let subject = try await subject(emailId)
        guard !subject.receiptTo.isEmpty else { throw TernError.readReceiptRefused(.notRequested) }
        if subject.state == .sent || subject.flaggedSentOnServer { throw TernError.readReceiptRefused(.alreadySent) }
        let setting = try await settings.settings().readReceipts
        if let refusal = ReadReceiptRequest.refusal(bulkMarkers: subject.bulkMarkers, isRead: subject.isRead, setting: setting) {
            throw TernError.readReceiptRefused(refusal)
        }
        guard let account = try await accounts.account(id: subject.accountId) else { throw TernError.notFound("the account of message \(emailId)") }
        let identity = Self.identity(for: subject, account: account)
        let receipt = Self.receipt(for: subject, from: identity)
        // Claimed before the send, so a second Send receipt (another tab, a retry) cannot send twice;
        // once queued, the receipt is the queue's, which delivers it exactly once.
        guard try await store.claimReceiptSend(emailId) else { throw TernError.readReceiptRefused(.alreadySent) }
        let outcome: SendOutcome
        do {
            outcome = try await outbox.send(receipt, from: account)
        } catch {
            try? await store.recordReceipt(subject.state, for: emailId)
            throw error
        }
        // RFC 3503: the keyword once the receipt went (or is queued to go: the queue owns it now).
        let flagScope = try await store.flagReceiptSent(emailId, at: clock.now())
        if !flagScope.copies.isEmpty { _ = try? await actions.push(flagScope) }
        changes?.publish(.threadsChanged(accountId: subject.accountId))
        return ReadReceiptOutcome(
            emailId: emailId, receiptId: outcome.emailId, to: receipt.to, from: identity, state: outcome.state, error: outcome.error)
    }

    /// Ignore: remembered locally; the request is not shown again.
    public func ignore(_ emailId: EmailID) async throws {
        let subject = try await subject(emailId)
        guard !subject.receiptTo.isEmpty else { throw TernError.readReceiptRefused(.notRequested) }
        if subject.state == .sent || subject.flaggedSentOnServer { throw TernError.readReceiptRefused(.alreadySent) }
        try await store.recordReceipt(.ignored, for: emailId)
        changes?.publish(.threadsChanged(accountId: subject.accountId))
    }

    func subject(_ emailId: EmailID) async throws -> ReadReceiptSubject {
        guard let subject = try await store.receiptSubject(emailId) else { throw TernError.notFound("message \(emailId)") }
        return subject
    }

    /// The identity the original was addressed to: the first of the account's own addresses (its
    /// address and aliases) in To, then Cc; else the account's address (a Bcc, a list's copy).
    static func identity(for subject: ReadReceiptSubject, account: Account) -> EmailAddress {
        let own = [account.emailAddress] + account.aliases
        for recipient in subject.to + subject.cc {
            if let match = own.first(where: { $0.caseInsensitiveCompare(recipient.address) == .orderedSame }) {
                return EmailAddress(name: account.displayName, address: match)
            }
        }
        return EmailAddress(name: account.displayName, address: account.emailAddress)
    }

    /// The MDN (RFC 8098 section 3): to the request's addresses, its human part saying what a
    /// displayed receipt means and no more (RFC 8098 section 3.1 leaves its text to the client).
    static func receipt(for subject: ReadReceiptSubject, from identity: EmailAddress) -> OutgoingMessage {
        let subjectLine = subject.subject.isEmpty ? "(no subject)" : subject.subject
        let text = """
            This is a read receipt for the message sent to \(identity.address) with the subject "\(subjectLine)".

            It means the message was displayed. It does not say that it was read or understood, or that the recipient agrees with it.
            """
        var message = OutgoingMessage(
            from: identity, to: subject.receiptTo, subject: "Read: \(subjectLine)", bodyPlain: text)
        message.dispositionNotice = DispositionNotice(
            originalRecipient: subject.originalRecipient, finalRecipient: identity.address, originalMessageId: subject.messageId)
        return message
    }
}
