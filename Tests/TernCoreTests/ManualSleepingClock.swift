import Foundation
import Synchronization
import TernCore

/// A `SleepingClock` the test moves: `sleep(until:)` returns only when `advance` passes its
/// deadline, so timed policy is tested without waiting.
final class ManualSleepingClock: SleepingClock {
    private struct Sleeper {
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var next = 0
        var sleepers: [Int: Sleeper] = [:]
        /// Cancelled before they were registered.
        var cancelled: Set<Int> = []
    }

    private let state: Mutex<State>

    init(now: Date = Date(timeIntervalSince1970: 1_000_000)) {
        state = Mutex(State(now: now))
    }

    func now() -> Date { state.withLock { $0.now } }

    /// Deadlines waited on now, earliest first.
    var deadlines: [Date] { state.withLock { $0.sleepers.values.map(\.deadline).sorted() } }

    func sleep(until deadline: Date) async throws {
        let id = state.withLock { state in
            state.next += 1
            return state.next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Bool? in
                    if state.cancelled.remove(id) != nil { return nil }
                    if deadline <= state.now { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                switch outcome {
                case nil: continuation.resume(throwing: CancellationError())
                case true?: continuation.resume()
                case false?: break
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on, waking every sleeper whose deadline has come.
    func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.adding(duration)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for key in due.keys { state.sleepers.removeValue(forKey: key) }
            return Array(due.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}

/// Lets other tasks run until `condition` holds (no wall-clock wait): false if it never does.
func eventually(_ condition: @Sendable () async -> Bool) async -> Bool {
    for _ in 0..<20_000 {
        if await condition() { return true }
        await Task.yield()
    }
    return await condition()
}

/// Settings kept in memory.
final class InMemorySettingsStore: SettingsStore {
    private let stored = Mutex<[SettingKey: String]>([:])

    func values() async throws -> [SettingKey: String] { stored.withLock { $0 } }
    func setValue(_ value: String, for key: SettingKey) async throws { stored.withLock { $0[key] = value } }
    func removeValue(for key: SettingKey) async throws { _ = stored.withLock { $0.removeValue(forKey: key) } }
}
