import Synchronization

/// A count of events heard, with waiters for the next one: the accounts changing under
/// `SyncEngineRunner`, the network coming back (`NetworkReturnSignal`). A waiter names the count
/// it has seen, so an event that came between looking and waiting is never missed.
public final class GenerationSignal: Sendable {
    private struct State {
        var generation = 0
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public var generation: Int { state.withLock { $0.generation } }

    public func fire() {
        let waiters = state.withLock { state in
            state.generation += 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the generation is past `seen`, or when the task is cancelled.
    public func wait(beyond seen: Int) async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.generation > seen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
