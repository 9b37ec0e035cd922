import Foundation

/// The offline send queue (FR-SYNC-07): one account's queued messages, sent oldest first, each
/// exactly once.
///
/// Exactly once: the moment the content starts going to the server is recorded first
/// (`markAttemptStarted`). A message found in `sending` after a crash either never got that far
/// (sent again) or may have been accepted: then Sent is searched for its Message-ID. Found, it was
/// sent. Not found on Gmail (which files what it relays), it was not. Not found elsewhere, Tern
/// cannot know: it is failed with a message saying so and never sent again by itself
/// (docs/decisions.md, "Exactly-once sending").
public struct SendQueueProcessor: Sendable {
    let store: any OutboxStore
    let submitter: any MessageSubmitting
    let server: any ServerMailActions
    let folders: any MailActionStore
    let clock: any WallClock
    /// Who holds messages in their undo window (nil: the hold is a time only, as in tests of the queue alone).
    let holds: (any SendHoldOwnership)?
    /// Where an orphaned held message goes back to being a draft (FR-COMP-02, PLATFORM.md).
    let drafts: (any DraftStore)?
    /// Downloads a queued forward's pending attachments before it is sent (CO01-15).
    let attachments: (any QueuedAttachmentCompleting)?

    /// FR-SYNC-07 step 4: after transient failures, retries at 30 s, 2 min and 8 min; then failed.
    public static let retryDelays: [Duration] = [.seconds(30), .seconds(120), .seconds(480)]
    /// The schedule in force: `TERN_SEND_RETRY_SCHEDULE` (seconds) shortens it for tests.
    let retryDelays: [Duration]
    /// While the server cannot be reached, the queue looks again this often (the first step of the
    /// schedule); the platform's "network is back" makes it look at once.
    var unreachableRecheck: Duration { retryDelays.first ?? .seconds(30) }
    /// FR-SYNC-07 step 5.
    public static let maximumAge: Duration = .seconds(24 * 3600)
    public static let timeoutError = "send timeout"
    /// A scheduled message sent this long after its time went late (no Tern process ran at the time):
    /// the running ones look at the queue every 5 s and wake for a scheduled time.
    public static let lateAfter: Duration = .seconds(60)
    /// The threshold in force: `TERN_SEND_LATE_AFTER` (seconds) shortens it for tests.
    let lateAfter: Duration

    /// Whether a sent message's note says it went late (the front ends show it with the message).
    public static func saysSentLate(_ note: String) -> Bool { note.contains(" and sent late: ") }

    static func lateNote(scheduled: Date) -> String {
        "scheduled for \(ISO8601DateFormatter().string(from: scheduled)) and sent late: no Tern process was running at that time"
    }
    public static let uncertainDeliveryError = """
        Sending was interrupted after the message's content went to the server (Tern stopped, or the connection failed \
        before the server's answer), and it is not in Sent: it may have been delivered. \
        Check with the recipients before sending it again (retry).
        """

    public init(
        store: any OutboxStore, submitter: any MessageSubmitting, server: any ServerMailActions, folders: any MailActionStore,
        clock: any WallClock = SystemClock(), holds: (any SendHoldOwnership)? = nil, drafts: (any DraftStore)? = nil,
        retryDelays: [Duration] = SendQueueProcessor.retryDelays, lateAfter: Duration? = nil,
        attachments: (any QueuedAttachmentCompleting)? = nil
    ) {
        self.attachments = attachments
        self.retryDelays = retryDelays.isEmpty ? Self.retryDelays : retryDelays
        self.lateAfter = lateAfter ?? Self.lateAfter
        self.store = store
        self.submitter = submitter
        self.server = server
        self.folders = folders
        self.clock = clock
        self.holds = holds
        self.drafts = drafts
    }

