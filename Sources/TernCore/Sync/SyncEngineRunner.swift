import Foundation
import Synchronization

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
    /// Where `.accountsChanged` is heard (issue 35: an account added in the web app syncs at once,
    /// a removed one stops); nil: the accounts are looked at again only between passes.
    let accountChanges: ChangeFeed?
    /// Cuts the wait after a failed run short when the network comes back (issue 34).
    let networkReturns: any NetworkReturnSignal

    /// `retryDelays`: the delay after the first, second, … failure in a row, the last repeated (empty: the default).
    public init(
        work: any SyncEngineWork, retryDelays: [Duration] = defaultRetryDelays, accountPoll: Duration = defaultAccountPoll,
        clock: any SleepingClock = SystemClock(), accountChanges: ChangeFeed? = nil,
        networkReturns: any NetworkReturnSignal = NoNetworkReturnSignal()
    ) {
        self.networkReturns = networkReturns
        self.work = work
        self.retryDelays = retryDelays.isEmpty ? Self.defaultRetryDelays : retryDelays
        self.accountPoll = accountPoll
        self.clock = clock
        self.accountChanges = accountChanges
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
        networkReturns.startListening()
        let signal = accountChanges.map { _ in GenerationSignal() }
        let following = accountChanges.map { feed in
            let stream = feed.changes()
            return Task {
                for await change in stream where change == .accountsChanged { signal?.fire() }
            }
        }
        defer { following?.cancel() }
        while !Task.isCancelled {
            let seen = signal?.generation ?? 0
            do {
                guard try await work.hasAccounts(named: name) else {
                    let poll = clock.now().adding(accountPoll)
                    _ = try await untilAccountsChange(signal, after: seen) { [clock] in try await clock.sleep(until: poll) }
                    continue
                }
                let firstPass = syncFirst
                syncFirst = true
                let restarted = try await untilAccountsChange(signal, after: seen) { [work] in
                    if firstPass { try await work.syncOnce(account: name, progress: progress) }
                    try await work.watchUntilFailure(account: name, progress: progress)
                }
                failures = 0
                if restarted { continue }
            } catch {
                if error is CancellationError || Task.isCancelled { return }
                if endsOn(error) { throw error }
                failures += 1
                let returnsSeen = networkReturns.returnsHeard
                let retry = clock.now().adding(delay(afterFailures: failures))
                let reason = describe(error)
                for account in await work.retryScheduled(at: retry, reason: reason, account: name) {
                    progress(.retryScheduled(account: account, at: retry, reason: reason))
                }
                do {
                    // Accounts that change meanwhile (one added to mend what failed) are tried at once, and
                    // so are all when the network comes back.
                    _ = try await untilAccountsChange(signal, after: seen) { [clock, networkReturns] in
                        _ = try await networkReturns.cutShort({ try await clock.sleep(until: retry) }, onReturnBeyond: returnsSeen)
                    }
                } catch {
                    return
                }
            }
        }
    }
}

extension SyncEngineRunner {
    /// Runs `pass` to its end (false), or until the accounts change after `seen` (true: `pass` is
    /// cancelled, and the runner starts over with the accounts there are now).
    func untilAccountsChange(
        _ signal: GenerationSignal?, after seen: Int, _ pass: @escaping @Sendable () async throws -> Void
    ) async throws -> Bool {
        guard let signal else {
            try await pass()
            return false
        }
        return try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await pass()
                return false
            }
            group.addTask {
                await signal.wait(beyond: seen)
                return true
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
    }
}
