import Foundation

/// Sending mail and the virtual Outbox (FR-SYNC-07): `send` queues and, unless held, tries at once;
/// whatever did not go stays queued for `LocalChangesPusher`.
public struct OutboxUseCase: Sendable {
    let accounts: any AccountRepository
    let composer: any MessageComposing
    let store: any OutboxStore
    let pusher: LocalChangesPusher
    let clock: any WallClock
    let holds: (any SendHoldOwnership)?

    public init(
        accounts: any AccountRepository, composer: any MessageComposing, store: any OutboxStore, pusher: LocalChangesPusher,
        clock: any WallClock = SystemClock(), holds: (any SendHoldOwnership)? = nil
    ) {
        self.accounts = accounts
        self.composer = composer
        self.store = store
        self.pusher = pusher
        self.clock = clock
        self.holds = holds
    }

    /// FR-COMP-02: queues `message` held for `window`, owned by this process (`SendHoldOwnership`): nothing reaches
    /// SMTP until `commit`; if the process dies first the message is never sent by itself.
    public func sendHeld(
        _ message: OutgoingMessage, from account: Account, window: Duration, awaitingAttachments: Bool = false
    ) async throws -> HeldSend {
        guard account.isActive else { throw TernError.authenticationExpired(account.name.rawValue) }
        try Self.checkSender(message, of: account)
        guard let holds else { throw TernError.invalidInput("undo-send needs the process's hold ownership") }
        let now = clock.now()
        let composed = try composer.compose(message, accountId: account.id, at: now)
        guard let messageId = composed.email.messageId else { throw TernError.invalidInput("a queued message needs a Message-ID") }
        // Claimed before the message is queued, so no queue runner ever sees it held by nobody.
        let claim = try holds.claim(messageId: messageId)
        let until = now.adding(window)
        do {
            let emailId = try await store.enqueue(composed, holdUntil: until, awaitingAttachments: awaitingAttachments, at: now)
            return HeldSend(emailId: emailId, messageId: messageId, accountId: account.id, until: until, claim: claim)
        } catch {
            claim.release()
            throw error
        }
    }

    /// Issue 35: mail goes out only from one of the account's identities (its address or an alias,
    /// `Account.ownAddresses`), never from an address the person does not own, whatever a front
    /// end or a draft edited elsewhere says.
    static func checkSender(_ message: OutgoingMessage, of account: Account) throws {
        guard account.ownAddresses.contains(message.from.address.lowercased()) else {
            throw TernError.invalidInput(
                "\(message.from.address) is not an identity of account '\(account.name)' (add it with `tern identity add \(account.name) --email …`)")
        }
    }

    /// The end of the window: the hold is lifted in the store first, then the claim let go, then the queue runs.
    public func commit(_ held: HeldSend) async throws -> SendOutcome {
        try await store.setHold(held.emailId, until: nil)
        held.claim.release()
        guard let account = try await accounts.account(id: held.accountId) else { throw TernError.notFound("the account of message \(held.emailId)") }
        let push = try? await pusher.push(account: account)
        return try await outcome(emailId: held.emailId, messageId: held.messageId, after: push)
    }

    /// Undo inside the window: the queued message is removed before anything reached SMTP; the front end still
    /// holds what was written and reopens it.
    public func undo(_ held: HeldSend) async throws {
        try await store.discard(held.emailId)
        held.claim.release()
    }

    /// The account named, or the only one (several accounts need a name).
    public func sendingAccount(named name: AccountName?) async throws -> Account {
        try await accounts.namedOrOnly(name)
    }

    /// Queues `message` from `account`. `holdUntil` is the undo window (FR-COMP-02); `attemptNow`
    /// runs the account's queue right away (the message goes now unless something older is waiting);
    /// `awaitingAttachments`: a forward's stand-in, completed by the queue (CO01-15).
    public func send(
        _ message: OutgoingMessage, from account: Account, holdUntil: Date? = nil, attemptNow: Bool = true, awaitingAttachments: Bool = false
    ) async throws -> SendOutcome {
        guard account.isActive else { throw TernError.authenticationExpired(account.name.rawValue) }
        try Self.checkSender(message, of: account)
        let now = clock.now()
        let composed = try composer.compose(message, accountId: account.id, at: now)
        let emailId = try await store.enqueue(composed, holdUntil: holdUntil, awaitingAttachments: awaitingAttachments, at: now)
        var push: PushReport?
        if attemptNow, holdUntil.map({ $0 <= now }) ?? true {
            push = try await pusher.push(account: account)
        }
        return try await outcome(emailId: emailId, messageId: composed.email.messageId, after: push)
    }

