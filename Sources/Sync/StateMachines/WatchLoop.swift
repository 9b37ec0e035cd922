import Synchronization

/// FR-SYNC-03's watch of an account's Inbox as a value: IDLE established, its events, the syncs
/// they trigger, a dropped IDLE (the pool reconnects), and the pool giving up after its schedule
/// (FR-SYNC-09: Error, the next attempt announced, tried again after the schedule's last step, for
/// ever). `AccountSynchronizer.watch` feeds it what happens and carries out the effects it returns;
/// the I/O stays there, the decisions are here and unit-tested transition by transition.
public struct WatchLoop: Sendable, Hashable {
    public enum Phase: Sendable, Hashable {
        /// Waiting for the IDLE to be established (first, or after a retry).
        case starting
        /// IDLE is up; no sync is asked for.
        case listening
        /// IDLE dropped; the pool is reconnecting it.
        case reconnecting
        /// The pool gave up; the watch waits `retryDelay` and starts again.
        case waitingToRetry
    }

    public enum Event: Sendable, Hashable {
        /// The Inbox is selected for IDLE (again): what came before is in no event, so it is synced.
        case idleEstablished
        /// The server announced a change in the Inbox.
        case mailboxChanged
        /// A paused catch-up may go on (FR-SYNC-01 stage D): a sync of every folder.
        case catchUpMayResume
        /// A sync the watch asked for ended; `newMessages` were stored.
        case syncFinished(newMessages: Int)
        /// A sync the watch asked for failed for now (connection lost, timeout): FR-SYNC-04 Error;
        /// the next event or re-established IDLE syncs again.
        case syncFailed(reason: String)
        /// The IDLE connection dropped; the pool reconnects on its schedule.
        case idleDropped(reason: String)
        /// The pool's reconnect schedule is over and the account could not be reached.
        case gaveUp(reason: String)
        /// The wait after giving up is over.
        case retryDue
    }

    public enum Effect: Sendable, Hashable {
        /// Tell the account's `SyncStateMachine`.
        case state(SyncStateMachine.Event, detail: String? = nil)
        /// Sync the Inbox, or with `allFolders` every folder.
        case sync(allFolders: Bool)
        /// The watch is up (`tern sync --watch` says so once per established watch).
        case announceWatching
        /// Report the new messages the last sync stored.
        case announceNewMail
        /// Announce the next attempt (`retryScheduled`) and wait this long.
        case waitToRetry(Duration)
        /// Establish the IDLE again.
        case restartIdle
    }

    /// FR-SYNC-09: the pool's last reconnect step (45 s).
    public let retryDelay: Duration
    public private(set) var phase: Phase = .starting
    /// `watching` was announced since the IDLE was last (re)started after giving up.
    public private(set) var announced = false

    public init(retryDelay: Duration) {
        self.retryDelay = retryDelay
    }

    public mutating func handle(_ event: Event) -> [Effect] {
        switch event {
        case .idleEstablished:
            phase = .listening
            return [.state(.listening), .sync(allFolders: false)]
        case .mailboxChanged:
            return phase == .waitingToRetry ? [] : [.sync(allFolders: false)]
        case .catchUpMayResume:
            return phase == .waitingToRetry ? [] : [.sync(allFolders: true)]
        case .syncFinished(let newMessages):
            var effects: [Effect] = [.state(.listening)]
            if !announced {
                announced = true
                effects.append(.announceWatching)
            }
            if newMessages > 0 { effects.append(.announceNewMail) }
            return effects
        case .syncFailed(let reason):
            return [.state(.failed, detail: reason)]
        case .idleDropped(let reason):
            phase = .reconnecting
            return [.state(.idleDropped, detail: "\(reason); reconnecting")]
        case .gaveUp(let reason):
            phase = .waitingToRetry
            return [.state(.failed, detail: reason), .waitToRetry(retryDelay)]
        case .retryDue:
            guard phase == .waitingToRetry else { return [] }
            phase = .starting
            announced = false
            return [.state(.retryDue), .restartIdle]
        }
    }
}

/// One watch's `WatchLoop`, told of events by the watch's tasks (the IDLE's callbacks, the syncs).
final class SharedWatchLoop: Sendable {
    private let loop: Mutex<WatchLoop>

    init(_ loop: WatchLoop) {
        self.loop = Mutex(loop)
    }

    func handle(_ event: WatchLoop.Event) -> [WatchLoop.Effect] { loop.withLock { $0.handle(event) } }
}
