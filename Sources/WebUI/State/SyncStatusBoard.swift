import Foundation
import ServiceLifecycle
import Synchronization
import TernCore

/// FR-SYNC-04: the latest sync state of each account, as the folder pane shows it on a page drawn
/// from scratch (a live page follows the same states as server-sent events).
final class SyncStatusBoard: Sendable {
    let changes: ChangeFeed
    private let states = Mutex<[AccountID: SyncStatus]>([:])
    /// Issue 35: an account was added or removed in this process, so one never synced is about to be.
    private let accountsChanged = Mutex(false)

    init(changes: ChangeFeed) {
        self.changes = changes
    }

    var current: [AccountID: SyncStatus] { states.withLock { $0 } }
    var expectsFirstSync: Bool { accountsChanged.withLock { $0 } }

    func record(_ change: MailChange) {
        switch change {
        case .syncState(let account, let state, let detail):
            states.withLock { states in
                // The first sync's header figures stay while it runs, so a page drawn meanwhile shows them.
                let headers = SyncStatus.isBusy(state) ? states[account]?.headers : nil
                states[account] = SyncStatus(state: state, detail: detail, date: Date(), headers: headers)
            }
        case .headerProgress(let progress):
            states.withLock { states in
                var status = states[progress.accountId] ?? SyncStatus(state: .initialFast, detail: nil, date: Date())
                status.headers = progress
                states[progress.accountId] = status
            }
        case .accountsChanged: accountsChanged.withLock { $0 = true }
        default: break
        }
    }

    /// Keeps the board current for as long as the server runs.
    var follower: some Service { SyncStateFollower(board: self) }
}

struct SyncStateFollower: Service {
    let board: SyncStatusBoard

    /// Ends at graceful shutdown: the service group waits for every service before the process exits.
    func run() async throws {
        let changes = board.changes.changes()
        await cancelWhenGracefulShutdown {
            for await change in changes { board.record(change) }
        }
    }
}
