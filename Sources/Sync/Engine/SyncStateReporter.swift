import Synchronization
import TernCore

/// Reports an account's FR-SYNC-04 state changes: the engine tells it what happened, the
/// `SyncStateMachine` it holds says where that leads, and each move is reported once. The
/// integration tests check the sequence a sync reports against the diagram (`SyncState.canMove`).
final class SyncStateReporter: Sendable {
    let account: AccountName
    let progress: @Sendable (SyncProgress) -> Void
    private let machine: Mutex<SyncStateMachine>

    init(account: AccountName, start: SyncState = .idle, progress: @escaping @Sendable (SyncProgress) -> Void) {
        self.account = account
        self.progress = progress
        machine = Mutex(SyncStateMachine(state: start))
    }

    var state: SyncState { machine.withLock { $0.state } }

    func handle(_ event: SyncStateMachine.Event, detail: String? = nil) {
        if let moved = machine.withLock({ $0.handle(event) }) { progress(.state(account: account, moved, detail: detail)) }
    }
}