    /// Send later (issue 36): queues `message` to go at `time`, not a second before, from whichever
    /// Tern process runs then (or the first one to start after). Its Date header is that time.
    /// `awaitingAttachments`: a forward's stand-in, completed by the queue (CO01-15).
    public func schedule(
        _ message: OutgoingMessage, from account: Account, at time: Date, awaitingAttachments: Bool = false
    ) async throws -> SendOutcome {
        guard account.isActive else { throw TernError.authenticationExpired(account.name.rawValue) }
        try Self.checkSender(message, of: account)
        let now = clock.now()
        // Whole seconds, rounded up: the store keeps milliseconds, and a time cut down would let it go early.
        let time = Date(timeIntervalSince1970: time.timeIntervalSince1970.rounded(.up))
        try Self.checkScheduledTime(time, now: now)
        let composed = try composer.compose(message, accountId: account.id, at: time)
        let emailId = try await store.enqueue(
            composed, holdUntil: nil, scheduledAt: time, awaitingAttachments: awaitingAttachments, at: now)
        return SendOutcome(emailId: emailId, messageId: composed.email.messageId, state: .queued, error: nil, nextAttempt: time, scheduledAt: time)
    }

    /// A Send later time is still to come, and within the year `WhenExpression` allows.
    public static func checkScheduledTime(_ time: Date, now: Date) throws {
        guard time > now else {
            throw TernError.invalidInput("the time to send, \(ISO8601DateFormatter().string(from: time)), has passed: choose a time to come")
        }
        guard time.timeIntervalSince(now) <= TimeInterval(WhenExpression.longestDelaySeconds) else {
            throw TernError.invalidInput("the time to send is more than a year away")
        }
    }

    /// Send later from a front end that just started (issue 36): the scheduled messages whose time has
    /// come go now, through each account's queue. Reports only the accounts that had one.
    public func sendDueScheduled() async throws -> [PushReport] {
        let now = clock.now()
        // Run after every one-shot command: read from its partial index, never by a walk of the store.
        let due = try await store.dueScheduled(at: now)
        var reports: [PushReport] = []
        for accountId in Set(due.map(\.accountId)).sorted(by: { $0.rawValue < $1.rawValue }) {
            guard let account = try await accounts.account(id: accountId), account.isActive else { continue }
            reports.append(try await pusher.push(account: account))
        }
        return reports
    }

    /// The earliest time a Send later message waits for (nil: none waits), for a loop that wakes for it.
    public func nextScheduledTime() async throws -> Date? {
        try await store.earliestScheduled()
    }

    /// Runs the account's queue for a message `send` queued with `attemptNow: false`.
    public func pushNow(_ queued: SendOutcome, account: Account) async throws -> SendOutcome {
        return try await outcome(emailId: queued.emailId, messageId: queued.messageId, after: try? await pusher.push(account: account))
    }

    /// Where a message stands after a push: gone from the queue means sent (and filed).
    func outcome(emailId: EmailID, messageId: String?, after push: PushReport?) async throws -> SendOutcome {
        guard let entry = try await store.entry(emailId: emailId) else {
            return SendOutcome(emailId: emailId, messageId: messageId, state: .sent, error: nil, nextAttempt: nil)
        }
        return SendOutcome(
            emailId: emailId, messageId: entry.messageId, state: entry.state, error: entry.error ?? push?.queue.lastError,
            nextAttempt: entry.state == .queued ? entry.notBefore ?? push?.queue.nextDue : nil, scheduledAt: entry.scheduledAt)
    }

    public func outbox(account name: AccountName?) async throws -> [OutboxEntry] {
        var accountId: Account.ID?
        if let name { accountId = try await sendingAccount(named: name).id }
        return try await store.outbox(accountId: accountId)
    }

    /// One message of the Outbox; nil when it is not there (sent, discarded).
    public func entry(_ emailId: EmailID) async throws -> OutboxEntry? { try await store.entry(emailId: emailId) }

    /// FR-SYNC-07 step 6: a failed message back in the queue, tried at once.
    public func retry(_ emailId: EmailID) async throws -> SendOutcome {
        guard let entry = try await store.entry(emailId: emailId), entry.state == .failed || entry.state == .queued else {
            throw TernError.notFound("a failed or queued message \(emailId) in the Outbox")
        }
        try await store.requeue(emailId, at: clock.now())
        guard let account = try await accounts.account(id: entry.accountId) else { throw TernError.notFound("the account of message \(emailId)") }
        let push = try await pusher.push(account: account)
        let after = try await store.entry(emailId: emailId)
        return SendOutcome(
            emailId: emailId, messageId: entry.messageId, state: after?.state ?? .sent, error: after?.error ?? push.queue.lastError,
            nextAttempt: after?.state == .queued ? after?.notBefore : nil)
    }

    /// FR-SYNC-07 step 6: deletes a failed (or still queued) message entirely, and the draft it was
    /// sent from with it.
    public func discard(_ emailId: EmailID) async throws {
        guard let entry = try await store.entry(emailId: emailId), entry.state == .failed || entry.state == .queued else {
            throw TernError.invalidInput("message \(emailId) is not failed or queued in the Outbox (a message being sent cannot be discarded)")
        }
        try await store.discard(emailId)
    }
}

/// What `send` and `retry` report.
public struct SendOutcome: Sendable, Hashable, Codable {
    public var emailId: EmailID
    public var messageId: String?
    public var state: SendState
    public var error: String?
    public var nextAttempt: Date?
    /// Send later (issue 36): the time it waits for.
    public var scheduledAt: Date?

