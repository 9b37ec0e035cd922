import Foundation

/// Mark read/unread, star/unstar, archive and delete (FR-SYNC-10, FR-ED-01): applied locally at
/// once (optimistic), persisted as pending operations, and pushed to the server right away; a push
/// that fails is retried (5/15/45 s) by whoever runs `push` next (`tern sync`, the watch loop).
public struct MailActionsUseCase: Sendable {
    let accounts: any AccountRepository
    let credentials: AccountCredentials
    let store: any MailActionStore
    let processor: PendingOperationProcessor
    let clock: any WallClock

    public init(accounts: any AccountRepository, credentials: AccountCredentials, store: any MailActionStore,
                processor: PendingOperationProcessor, clock: any WallClock = SystemClock()) {
        self.accounts = accounts
        self.credentials = credentials
        self.store = store
        self.processor = processor
        self.clock = clock
    }

    public func mark(_ change: FlagChange, _ targets: [MailTarget], folder: String? = nil) async throws -> ActionResult {
        let scope = try await store.scope(of: targets, folderPath: folder, forFlags: true)
        try await store.applyFlagChange(change, to: scope, at: clock.now())
        return try await push(scope)
    }

    public func archive(_ targets: [MailTarget], folder: String? = nil) async throws -> ActionResult {
        let scope = try await store.scope(of: targets, folderPath: folder, forFlags: false)
        try await store.applyRemoval(.archive, of: scope.copies, at: clock.now())
        return try await push(scope)
    }

    public func delete(_ targets: [MailTarget], folder: String? = nil) async throws -> ActionResult {
        let scope = try await store.scope(of: targets, folderPath: folder, forFlags: false)
        try await store.applyRemoval(.delete, of: scope.copies, at: clock.now())
        return try await push(scope)
    }

    /// The first push, for the accounts the copies belong to.
    func push(_ scope: ActionScope) async throws -> ActionResult {
        var result = ActionResult(messages: scope.emailIds.count, copies: scope.copies.count)
        for accountId in Set(scope.copies.map(\.accountId)).sorted() {
            guard let account = try await accounts.account(id: accountId), account.isActive else { continue }
            let report = try await processor.process(account: account, credentials: credentials.supply(for: account))
            result.pushed += report.done
            result.waiting += report.waiting
            result.failed += report.failed
        }
        return result
    }

    /// Pending and failed changes, for the "Couldn't … Tap to retry" of FR-ED-01.
    public func changes(account name: String?) async throws -> [PendingChangeSummary] {
        var accountId: Account.ID?
        if let name {
            guard let account = try await accounts.account(named: name) else { throw TernError.notFound("account '\(name)'") }
            accountId = account.id
        }
        return try await store.summaries(accountId: accountId)
    }

    /// The retry action on a failed change: applied again locally, pushed again.
    public func retry(_ operationId: Int64) async throws -> ActionResult {
        guard let operation = try await store.retry(operationId) else { throw TernError.notFound("change \(operationId)") }
        guard let account = try await accounts.account(id: operation.accountId) else { throw TernError.notFound("account of change \(operationId)") }
        let report = try await processor.process(account: account, credentials: credentials.supply(for: account))
        return ActionResult(messages: 1, copies: 1, pushed: report.done, waiting: report.waiting, failed: report.failed)
    }

    public func dismiss(_ operationId: Int64) async throws { try await store.dismiss(operationId) }
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

    public init(messages: Int, copies: Int, pushed: Int = 0, waiting: Int = 0, failed: [String] = []) {
        self.messages = messages
        self.copies = copies
        self.pushed = pushed
        self.waiting = waiting
        self.failed = failed
    }
}
