import Foundation
import Synchronization
import Testing

@testable import TernCore

/// FR-SYNC-04 Error → Idle: the runner's passes, retries and their schedule, on a clock the tests move.
@Suite struct SyncEngineRunnerTests {
    struct Refused: Error {}

    /// Each sync and watch takes its outcome from a script (a failure, or, for the watch, waiting until cancelled).
    final class ScriptedEngine: SyncEngineWork {
        enum Call: Equatable {
            case hasAccounts, sync, watch
            case retry(at: Date, reason: String)
        }

        private let calls = Mutex<[Call]>([])
        private let accounts: Mutex<Bool>
        private let syncFailures: Mutex<Int>
        private let watchFailures: Mutex<Int>

        init(accounts: Bool = true, syncFailures: Int = 0, watchFailures: Int = 0) {
            self.accounts = Mutex(accounts)
            self.syncFailures = Mutex(syncFailures)
            self.watchFailures = Mutex(watchFailures)
        }

        var recorded: [Call] { calls.withLock { $0 } }
        func count(_ call: Call) -> Int { recorded.filter { $0 == call }.count }
        var retries: [Date] { recorded.compactMap { if case .retry(let at, _) = $0 { at } else { nil } } }
        func addAccount() { accounts.withLock { $0 = true } }

        func hasAccounts(named name: AccountName?) async throws -> Bool {
            calls.withLock { $0.append(.hasAccounts) }
            return accounts.withLock { $0 }
        }

        func syncOnce(account name: AccountName?, progress: @escaping @Sendable (SyncProgress) -> Void) async throws {
            calls.withLock { $0.append(.sync) }
            if syncFailures.withLock({ left in
                defer { left -= 1 }
                return left > 0
            }) {
                throw Refused()
            }
        }

        func watchUntilFailure(account name: AccountName?, progress: @escaping @Sendable (SyncProgress) -> Void) async throws {
            calls.withLock { $0.append(.watch) }
            if watchFailures.withLock({ left in
                defer { left -= 1 }
                return left > 0
            }) {
                throw Refused()
            }
            progress(.watching(account: "ana"))
            while true { try await Task.sleep(for: .seconds(3600)) }
        }

        func retryScheduled(at date: Date, reason: String, account name: AccountName?) async -> [AccountName] {
            calls.withLock { $0.append(.retry(at: date, reason: reason)) }
            return ["ana"]
        }
    }

    /// What the runner reported to its front end.
    final class ProgressLog: Sendable {
        let events = Mutex<[SyncProgress]>([])
    }

    let clock = ManualSleepingClock()

    func start(
        _ engine: ScriptedEngine, firstSyncDone: Bool = false, delays: [Duration] = SyncEngineRunner.defaultRetryDelays,
        progress: ProgressLog? = nil
    ) -> Task<Void, Never> {
        let runner = SyncEngineRunner(work: engine, retryDelays: delays, accountPoll: .seconds(30), clock: clock)
        return Task {
            try? await runner.run(account: nil, firstSyncDone: firstSyncDone, describe: { _ in "refused" }) { event in
                progress?.events.withLock { $0.append(event) }
            }
        }
    }

    @Test func aHealthyRunSyncsOnceThenWatches() async throws {
        let engine = ScriptedEngine()
        let run = start(engine)
        #expect(await eventually { engine.recorded == [.hasAccounts, .sync, .watch] })
        run.cancel()
        await run.value
        #expect(engine.retries.isEmpty)
    }

