import Foundation

/// FR-ED-01 on a live front end: the bodies a thread's page lacks arrive after it was drawn, and the
/// change feed is the one channel that says so (`bodyArrived`, `bodiesUnavailable`). This waits on
/// it, within a bound, for a front end that must answer once with the bodies (the web app's
/// `fragments/bodies`, a page without script).
public struct ThreadBodyArrivals: Sendable {
    let changes: ChangeFeed

    public init(changes: ChangeFeed) {
        self.changes = changes
    }

    /// How the wait ended.
    public enum Settled: Sendable, Equatable {
        /// Every body waited for was stored.
        case arrived
        /// They could not be fetched (E-05 when `offline`).
        case unavailable(offline: Bool)
        /// The bound passed first.
        case timedOut
    }

    /// Starts listening before the store is read, so nothing that arrives in between is missed.
    public func listen(threadId: ThreadID) -> Listener { Listener(threadId: threadId, changes: changes.changes()) }

    public struct Listener: Sendable {
        let threadId: ThreadID
        let changes: AsyncStream<MailChange>

        /// Returns when each of `emailIds` has arrived, when the thread's bodies are reported
        /// unavailable, or after `bound`.
        public func wait(for emailIds: Set<EmailID>, within bound: Duration, clock: any SleepingClock = SystemClock()) async -> Settled {
            guard !emailIds.isEmpty else { return .arrived }
            let deadline = clock.now().adding(bound)
            return await withTaskGroup(of: Settled.self) { group in
                group.addTask { [threadId, changes] in
                    var waiting = emailIds
                    for await change in changes {
                        switch change {
                        case .bodyArrived(let emailId, _):
                            waiting.remove(emailId)
                            if waiting.isEmpty { return .arrived }
                        case .bodiesUnavailable(threadId, let offline): return .unavailable(offline: offline)
                        default: break
                        }
                    }
                    return .timedOut
                }
                group.addTask {
                    try? await clock.sleep(until: deadline)
                    return .timedOut
                }
                let first = await group.next() ?? .timedOut
                group.cancelAll()
                return first
            }
        }
    }
}
