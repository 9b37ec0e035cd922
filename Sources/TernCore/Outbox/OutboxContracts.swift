import Foundation

/// The SMTP envelope of a queued message (RFC 5321): Bcc recipients are here and nowhere in the bytes.
public struct MessageEnvelope: Sendable, Hashable, Codable {
    public var sender: String
    public var recipients: [String]

    public init(sender: String, recipients: [String]) {
        self.sender = sender
        self.recipients = recipients
    }
}

/// A message made ready to queue: its final bytes (one Message-ID for every attempt), the Email row
/// it is shown as, and its envelope.
public struct ComposedMessage: Sendable, Hashable {
    public var raw: [UInt8]
    public var email: Email
    public var envelope: MessageEnvelope

    public init(raw: [UInt8], email: Email, envelope: MessageEnvelope) {
        self.raw = raw
        self.email = email
        self.envelope = envelope
    }
}

/// Builds the bytes of an outgoing message (the MIME module, FR-SYNC-07).
public protocol MessageComposing: Sendable {
    func compose(_ message: OutgoingMessage, accountId: Account.ID, at date: Date) throws -> ComposedMessage
}

/// What the queue hands to SMTP.
public struct OutgoingSubmission: Sendable, Hashable {
    public var emailId: EmailID
    public var messageId: String
    public var raw: [UInt8]
    public var envelope: MessageEnvelope
    public var date: Date

    public init(emailId: EmailID, messageId: String, raw: [UInt8], envelope: MessageEnvelope, date: Date) {
        self.emailId = emailId
        self.messageId = messageId
        self.raw = raw
        self.envelope = envelope
        self.date = date
    }
}

/// A row of the virtual Outbox (FR-SYNC-07: sendState ∈ queued, sending, failed).
public struct OutboxEntry: Sendable, Hashable, Codable {
    public var emailId: EmailID
    public var accountId: Account.ID
    public var messageId: String?
    public var subject: String
    public var to: [EmailAddress]
    public var state: SendState
    public var queuedDate: Date?
    /// A retry's backoff: the queue waits for it, and so do the messages queued after it (FIFO).
    public var notBefore: Date?
    /// The undo window (FR-COMP-02): skipped without holding up the others.
    public var holdUntil: Date?
    public var retryCount: Int
    /// Set just before the message content went to the server; still set after a crash means the
    /// server may have accepted it.
    public var attemptStartedDate: Date?
    public var error: String?
    /// CO01-15: a forward whose original attachments are not local yet; the queue downloads them
    /// before its SMTP transaction.
    public var awaitingAttachments: Bool
    /// Its backoff waits for a server that could not be reached (no attempt counted), not for a
    /// retry after a refusal: `tern outbox flush` and the network's return try it at once.
    public var waitingForServer: Bool
    /// Send later (issue 36): the message waits in the Outbox until this time, passed over without
    /// holding up the others, and never goes before it.
    public var scheduledAt: Date?

    public init(
        emailId: EmailID, accountId: Account.ID, messageId: String?, subject: String, to: [EmailAddress], state: SendState,
        queuedDate: Date?, notBefore: Date?, holdUntil: Date?, retryCount: Int, attemptStartedDate: Date?, error: String?,
        awaitingAttachments: Bool = false, waitingForServer: Bool = false, scheduledAt: Date? = nil
    ) {
        self.waitingForServer = waitingForServer
        self.awaitingAttachments = awaitingAttachments
        self.emailId = emailId
        self.accountId = accountId
        self.messageId = messageId
        self.subject = subject
        self.to = to
        self.state = state
        self.queuedDate = queuedDate
        self.notBefore = notBefore
        self.holdUntil = holdUntil
        self.retryCount = retryCount
        self.attemptStartedDate = attemptStartedDate
        self.error = error
        self.scheduledAt = scheduledAt
    }

    /// Waiting for its Send later time at `now`.
    public func isScheduled(after now: Date) -> Bool { scheduledAt.map { $0 > now } ?? false }
}