    @Test func failuresAreRetriedAfter5_15_45ThenEvery120Seconds() async throws {
        let engine = ScriptedEngine(syncFailures: 5)
        let progress = ProgressLog()
        let began = clock.now()
        let run = start(engine, progress: progress)
        var expected = began
        for (attempt, delay) in [5, 15, 45, 120, 120].enumerated() {
            #expect(await eventually { engine.retries.count == attempt + 1 && clock.deadlines.count == 1 })
            expected = expected.addingTimeInterval(Double(delay))
            #expect(engine.retries.last == expected, "attempt \(attempt + 1)")
            #expect(engine.count(.sync) == attempt + 1)
            clock.advance(by: .seconds(delay))
        }
        #expect(await eventually { engine.count(.watch) == 1 })
        #expect(engine.count(.sync) == 6)
        #expect(engine.recorded.contains(.retry(at: began.addingTimeInterval(5), reason: "refused")))
        // The front end hears each retry too (`tern sync --watch` prints them).
        #expect(progress.events.withLock { $0 }.contains(.retryScheduled(account: "ana", at: began.addingTimeInterval(5), reason: "refused")))
        run.cancel()
        await run.value
    }

    @Test func aWatchThatFailsIsFollowedBySyncAndWatchAgain() async throws {
        let engine = ScriptedEngine(watchFailures: 2)
        let run = start(engine, delays: [.seconds(1), .seconds(2)])
        #expect(await eventually { engine.retries.count == 1 && clock.deadlines.count == 1 })
        clock.advance(by: .seconds(1))
        #expect(await eventually { engine.retries.count == 2 && clock.deadlines.count == 1 })
        // The second failure in a row waits the second delay.
        #expect(engine.retries[1] == clock.now().addingTimeInterval(2))
        clock.advance(by: .seconds(2))
        #expect(await eventually { engine.count(.watch) == 3 })
        #expect(engine.recorded.filter { $0 == .sync || $0 == .watch } == [.sync, .watch, .sync, .watch, .sync, .watch])
        run.cancel()
        await run.value
    }

    @Test func afterTheFrontEndsOwnSyncTheFirstPassOnlyWatches() async throws {
        let engine = ScriptedEngine(watchFailures: 1)
        let run = start(engine, firstSyncDone: true)
        #expect(await eventually { engine.retries.count == 1 && clock.deadlines.count == 1 })
        #expect(engine.recorded.filter { $0 == .sync || $0 == .watch } == [.watch])
        clock.advance(by: .seconds(5))
        #expect(await eventually { engine.count(.watch) == 2 })
        #expect(engine.count(.sync) == 1)
        run.cancel()
        await run.value
    }

    @Test func withNoAccountItLooksAgainLater() async throws {
        let engine = ScriptedEngine(accounts: false)
        let run = start(engine)
        #expect(await eventually { clock.deadlines == [clock.now().addingTimeInterval(30)] })
        #expect(engine.recorded == [.hasAccounts])
        engine.addAccount()
        clock.advance(by: .seconds(30))
        #expect(await eventually { engine.count(.watch) == 1 })
        #expect(engine.retries.isEmpty)
        run.cancel()
        await run.value
    }

    @Test func cancellingInTheRetryWaitEndsTheRun() async throws {
        let engine = ScriptedEngine(syncFailures: 100)
        let run = start(engine)
        #expect(await eventually { engine.retries.count == 1 && clock.deadlines.count == 1 })
        run.cancel()
        await run.value
        #expect(engine.count(.sync) == 1)
    }