    /// Sends what is due, on one SMTP connection for the whole pass (opened only when a message is
    /// to go). A transient failure stops the pass, so nothing overtakes the message that failed
    /// (FIFO); a held message (the undo window) is passed over without stopping it.
    /// `retryUnreachableNow`: a message waiting only for its server to be reachable is tried at once
    /// (`tern outbox flush`, the network's return); `ignoreBackoff`: every backoff is skipped.
    public func process(
        account: Account, credentials: CredentialSupply, ignoreBackoff: Bool = false, retryUnreachableNow: Bool = false
    ) async throws -> SendQueueReport {
        var report = SendQueueReport()
        let entries = try await store.pending(accountId: account.id)
        var index = 0
        // Up to the first message to send, nothing needs a connection.
        triage: while index < entries.count {
            switch try await triage(
                entries[index], account: account, credentials: credentials, ignoreBackoff: ignoreBackoff,
                retryUnreachableNow: retryUnreachableNow, report: &report)
            {
            case .handled: index += 1
            case .stop: return report
            case .send: break triage
            }
        }
        guard index < entries.count else { return report }
        do {
            try await submitter.withSession(account: account, credentials: credentials) { session in
                var decided: Triage? = .send // the message that opened the session was triaged already
                while index < entries.count {
                    let entry = entries[index]
                    var decision: Triage
                    if let known = decided {
                        decision = known
                        decided = nil
                    } else {
                        decision = try await triage(
                            entry, account: account, credentials: credentials, ignoreBackoff: ignoreBackoff,
                            retryUnreachableNow: retryUnreachableNow, report: &report)
                    }
                    switch decision {
                    case .handled: break
                    case .stop: return
                    case .send: guard try await send(entry, via: session, report: &report) else { return }
                    }
                    index += 1
                }
            }
        } catch let error as SubmissionError where index < entries.count {
            // The connection or the login failed: the message at hand has had its attempt.
            _ = try await failed(entries[index], error, account: account, report: &report)
        }
        return report
    }

    enum Triage { case handled, stop, send }

    /// What to do with a queued message now, doing it unless it is a send.
    func triage(
        _ entry: OutboxEntry, account: Account, credentials: CredentialSupply, ignoreBackoff: Bool,
        retryUnreachableNow: Bool = false, report: inout SendQueueReport
    ) async throws -> Triage {
        let now = clock.now()
        // Send later (issue 36): passed over, never holding up the others, until its time; the 24
        // hours count from that time, not from when it was written.
        if let scheduled = entry.scheduledAt, scheduled > now, entry.state == .queued {
            report.scheduled += 1
            report.nextDue = min(report.nextDue ?? scheduled, scheduled)
            return .handled
        }
        let queuedSince = [entry.queuedDate, entry.scheduledAt].compactMap { $0 }.max()
        if let queued = queuedSince, now.timeIntervalSince(queued) > Self.maximumAge.inSeconds, entry.attemptStartedDate == nil {
            try await store.markFailed(entry.emailId, error: Self.timeoutError)
            report.failed.append(FailedSend(emailId: entry.emailId, error: Self.timeoutError))
            return .handled
        }
        if entry.holdUntil != nil, let holds {
            // Owned holds end only when their owner lifts them (`OutboxUseCase.commit`), never by the clock.
            if let messageId = entry.messageId, !holds.isOrphaned(messageId: messageId) {
                report.held += 1
                return .handled
            }
            // Its owner died in the undo window: the message is its draft again, never sent by itself.
            if let drafts, try await drafts.returnOrphanToDraft(emailId: entry.emailId) {
                report.returnedToDrafts += 1
                return .handled
            }
            try await store.markFailed(entry.emailId, error: Self.orphanedHoldError)
            report.failed.append(FailedSend(emailId: entry.emailId, error: Self.orphanedHoldError))
            return .handled
        }
        if let hold = entry.holdUntil, hold > now {
            report.held += 1
            report.nextDue = min(report.nextDue ?? hold, hold)
            return .handled
        }
        // Before recovery too: a send that failed after its content is looked for in Sent only after
        // its backoff, so a server still filing it has the time to.
        if let notBefore = entry.notBefore, notBefore > now, !ignoreBackoff, !(retryUnreachableNow && entry.waitingForServer) {
            report.waiting = try await store.pending(accountId: account.id).count { $0.holdUntil.map { $0 <= now } ?? true }
            report.nextDue = min(report.nextDue ?? notBefore, notBefore)
            return .stop
        }
        if entry.state == .sending, entry.attemptStartedDate != nil {
            return try await recover(entry, account: account, credentials: credentials, report: &report)
        }
        if entry.awaitingAttachments {
            return try await completeAttachments(entry, account: account, report: &report)
        }
        return .send
    }

