import Foundation

/// Mark read/unread, star/unstar, archive and delete (FR-SYNC-10, FR-ED-01): applied locally at
/// once (optimistic), persisted as pending operations, and pushed to the server; a push that fails
/// is retried (5/15/45 s) by whoever runs `push` next (`tern sync`, the watch loop, `tern serve`), and
/// one given up is reverted and published on the change feed (E-10, E-11).
///
/// Archive and delete can be undone for `undoWindow` (FR-ED-01: 5 seconds): they change the store at
/// once but reach the server only when the window has passed.
public struct MailActionsUseCase: Sendable {
    let accounts: any AccountRepository
    let credentials: AccountCredentials
    let store: any MailActionStore
    let processor: PendingOperationProcessor
    let changes: ChangeFeed?
    let clock: any WallClock
    /// Issue 36: folder creates, renames and deletes are undone by the same Undo.
    let folderChanges: FolderChangesUseCase?

    public init(
        accounts: any AccountRepository, credentials: AccountCredentials, store: any MailActionStore,
        processor: PendingOperationProcessor, changes: ChangeFeed? = nil, clock: any WallClock = SystemClock(),
        folderChanges: FolderChangesUseCase? = nil
    ) {
        self.folderChanges = folderChanges
        self.accounts = accounts
        self.credentials = credentials
        self.store = store
        self.processor = processor
        self.changes = changes
        self.clock = clock
    }

    public func mark(_ change: FlagChange, _ targets: [MailTarget], folder: String? = nil) async throws -> ActionResult {
        try await push(markLocally(change, targets, folder: folder))
    }

    /// The local half of `mark`: what opening a thread does before any network work (FR-ED-01
    /// "immediately"); `push` sends it.
    public func markLocally(_ change: FlagChange, _ targets: [MailTarget], folder: String? = nil) async throws -> ActionScope {
        var scope = try await store.scope(of: targets, folderPath: folder, forFlags: true)
        if change == .unread { scope = try await receivedOnly(scope, targets) }
        try await store.applyFlagChange(change, to: scope, at: clock.now())
        publishChanged(scope)
        return scope
    }

    /// Marking a conversation unread marks the mail the user received, not the user's own replies in
    /// it, as Gmail does (issue 22). A message named on its own is marked whoever wrote it, and a
    /// conversation of the user's own messages only is marked whole.
    func receivedOnly(_ scope: ActionScope, _ targets: [MailTarget]) async throws -> ActionScope {
        let named = Set(targets.compactMap { target -> EmailID? in if case .message(let id) = target { id } else { nil } })
        let own = try await store.writtenByAccount(scope.emailIds).subtracting(named)
        let received = scope.excluding(own)
        return own.isEmpty || received.emailIds.isEmpty ? scope : received
    }

    /// `undoWindow` nil or zero: pushed at once, no undo (`tern archive --no-undo`).
    public func archive(_ targets: [MailTarget], folder: String? = nil, undoWindow: Duration? = nil) async throws -> RemovalResult {
        try await remove(.archive, targets, folder: folder, undoWindow: undoWindow)
    }

    public func delete(_ targets: [MailTarget], folder: String? = nil, undoWindow: Duration? = nil) async throws -> RemovalResult {
        try await remove(.delete, targets, folder: folder, undoWindow: undoWindow)
    }

    func remove(_ kind: PendingOperation.Kind, _ targets: [MailTarget], folder: String?, undoWindow: Duration?) async throws -> RemovalResult {
        let scope = try await store.scope(of: targets, folderPath: folder, forFlags: false)
        let now = clock.now()
        let hold = undoWindow.flatMap { $0 > .zero ? UndoHold(until: now.adding($0)) : nil }
        try await store.applyRemoval(kind, of: scope.copies, at: now, undo: hold)
        publishChanged(scope)
        guard let hold else { return RemovalResult(action: try await push(scope), undo: nil) }
        return RemovalResult(
            action: ActionResult(messages: scope.emailIds.count, copies: scope.copies.count, waiting: scope.copies.count),
            undo: hold)
    }

    /// FR-ED-01 Undo: the archive or delete of `token` (nil: the latest) if its window has not passed;
    /// nothing of it has reached the server.
    public func undo(_ token: String? = nil) async throws -> UndoResult {
        let now = clock.now()
        var chosen = token
        if chosen == nil {
            // The latest of the message actions and the folder changes still inside their windows.
            let holds = [try await store.latestUndoableRemoval(now: now), try await folderChanges?.latestUndoable()].compactMap { $0 }
            chosen = holds.max { $0.until < $1.until }?.token
        }
        guard let token = chosen else { throw TernError.nothingToUndo }
        if let folderChanges, let undone = try await folderChanges.undo(token) {
            return UndoResult(token: token, threadIds: [], folderChange: undone)
        }
        let threads = try await store.undoRemoval(token: token, now: now)
        guard !threads.isEmpty else { throw TernError.nothingToUndo }
        changes?.publish(.removalUndone(threadIds: threads))
        changes?.publish(.threadsChanged(accountId: nil))
        return UndoResult(token: token, threadIds: threads)
    }

