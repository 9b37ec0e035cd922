import Foundation

/// What `SyncEngineRunner` runs: a first sync, then the watch, of every active account or the one
/// named. `SyncAccountsUseCase` is the live one; the seam lets the runner's schedule be tested
/// without a server.
public protocol SyncEngineWork: Sendable {
    /// Whether there is an account to sync (none yet: the runner looks again later).
    func hasAccounts(named name: AccountName?) async throws -> Bool
    func syncOnce(account name: AccountName?, progress: @escaping @Sendable (SyncProgress) -> Void) async throws
    /// Until cancelled, or until it fails.
    func watchUntilFailure(account name: AccountName?, progress: @escaping @Sendable (SyncProgress) -> Void) async throws
    /// Reports the failure and the next try (change feed, `tern status`); the accounts it concerns.
    func retryScheduled(at date: Date, reason: String, account name: AccountName?) async -> [AccountName]
}

extension SyncAccountsUseCase: SyncEngineWork {
    public func hasAccounts(named name: AccountName?) async throws -> Bool { try await !accounts(named: name).isEmpty }

    public func syncOnce(account name: AccountName?, progress: @escaping @Sendable (SyncProgress) -> Void) async throws {
        _ = try await self(account: name, progress: progress)
    }

    public func watchUntilFailure(account name: AccountName?, progress: @escaping @Sendable (SyncProgress) -> Void) async throws {
        try await watch(account: name, progress: progress)
    }
}

/// The sync engine of a long-running process (PLATFORM.md), shared by `tern serve` and
/// `tern sync --watch`: a first sync, then IDLE watching with pending changes and the send queue
/// pushed as they come due. A failure of the whole run is reported (the change feed's error state,
/// `tern status`'s next retry, the front end's `retryScheduled` progress) and the run is tried
/// again on a growing delay, never ending the process (FR-SYNC-04 Error → Idle). Connections the
/// run makes have their own backoff inside (FR-SYNC-09); this is the loop around them.
public struct SyncEngineRunner: Sendable {
    /// 5, 15, 45 s, then every 2 min.
    public static let defaultRetryDelays: [Duration] = [.seconds(5), .seconds(15), .seconds(45), .seconds(120)]
    /// With no account yet, how often the runner looks for one.
    public static let defaultAccountPoll: Duration = .seconds(30)

    let work: any SyncEngineWork
    let retryDelays: [Duration]
    let accountPoll: Duration
    let clock: any SleepingClock

    /// `retryDelays`: the delay after the first, second, … failure in a row, the last repeated (empty: the default).
    public init(
        work: any SyncEngineWork, retryDelays: [Duration] = defaultRetryDelays, accountPoll: Duration = defaultAccountPoll,
        clock: any SleepingClock = SystemClock()
    ) {
        self.work = work
        self.retryDelays = retryDelays.isEmpty ? Self.defaultRetryDelays : retryDelays
        self.accountPoll = accountPoll
        self.clock = clock
    }

    /// What only the person can mend (`TernError.needsPerson`: a refused or expired sign-in or TLS; and a
    /// secret that cannot be read, a damaged store): trying again on a timer would not help, so `tern sync --watch` ends on it.
    public static func needsThePerson(_ error: any Error) -> Bool {
        guard let error = error as? TernError else { return false }
        switch error {
        case .secretUnavailable, .databaseUnusable: return true
        default: return error.needsPerson
        }
    }

    /// The delay after `failures` failures in a row (1: the first).
    public func delay(afterFailures failures: Int) -> Duration { retryDelays[min(max(failures, 1), retryDelays.count) - 1] }

    /// Runs until cancelled, or until a failure `endsOn` picks, which it throws. `firstSyncDone`: the
    /// front end already ran the first sync (`tern sync` printed its report), so the first pass only
    /// watches. `describe` words a failure for its reports.
    public func run(
        account name: AccountName?, firstSyncDone: Bool = false, endsOn: @Sendable (any Error) -> Bool = { _ in false },
        describe: @escaping @Sendable (any Error) -> String, progress: @escaping @Sendable (SyncProgress) -> Void
    ) async throws {
        var failures = 0
        var syncFirst = !firstSyncDone
        while !Task.isCancelled {
            do {
                guard try await work.hasAccounts(named: name) else {
                    try await clock.sleep(until: clock.now().adding(accountPoll))
                    continue
                }
                if syncFirst { try await work.syncOnce(account: name, progress: progress) }
                syncFirst = true
                try await work.watchUntilFailure(account: name, progress: progress)
                failures = 0
            } catch {
                if error is CancellationError || Task.isCancelled { return }
                if endsOn(error) { throw error }
                failures += 1
                let retry = clock.now().adding(delay(afterFailures: failures))
                let reason = describe(error)
                for account in await work.retryScheduled(at: retry, reason: reason, account: name) {
                    progress(.retryScheduled(account: account, at: retry, reason: reason))
                }
                do {
                    try await clock.sleep(until: retry)
                } catch {
                    return
                }
            }
        }
    }
}
