import Synchronization
import TernCore

/// Reports an account's FR-SYNC-04 state changes. The engine moves along the diagram
/// (`SyncState.canMove`); the integration tests check the sequence a sync reports against it.
final class SyncStateReporter: Sendable {
    let account: String
    let progress: @Sendable (SyncProgress) -> Void
    private let current: Mutex<SyncState>

    init(account: String, start: SyncState = .idle, progress: @escaping @Sendable (SyncProgress) -> Void) {
        self.account = account
        self.progress = progress
        current = Mutex(start)
    }

    var state: SyncState { current.withLock { $0 } }

    func move(to next: SyncState, detail: String? = nil) {
        let moved = current.withLock { state -> Bool in
            guard state != next else { return false }
            state = next
            return true
        }
        if moved { progress(.state(account: account, next, detail: detail)) }
    }
}
