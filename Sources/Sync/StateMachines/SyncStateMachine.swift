import TernCore

/// FR-SYNC-04's state machine as a value: what happened (`Event`) moves an account from one
/// `SyncState` to the next. No I/O; `SyncStateReporter` holds one per sync or watch and reports
/// each move, and the unit tests drive every transition.
///
/// The diagram's transitions (`SyncState.canMove`) are the ones a one-shot sync takes. A watch
/// adds two the diagram leaves implicit: a dropped IDLE is Connecting again while the pool
/// reconnects, and a sync after an IDLE event or a retry starts from wherever the watch stands.
public struct SyncStateMachine: Sendable, Hashable {
    public enum Event: Sendable, Hashable, CaseIterable {
        /// Idle → Connecting: a sync begins.
        case syncTriggered
        /// A connection is open and logged in; from Connecting this is Authenticating (a login that
        /// asked for the credential has said so already).
        case connected
        /// A connection asks for the credential to log in with.
        case credentialRequested
        /// Authenticating → TokenRefresh: the server refused the token.
        case tokenExpired
        /// TokenRefresh → Authenticating: a new token to log in with.
        case tokenRefreshed
        /// The folders' work begins: SyncingFolders, except after an IDLE event (Listening →
        /// InitialFast follows directly: the folders are known).
        case foldersSyncStarted
        /// SyncingFolders → InitialFast: the folder list is synced; the first pages come next.
        case foldersListed
        /// InitialFast → CatchingUp: the Inbox's (and each new folder's) first page is stored.
        case bootstrapped
        /// CatchingUp → Paused (FR-SYNC-01 stage D).
        case catchUpPaused
        /// Paused → CatchingUp.
        case catchUpResumed
        /// CatchingUp or Paused → Indexing: the history batches of this sync are done.
        case caughtUp
        /// Indexing → Idle.
        case indexed
        /// → Listening: IDLE is established, or a sync it triggered is done.
        case listening
        /// Listening → Connecting: the IDLE connection dropped; the pool reconnects.
        case idleDropped
        /// Any state → Error.
        case failed
        /// Error → Idle: the next attempt is due.
        case retryDue
    }

    public private(set) var state: SyncState

    public init(state: SyncState = .idle) {
        self.state = state
    }

    /// The state `event` leads to from `state`.
    public static func next(from state: SyncState, on event: Event) -> SyncState {
        switch event {
        case .syncTriggered: .connecting
        case .connected: state == .connecting ? .authenticating : state
        case .credentialRequested: .authenticating
        case .tokenExpired: .tokenRefresh
        case .tokenRefreshed: .authenticating
        case .foldersSyncStarted: state == .listening ? .listening : .syncingFolders
        case .foldersListed: .initialFast
        case .bootstrapped, .catchUpResumed: .catchingUp
        case .catchUpPaused: .paused
        case .caughtUp: .indexing
        case .indexed, .retryDue: .idle
        case .listening: .listening
        case .idleDropped: .connecting
        case .failed: .error
        }
    }

    /// Moves on `event`; returns the new state when it changed, nil when the account stays where it is.
    @discardableResult
    public mutating func handle(_ event: Event) -> SyncState? {
        let next = Self.next(from: state, on: event)
        guard next != state else { return nil }
        state = next
        return next
    }
}

/// FR-SYNC-01's stages of one account's sync, in the order the engine runs them. A value: the
/// engine asks it whether a stage may begin, so a change that ran, say, STATUS before the first
/// pages fails the stage-order tests rather than quietly slowing the first render.
public struct SyncStageOrder: Sendable, Hashable {
    public enum Stage: Int, Sendable, Hashable, CaseIterable, Comparable {
        /// Connect and log in.
        case connect
        /// Step 1: LIST, roles, reconciliation (skipped after an IDLE event: the Inbox is known).
        case discoverFolders
        /// Stages B and C: the first page of the Inbox, then each new folder's newest headers.
        case bootstrap
        /// FR-SYNC-02: one pipelined STATUS of the caught-up folders.
        case status
        /// Stage D and incremental sync: new mail, history, deletions, flags, bodies.
        case catchUp
        /// FR-SYNC-04 Indexing: search entries a batch missed.
        case indexing
        case done

        public static func < (lhs: Stage, rhs: Stage) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public enum OrderError: Error, Sendable, Hashable {
        /// A stage was asked for after a later one had begun.
        case outOfOrder(current: Stage, requested: Stage)
    }

    public private(set) var current: Stage = .connect

    public init() {}

    /// Begins `stage`: any later stage, skipping those between (a sync with no new folder has no
    /// bootstrap); never an earlier one.
    public mutating func begin(_ stage: Stage) throws(OrderError) {
        guard stage >= current else { throw .outOfOrder(current: current, requested: stage) }
        current = stage
    }

    /// The FR-SYNC-04 event a stage's beginning is, where it is one.
    public static func event(beginning stage: Stage) -> SyncStateMachine.Event? {
        switch stage {
        case .connect: .syncTriggered
        case .discoverFolders: .foldersSyncStarted
        case .bootstrap: .foldersListed
        case .status, .catchUp: .bootstrapped
        case .indexing: .caughtUp
        case .done: .indexed
        }
    }
}