    /// Pushes what the scope's accounts have due (the first push of a change; the undo window's
    /// changes wait until it ends).
    public func push(_ scope: ActionScope) async throws -> ActionResult {
        var result = ActionResult(messages: scope.emailIds.count, copies: scope.copies.count)
        for accountId in Set(scope.copies.map(\.accountId)).sorted() {
            guard let account = try await accounts.account(id: accountId), account.isActive else { continue }
            let report = try await processor.process(account: account, credentials: credentials.supply(for: account))
            result.pushed += report.done
            result.waiting += report.waiting
            result.failed += report.failed
            result.failedMessages += scope.emailIds.filter(report.failedEmailIds.contains).count
            try await publishFailures(report, accountId: accountId)
        }
        return result
    }

    /// E-10, E-11: each change given up was reverted; front ends show "Couldn't … Tap to retry."
    func publishFailures(_ report: OperationsReport, accountId: Account.ID) async throws {
        guard let changes, !report.failedOperationIds.isEmpty else { return }
        let failed = Set(report.failedOperationIds)
        for summary in try await store.summaries(accountId: accountId) where failed.contains(summary.id) {
            changes.publish(.changeFailed(summary))
        }
        changes.publish(.threadsChanged(accountId: accountId))
    }

    func publishChanged(_ scope: ActionScope) {
        guard let changes else { return }
        let accountIds = Set(scope.copies.map(\.accountId))
        if accountIds.isEmpty { changes.publish(.threadsChanged(accountId: nil)) }
        for accountId in accountIds.sorted() { changes.publish(.threadsChanged(accountId: accountId)) }
    }

    /// Pending and failed changes, for the "Couldn't … Tap to retry" of FR-ED-01.
    public func changes(account name: AccountName?) async throws -> [PendingChangeSummary] {
        var accountId: Account.ID?
        if let name {
            guard let account = try await accounts.account(named: name) else { throw TernError.notFound("account '\(name)'") }
            accountId = account.id
        }
        return try await store.summaries(accountId: accountId)
    }

    /// The retry action on a failed change: applied again locally, pushed again.
    public func retry(_ operationId: PendingChangeID) async throws -> ActionResult {
        guard let operation = try await store.retry(operationId) else { throw TernError.notFound("change \(operationId)") }
        guard let account = try await accounts.account(id: operation.accountId) else { throw TernError.notFound("account of change \(operationId)") }
        changes?.publish(.threadsChanged(accountId: account.id))
        let report = try await processor.process(account: account, credentials: credentials.supply(for: account))
        try await publishFailures(report, accountId: account.id)
        return ActionResult(messages: 1, copies: 1, pushed: report.done, waiting: report.waiting, failed: report.failed)
    }

    public func dismiss(_ operationId: PendingChangeID) async throws { try await store.dismiss(operationId) }
}

/// What an archive or delete did, and how to undo it while it can be.
public struct RemovalResult: Sendable, Hashable, Codable {
    public var action: ActionResult
    /// Nil when it went to the server at once.
    public var undo: UndoHold?

    public init(action: ActionResult, undo: UndoHold?) {
        self.action = action
        self.undo = undo
    }
}

/// What Undo restored.
public struct UndoResult: Sendable, Hashable, Codable {
    public var token: String
    public var threadIds: [ThreadID]
    /// Issue 36: the folder change undone, when Undo was a folder change's.
    public var folderChange: PendingFolderChange?

    public init(token: String, threadIds: [ThreadID], folderChange: PendingFolderChange? = nil) {
        self.token = token
        self.threadIds = threadIds
        self.folderChange = folderChange
    }
}

/// What an action did.
public struct ActionResult: Sendable, Hashable, Codable {
    public var messages: Int
    public var copies: Int
    /// Operations the server confirmed in this run.
    public var pushed = 0
    /// Operations that failed now and wait for a retry.
    public var waiting = 0
    /// Operations given up (their local change reverted), with the server's errors.
    public var failed: [String] = []
    /// Messages of `messages` whose change was given up: the action did not happen to them (issue 22:
    /// "archived 3" was reported when the server had refused all three).
    public var failedMessages = 0
    /// Messages the action applied to, or will once the server is reached.
    public var applied: Int { messages - failedMessages }

    public init(messages: Int, copies: Int, pushed: Int = 0, waiting: Int = 0, failed: [String] = []) {
        self.messages = messages
        self.copies = copies
        self.pushed = pushed
        self.waiting = waiting
        self.failed = failed
    }
}