    /// CO01-15: the forward's pending attachments are downloaded before its SMTP transaction. Not
    /// reachable yet, or its sign-in to be mended: it waits in its place, as for an unreachable SMTP
    /// server (no attempt counted). An attachment gone from the server fails it, with the reason.
    func completeAttachments(_ entry: OutboxEntry, account: Account, report: inout SendQueueReport) async throws -> Triage {
        do {
            guard let attachments else { throw TernError.invalidInput("this process cannot download a queued forward's attachments") }
            try await attachments.complete(entry, account: account)
            return .send
        } catch let error as TernError where error.isRetryable || error.needsPerson {
            _ = try await waitForServer(entry, "the forwarded attachments cannot be downloaded yet (\(error))", report: &report)
            return .stop
        } catch {
            let text = "a forwarded attachment could not be downloaded: \(error)"
            try await store.markFailed(entry.emailId, error: text)
            report.failed.append(FailedSend(emailId: entry.emailId, error: text))
            return .handled
        }
    }

    /// One attempt. False when the queue must stop here (a transient failure to be retried).
    func send(_ entry: OutboxEntry, via session: any SubmissionSession, report: inout SendQueueReport) async throws -> Bool {
        guard let submission = try await store.submission(emailId: entry.emailId) else {
            try await store.markFailed(entry.emailId, error: "the message's content is missing")
            return true
        }
        try await store.markSending(entry.emailId)
        let store = store
        let clock = clock
        do {
            let receipt = try await session.submit(submission) {
                try await store.markAttemptStarted(submission.emailId, at: clock.now())
            }
            let sentAt = clock.now()
            var notes = receipt.refusedRecipients.isEmpty ? [] : ["not delivered to: " + receipt.refusedRecipients.joined(separator: "; ")]
            if let scheduled = entry.scheduledAt, sentAt.timeIntervalSince(scheduled) > lateAfter.inSeconds {
                // Issue 36: its time passed while no Tern process ran; it goes now, and says so.
                report.sentLate.append(LateScheduledSend(emailId: entry.emailId, scheduledAt: scheduled, sentAt: sentAt))
                notes.append(Self.lateNote(scheduled: scheduled))
            }
            let note = notes.isEmpty ? nil : notes.joined(separator: "; ")
            try await store.markSent(entry.emailId, reply: receipt.reply, note: note, fileSentCopy: true, at: sentAt)
            report.sent.append(entry.emailId)
            return true
        } catch let error as SubmissionError {
            return try await failed(entry, error, account: nil, report: &report)
        }
    }

    /// Records a failed attempt: permanent, retried on the schedule, or, once the content started
    /// going out, left to recovery (then false: the pass stops).
    func failed(_ entry: OutboxEntry, _ error: SubmissionError, account: Account?, report: inout SendQueueReport) async throws -> Bool {
        if case .permanent = error {
            try await store.markFailed(entry.emailId, error: error.description)
            report.failed.append(FailedSend(emailId: entry.emailId, error: error.description))
            return true
        }
        if case .deliveryUncertain = error {
            return try await deliveryUncertain(entry, error.description, report: &report)
        }
        if case .unreachable = error {
            return try await waitForServer(entry, error.description, report: &report)
        }
        if try await store.entry(emailId: entry.emailId)?.attemptStartedDate != nil {
            return try await deliveryUncertain(entry, error.description, report: &report)
        }
        let text = error.description
        let retries = entry.retryCount + 1
        guard retries <= retryDelays.count else {
            try await store.markFailed(entry.emailId, error: text)
            report.failed.append(FailedSend(emailId: entry.emailId, error: text))
            return true
        }
        let next = clock.now().adding(retryDelays[retries - 1])
        try await store.scheduleRetry(entry.emailId, retryCount: retries, notBefore: next, error: text, waitingForServer: false)
        report.waiting = try await store.pending(accountId: entry.accountId).count
        report.nextDue = min(report.nextDue ?? next, next)
        report.lastError = text
        return false
    }

