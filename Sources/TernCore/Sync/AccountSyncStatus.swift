import Foundation

/// `tern status` per account (issue 20): the FR-SYNC-04 state the engine last reported, when the
/// account last synced whole, when an unreachable account is tried again, and what waits to go to
/// the server. Kept in the store as the engine reports it, so any process can show it.
public struct AccountSyncStatus: Sendable, Hashable, Codable {
    public var account: AccountName
    /// The last state reported; `nil` before the first sync.
    public var syncState: SyncState?
    public var syncStateDetail: String?
    public var syncStateSince: Date?
    /// False when the process that reported a state other than Idle or Error is gone (killed,
    /// crashed): the state is where it stopped, not what is happening.
    public var syncRunning: Bool
    /// The end of the last sync in which every folder synced (FR-SYNC-01).
    public var lastSuccessfulSync: Date?
    /// The last failure: the account's, or the folders a sync could not sync.
    public var lastError: String?
    /// FR-SYNC-04 Error → Idle: when the watch or `tern serve` tries the account again.
    public var nextRetry: Date?
    public var waiting: WaitingWork

    public init(
        account: AccountName, syncState: SyncState?, syncStateDetail: String?, syncStateSince: Date?, syncRunning: Bool,
        lastSuccessfulSync: Date?, lastError: String?, nextRetry: Date?, waiting: WaitingWork
    ) {
        self.account = account
        self.syncState = syncState
        self.syncStateDetail = syncStateDetail
        self.syncStateSince = syncStateSince
        self.syncRunning = syncRunning
        self.lastSuccessfulSync = lastSuccessfulSync
        self.lastError = lastError
        self.nextRetry = nextRetry
        self.waiting = waiting
    }
}

/// What waits to go from Tern to an account's server.
public struct WaitingWork: Sendable, Hashable, Codable {
    /// Local changes not yet on the server (FR-SYNC-10), and those it refused for good.
    public var changes: Int
    public var failedChanges: Int
    /// Messages queued to send (FR-SYNC-07), and those that failed.
    public var queue: Int
    public var failedQueue: Int
    /// Drafts whose server copy is not up to date (FR-COMP-01).
    public var drafts: Int

    public init(changes: Int = 0, failedChanges: Int = 0, queue: Int = 0, failedQueue: Int = 0, drafts: Int = 0) {
        self.changes = changes
        self.failedChanges = failedChanges
        self.queue = queue
        self.failedQueue = failedQueue
        self.drafts = drafts
    }
}

/// One account's stored sync record, as the recorder left it.
public struct SyncStatusRecord: Sendable, Hashable {
    public var accountId: Account.ID
    public var state: SyncState
    public var detail: String?
    public var changedDate: Date
    /// The process that reported the state.
    public var processId: Int32
    public var lastSuccessfulSync: Date?
    public var lastError: String?
    public var nextRetry: Date?

    public init(
        accountId: Account.ID, state: SyncState, detail: String?, changedDate: Date, processId: Int32,
        lastSuccessfulSync: Date?, lastError: String?, nextRetry: Date?
    ) {
        self.accountId = accountId
        self.state = state
        self.detail = detail
        self.changedDate = changedDate
        self.processId = processId
        self.lastSuccessfulSync = lastSuccessfulSync
        self.lastError = lastError
        self.nextRetry = nextRetry
    }
}

/// What the engine's state reports change in an account's record.
public enum SyncStatusChange: Sendable, Hashable {
    /// A new FR-SYNC-04 state; `.error` keeps its detail as the last error.
    case state(SyncState, detail: String?)
    /// A sync pass ended: with every folder synced it is the last successful sync, and a retry
    /// announced earlier is over.
    case synced(failedFolders: [String])
    case retryScheduled(at: Date, reason: String)
}

public protocol SyncStatusStore: Sendable {
    func record(_ change: SyncStatusChange, accountId: Account.ID, at: Date, processId: Int32) async throws
    func syncStatuses() async throws -> [SyncStatusRecord]
    func waitingWork() async throws -> [Account.ID: WaitingWork]
}

/// Writes an account's state changes to the store in the order the engine made them, off the
/// engine's path: a store that is busy or full delays or loses a status line, never the sync.
public final class SyncStatusRecorder: Sendable {
    private let changes: AsyncStream<(SyncStatusChange, Date)>.Continuation
    private let writer: Task<Void, Never>

    public init(store: any SyncStatusStore, accountId: Account.ID, processId: Int32) {
        let (stream, continuation) = AsyncStream<(SyncStatusChange, Date)>.makeStream()
        changes = continuation
        writer = Task {
            for await (change, date) in stream {
                try? await store.record(change, accountId: accountId, at: date, processId: processId)
            }
        }
    }

    public func observe(_ progress: SyncProgress, at date: Date = Date()) {
        switch progress {
        case .state(_, let state, let detail): changes.yield((.state(state, detail: detail), date))
        case .synced(_, let failedFolders): changes.yield((.synced(failedFolders: failedFolders), date))
        case .retryScheduled(_, let at, let reason): changes.yield((.retryScheduled(at: at, reason: reason), date))
        default: break
        }
    }

    /// Waits until every change observed is written.
    public func finish() async {
        changes.finish()
        await writer.value
    }
}

/// `tern status`: every account's sync status and waiting work.
public struct AccountStatusUseCase: Sendable {
    let accounts: any AccountRepository
    let store: any SyncStatusStore
    /// Whether a process still runs (a state reported by a dead one is stale).
    let isRunning: @Sendable (Int32) -> Bool

    public init(accounts: any AccountRepository, store: any SyncStatusStore, isRunning: @escaping @Sendable (Int32) -> Bool) {
        self.accounts = accounts
        self.store = store
        self.isRunning = isRunning
    }

    public func callAsFunction() async throws -> [AccountSyncStatus] {
        let records = Dictionary(try await store.syncStatuses().map { ($0.accountId, $0) }, uniquingKeysWith: { first, _ in first })
        let waiting = try await store.waitingWork()
        return try await accounts.allAccounts().map { account in
            let record = records[account.id]
            let settled = record.map { $0.state == .idle || $0.state == .error } ?? true
            // A retry is announced only while the account waits for it.
            let retry = record.flatMap { record in settled ? record.nextRetry : nil }
            return AccountSyncStatus(
                account: account.name, syncState: record?.state, syncStateDetail: record?.detail, syncStateSince: record?.changedDate,
                syncRunning: record.map { settled ? false : isRunning($0.processId) } ?? false,
                lastSuccessfulSync: record?.lastSuccessfulSync, lastError: record?.lastError, nextRetry: retry,
                waiting: waiting[account.id] ?? WaitingWork())
        }
    }
}