/// The send queue's persistence. Every transition is one write, so a killed process leaves each
/// message in exactly one state (FR-SYNC-07, NFR-SYNC-03).
public protocol OutboxStore: Sendable {
    /// Stores the Email (threaded and searchable at once) with `sendState = .queued` and its bytes;
    /// `scheduledAt` (Send later, issue 36) is written in the same transaction, so no queue runner
    /// ever sees the message unscheduled. `awaitingAttachments`: `message` is a stand-in without
    /// the forwarded attachments that are not local yet (CO01-15); `completeAttachments` replaces it.
    func enqueue(_ message: ComposedMessage, holdUntil: Date?, scheduledAt: Date?, awaitingAttachments: Bool, at date: Date) async throws
        -> EmailID
    /// Send later messages whose time has come (`at` or before), still queued, every account.
    func dueScheduled(at date: Date) async throws -> [OutboxEntry]
    /// The earliest time a queued Send later message waits for; nil when none waits.
    func earliestScheduled() async throws -> Date?
    /// The queued message's real bytes, its attachments all local: same Message-ID, flag cleared.
    func completeAttachments(_ emailId: EmailID, with message: ComposedMessage) async throws
    /// Queued and sending messages of an account, oldest first: the order they are sent in.
    func pending(accountId: Account.ID) async throws -> [OutboxEntry]
    /// The Outbox: queued, sending and failed; every account when nil.
    func outbox(accountId: Account.ID?) async throws -> [OutboxEntry]
    func entry(emailId: EmailID) async throws -> OutboxEntry?
    func submission(emailId: EmailID) async throws -> OutgoingSubmission?
    func markSending(_ emailId: EmailID) async throws
    /// Recorded before the content is sent: the exactly-once marker.
    func markAttemptStarted(_ emailId: EmailID, at date: Date) async throws
    /// Accepted by the server. Schedules the Sent copy (a `fileSentCopy` operation) in the same write.
    func markSent(_ emailId: EmailID, reply: String, note: String?, fileSentCopy: Bool, at date: Date) async throws
    /// `waitingForServer`: the server could not be reached (the backoff is a recheck, see `OutboxEntry`).
    func scheduleRetry(_ emailId: EmailID, retryCount: Int, notBefore: Date, error: String, waitingForServer: Bool) async throws
    /// The attempt failed after the content started: the message stays in `sending` with its
    /// exactly-once marker (set at `date` if it somehow is not), for recovery (the Sent search)
    /// from `notBefore`.
    func markDeliveryUncertain(_ emailId: EmailID, retryCount: Int, notBefore: Date, error: String, at date: Date) async throws
    func markFailed(_ emailId: EmailID, error: String) async throws
    /// Back to the queue, as new: retries and the 24-hour limit count again from `date`.
    func requeue(_ emailId: EmailID, at date: Date) async throws
    /// Deletes the message entirely (FR-SYNC-07 step 6).
    /// Deletes the message. Out of its undo window it takes the draft it was sent from (issue 34)
    /// with it; in the window that draft is the one Undo gives back, and stays.
    func discard(_ emailId: EmailID) async throws
    /// FR-COMP-02: sets or clears the undo hold.
    func setHold(_ emailId: EmailID, until date: Date?) async throws
}

extension OutboxStore {
    public func enqueue(
        _ message: ComposedMessage, holdUntil: Date?, scheduledAt: Date? = nil, awaitingAttachments: Bool = false, at date: Date
    ) async throws -> EmailID {
        try await enqueue(message, holdUntil: holdUntil, scheduledAt: scheduledAt, awaitingAttachments: awaitingAttachments, at: date)
    }
}

/// Why a submission failed, as the queue must treat it (FR-SYNC-07 error handling).
public enum SubmissionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server refused for good (a 5xx, every recipient refused): never retried; the text is the server's.
    case permanent(String)
    /// Network, timeout, 4xx before the content went out: retried on the schedule.
    case transient(String)
    /// The server could not be reached at all (DNS, refused, unreachable, no greeting, the TLS
    /// handshake): no delivery attempt was made, so none is counted. The message waits, in order,
    /// until the server can be reached, within the queue's 24 hours (FR-SYNC-07, NFR-SYNC-03).
    case unreachable(String)
    /// The content went out and no verdict came back (timeout, dropped connection): the server may
    /// have accepted it, so it is never sent again blindly (the queue's recovery looks in Sent).
    case deliveryUncertain(String)

    public var description: String {
        switch self {
        case .permanent(let text), .transient(let text), .unreachable(let text), .deliveryUncertain(let text): text
        }
    }
}

/// The server's acceptance of a message.
public struct SubmissionReceipt: Sendable, Hashable {
    /// The reply to the end of DATA.
    public var reply: String
    /// Recipients refused while others were accepted, each with the server's text.
    public var refusedRecipients: [String]

    public init(reply: String, refusedRecipients: [String] = []) {
        self.reply = reply
        self.refusedRecipients = refusedRecipients
    }
}

/// SMTP submission (the SMTP module): one connection, TLS and login for a pass of the queue.
/// Connection and login failures are thrown as `SubmissionError`.
public protocol MessageSubmitting: Sendable {
    func withSession<Result: Sendable>(
        account: Account, credentials: CredentialSupply,
        _ body: (any SubmissionSession) async throws -> Result
    ) async throws -> Result
}

/// One logged-in submission connection. `beforeContent` runs after the envelope is accepted and
/// just before the message content goes out: up to there, a crash cannot have delivered anything.
public protocol SubmissionSession {
    func submit(_ submission: OutgoingSubmission, beforeContent: @escaping @Sendable () async throws -> Void) async throws -> SubmissionReceipt
}