    public init(
        emailId: EmailID, messageId: String?, state: SendState, error: String? = nil, nextAttempt: Date? = nil, scheduledAt: Date? = nil
    ) {
        self.emailId = emailId
        self.messageId = messageId
        self.state = state
        self.error = error
        self.nextAttempt = nextAttempt
        self.scheduledAt = scheduledAt
    }
}

/// Pushes everything local to the server for an account: pending changes, then the send queue,
/// then the Sent copies of what was just sent. Run by `tern send`, `tern sync`, the watch loop and
/// `tern outbox flush`.
public struct LocalChangesPusher: Sendable {
    let credentials: AccountCredentials
    let operations: PendingOperationProcessor
    let queue: SendQueueProcessor
    let drafts: DraftSyncProcessor?
    let lock: any NamedLocks
    /// Issue 36: snoozes that are due wake at the start of each pass.
    let snoozes: (any SnoozeWaking)?
    /// Issue 36: folder creates, renames and deletes whose undo window has passed go first (a move
    /// queued after them may name the folder).
    let folders: FolderChangesUseCase?

    public init(
        credentials: AccountCredentials, operations: PendingOperationProcessor, queue: SendQueueProcessor,
        drafts: DraftSyncProcessor? = nil, lock: any NamedLocks, snoozes: (any SnoozeWaking)? = nil, folders: FolderChangesUseCase? = nil
    ) {
        self.folders = folders
        self.snoozes = snoozes
        self.credentials = credentials
        self.operations = operations
        self.queue = queue
        self.drafts = drafts
        self.lock = lock
    }

    /// One pusher per account at a time, across processes (`tern send` while `tern sync --watch`
    /// runs): two would both take the same queued message. Holding the lock also makes a message
    /// found in `sending` certainly orphaned by a process that died.
    /// `retryUnreachableNow`: queued mail waiting only for its server is tried at once (`tern outbox
    /// flush`, the network's return); `ignoreBackoff`: every backoff is skipped (`--now`).
    public func push(account: Account, ignoreBackoff: Bool = false, retryUnreachableNow: Bool = false) async throws -> PushReport {
        try await lock.withLock("push-\(account.id)") {
            try await pushLocked(account: account, ignoreBackoff: ignoreBackoff, retryUnreachableNow: retryUnreachableNow)
        }
    }

    func pushLocked(account: Account, ignoreBackoff: Bool, retryUnreachableNow: Bool = false) async throws -> PushReport {
        let supply = credentials.supply(for: account)
        try await snoozes?.wakeDue(account: account)
        let folderReport = try await folders?.push(account: account, credentials: supply, ignoreBackoff: ignoreBackoff) ?? OperationsReport()
        var before = try await operations.process(account: account, credentials: supply, ignoreBackoff: ignoreBackoff)
        before.done += folderReport.done
        before.failed += folderReport.failed
        before.waiting += folderReport.waiting
        before.nextDue = [before.nextDue, folderReport.nextDue].compactMap { $0 }.min()
        let queue = try await queue.process(
            account: account, credentials: supply, ignoreBackoff: ignoreBackoff, retryUnreachableNow: retryUnreachableNow)
        // After the queue: a message sent in this pass has its draft removed in the same pass.
        var drafts = DraftSyncReport()
        if let processor = self.drafts {
            do {
                drafts = try await processor.process(account: account, credentials: supply, ignoreBackoff: ignoreBackoff)
            } catch {
                drafts.failed.append("\(error)")
            }
        }
        var after = OperationsReport()
        if !queue.sent.isEmpty { after = try await operations.process(account: account, credentials: supply) }
        var changes = before
        changes.done += after.done
        changes.failed += after.failed
        changes.waiting = after.waiting + (queue.sent.isEmpty ? before.waiting : 0)
        changes.nextDue = [before.nextDue, after.nextDue].compactMap { $0 }.min()
        return PushReport(account: account.name, changes: changes, queue: queue, drafts: drafts)
    }

    /// When anything of the account is due next.
    public static func nextDue(_ report: PushReport) -> Date? {
        [report.changes.nextDue, report.queue.nextDue].compactMap { $0 }.min()
    }
}

public struct PushReport: Sendable, Hashable, Codable {
    public var account: AccountName
    public var changes: OperationsReport
    public var queue: SendQueueReport
    public var drafts = DraftSyncReport()
}

/// Mutual exclusion between processes sharing one store, and between tasks of one process (an
/// advisory file lock in the runtime: released by the kernel when its holder dies). Names:
/// `push-<account>` (one pusher per account), `sync-<account>-<folder>` (one writer per folder),
/// `token-<account>` (one OAuth refresh per account; taken inside the others, never around them).
public protocol NamedLocks: Sendable {
    func withLock<Result: Sendable>(_ name: String, _ body: () async throws -> Result) async throws -> Result
}

/// For tests and tools that run alone.
public struct NoLocks: NamedLocks {
    public init() {}
    public func withLock<Result: Sendable>(_ name: String, _ body: () async throws -> Result) async throws -> Result {
        try await body()
    }
}