    /// The server could not be reached: not a delivery attempt (issue 34: while offline, each try
    /// used up a retry and the message failed after about ten minutes). Its retries stay as they
    /// were; it waits, and everything behind it, until the server answers or the 24 hours pass.
    func waitForServer(_ entry: OutboxEntry, _ text: String, report: inout SendQueueReport) async throws -> Bool {
        let next = clock.now().adding(unreachableRecheck)
        try await store.scheduleRetry(entry.emailId, retryCount: entry.retryCount, notBefore: next, error: text, waitingForServer: true)
        report.waiting = try await store.pending(accountId: entry.accountId).count
        report.nextDue = min(report.nextDue ?? next, next)
        report.lastError = text
        report.serverUnreachable = true
        return false
    }

    /// A failure after the content started going out (the exactly-once marker is set): a timeout or
    /// a dropped connection there says nothing about whether the server took the message, so it is
    /// never simply retried (issue 21: the recipient got it twice). It stays in `sending` with its
    /// marker, and after the schedule's delay `recover` looks for it in Sent, as after a crash.
    func deliveryUncertain(_ entry: OutboxEntry, _ text: String, report: inout SendQueueReport) async throws -> Bool {
        let retries = entry.retryCount + 1
        let next = clock.now().adding(retryDelays[min(retries, retryDelays.count) - 1])
        try await store.markDeliveryUncertain(entry.emailId, retryCount: retries, notBefore: next, error: text, at: clock.now())
        report.waiting = try await store.pending(accountId: entry.accountId).count
        report.nextDue = min(report.nextDue ?? next, next)
        report.lastError = text
        return false
    }

    /// A message left in `sending` after its content started going out. `.stop` when Sent cannot
    /// be searched now (the queue waits: nothing may overtake a message that may be re-sent).
    func recover(_ entry: OutboxEntry, account: Account, credentials: CredentialSupply, report: inout SendQueueReport) async throws -> Triage {
        let sent = MailboxRoles(folders: try await folders.folders(accountId: account.id)).sent
        var found = false
        if let messageId = entry.messageId {
            do {
                found = try await server.mailbox(sent?.path, containsMessageId: messageId, account: account, credentials: credentials)
            } catch {
                report.lastError = "could not search Sent for an interrupted send: \(error)"
                return .stop
            }
        }
        if found {
            try await store.markSent(entry.emailId, reply: "found in Sent after an interrupted send", note: nil, fileSentCopy: false, at: clock.now())
            report.sent.append(entry.emailId)
            return .handled
        }
        // Gmail files every message its SMTP accepted: not in Sent means not accepted. Sent again
        // only as often as the transient schedule allows, in case the failure repeats.
        if account.provider == .gmail, entry.retryCount <= retryDelays.count { return .send }
        try await store.markFailed(entry.emailId, error: Self.uncertainDeliveryError)
        report.failed.append(FailedSend(emailId: entry.emailId, error: Self.uncertainDeliveryError))
        return .handled
    }
}

/// What one pass of the queue did.
public struct SendQueueReport: Sendable, Hashable, Codable {
    public var sent: [EmailID] = []
    public var failed: [FailedSend] = []
    /// Messages still queued behind a retry's backoff.
    public var waiting = 0
    /// Messages in their undo window.
    public var held = 0
    /// Held messages whose owner died, returned to their drafts (FR-COMP-02).
    public var returnedToDrafts = 0
    /// Send later (issue 36): messages waiting for their time.
    public var scheduled = 0
    /// Scheduled messages sent in this pass well after their time (no Tern process ran then).
    public var sentLate: [LateScheduledSend] = []
    /// When the next attempt is due.
    public var nextDue: Date?
    /// The transient error that stopped the pass.
    public var lastError: String?
    /// The pass stopped because the server could not be reached (no attempt counted).
    public var serverUnreachable = false

    public init() {}
}

public struct FailedSend: Sendable, Hashable, Codable {
    public var emailId: EmailID
    public var error: String
}

/// A Send later message that went out at a later start, its time having passed while nothing ran (issue 36).
public struct LateScheduledSend: Sendable, Hashable, Codable {
    public var emailId: EmailID
    public var scheduledAt: Date
    public var sentAt: Date
}