    @Test func aFailureOnlyThePersonCanMendEndsTheRunWhenAsked() async throws {
        struct SignedOut: SyncEngineWork {
            func hasAccounts(named name: AccountName?) async throws -> Bool { true }
            func syncOnce(account name: AccountName?, progress: @escaping @Sendable (SyncProgress) -> Void) async throws {
                throw TernError.signInRequired(account: "ana")
            }
            func watchUntilFailure(account name: AccountName?, progress: @escaping @Sendable (SyncProgress) -> Void) async throws {}
            func retryScheduled(at date: Date, reason: String, account name: AccountName?) async -> [AccountName] { ["ana"] }
        }
        let runner = SyncEngineRunner(work: SignedOut(), clock: clock)
        await #expect(throws: TernError.signInRequired(account: "ana")) {
            try await runner.run(account: nil, endsOn: SyncEngineRunner.needsThePerson, describe: { _ in "" }) { _ in }
        }
        #expect(SyncEngineRunner.needsThePerson(TernError.authenticationExpired("x")))
        #expect(!SyncEngineRunner.needsThePerson(TernError.connectionLost("x")))
        #expect(SyncEngineRunner.needsThePerson(TernError.authenticationRefused("x")))
        #expect(SyncEngineRunner.needsThePerson(TernError.tlsRefused("x")))
    }

    @Test func theScheduleRepeatsItsLastDelayAndAnEmptyOneIsTheDefault() {
        let runner = SyncEngineRunner(work: ScriptedEngine(), retryDelays: [.milliseconds(200), .milliseconds(400)], clock: clock)
        #expect([1, 2, 3, 9].map(runner.delay(afterFailures:)) == [.milliseconds(200), .milliseconds(400), .milliseconds(400), .milliseconds(400)])
        let defaults = SyncEngineRunner(work: ScriptedEngine(), retryDelays: [], clock: clock)
        #expect((1...5).map(defaults.delay(afterFailures:)) == [.seconds(5), .seconds(15), .seconds(45), .seconds(120), .seconds(120)])
    }
}

extension SyncEngineRunnerTests {
    /// Issue 35: an account added in the web app syncs at once, not at the next look for accounts;
    /// one added beside others starts the watch over with a first sync that includes it.
    @Test func anAccountsChangeWakesTheRunnerAndStartsItOver() async throws {
        let engine = ScriptedEngine(accounts: false)
        let feed = ChangeFeed()
        let runner = SyncEngineRunner(work: engine, accountPoll: .seconds(30), clock: clock, accountChanges: feed)
        let run = Task { try? await runner.run(account: nil, describe: { _ in "refused" }) { _ in } }
        #expect(await eventually { clock.deadlines.count == 1 })
        engine.addAccount()
        feed.publish(.accountsChanged)
        #expect(await eventually { engine.count(.watch) == 1 })
        #expect(engine.count(.sync) == 1)
        feed.publish(.accountsChanged)
        #expect(await eventually { engine.count(.sync) == 2 && engine.count(.watch) == 2 })
        #expect(engine.retries.isEmpty)
        run.cancel()
        await run.value
    }
}

extension SyncEngineRunnerTests {
    /// The platform's network-return signal, fired by the test.
    final class HeardReturns: NetworkReturnSignal {
        let signal = GenerationSignal()
        var returnsHeard: Int { signal.generation }
        func startListening() {}
        func waitForReturn(beyond seen: Int) async { await signal.wait(beyond: seen) }
    }

    /// Issue 34: after a failed run, the network coming back ends the wait at once (the 2-minute
    /// step would otherwise leave a laptop back online without mail for up to two minutes).
    @Test func theNetworkComingBackCutsTheRetryWaitShort() async throws {
        let engine = ScriptedEngine(syncFailures: 1)
        let returns = HeardReturns()
        let runner = SyncEngineRunner(work: engine, retryDelays: [.seconds(120)], clock: clock, networkReturns: returns)
        let run = Task { try? await runner.run(account: nil, describe: { _ in "unreachable" }) { _ in } }
        #expect(await eventually { engine.retries.count == 1 && clock.deadlines.count == 1 })
        returns.signal.fire()
        #expect(await eventually { engine.count(.watch) == 1 })
        #expect(engine.count(.sync) == 2)
        run.cancel()
        await run.value
    }

    /// The watch listens for the network's return only while queued mail waits on a backoff.
    @Test func theWatchListensForTheNetworkWhileQueuedMailWaits() {
        var report = PushReport(account: "ana", changes: OperationsReport(), queue: SendQueueReport())
        #expect(!SyncAccountsUseCase.waitsOnBackoff(report))
        report.queue.waiting = 1
        #expect(SyncAccountsUseCase.waitsOnBackoff(report))
    }
}
