import Sync
import TernCore
import Testing

/// FR-SYNC-04 as a value: every event from every state, the diagram's path of a one-shot sync,
/// and the stage order the engine keeps (issue 33).
@Suite struct SyncStateMachineTests {
    typealias Event = SyncStateMachine.Event

    /// Where each event leads, whatever the state (the exceptions are tested below).
    static let target: [Event: SyncState] = [
        .syncTriggered: .connecting, .credentialRequested: .authenticating, .tokenExpired: .tokenRefresh,
        .tokenRefreshed: .authenticating, .foldersListed: .initialFast, .bootstrapped: .catchingUp, .catchUpPaused: .paused,
        .catchUpResumed: .catchingUp, .caughtUp: .indexing, .indexed: .idle, .listening: .listening, .idleDropped: .connecting,
        .failed: .error, .retryDue: .idle
    ]

    @Test(arguments: SyncState.allCases)
    func everyEventFromEveryState(_ state: SyncState) {
        for event in Event.allCases {
            let next = SyncStateMachine.next(from: state, on: event)
            switch event {
            case .connected: #expect(next == (state == .connecting ? .authenticating : state), "\(state) \(event)")
            case .foldersSyncStarted: #expect(next == (state == .listening ? .listening : .syncingFolders), "\(state) \(event)")
            default: #expect(next == Self.target[event], "\(state) \(event)")
            }
            var machine = SyncStateMachine(state: state)
            let moved = machine.handle(event)
            #expect(machine.state == next)
            #expect(moved == (next == state ? nil : next), "a move is reported once, staying is not")
        }
    }

    @Test func aOneShotSyncTakesOnlyTheDiagramsTransitions() {
        var machine = SyncStateMachine()
        let path: [Event] = [
            .syncTriggered, .credentialRequested, .tokenExpired, .tokenRefreshed, .connected, .foldersSyncStarted,
            .foldersListed, .bootstrapped, .catchUpPaused, .catchUpResumed, .caughtUp, .indexed
        ]
        var visited: [SyncState] = [.idle]
        for event in path {
            let from = machine.state
            if let to = machine.handle(event) {
                #expect(from.canMove(to: to), "\(from) → \(to) on \(event)")
                visited.append(to)
            }
        }
        #expect(
            visited == [
                .idle, .connecting, .authenticating, .tokenRefresh, .authenticating, .syncingFolders, .initialFast,
                .catchingUp, .paused, .catchingUp, .indexing, .idle
            ])
    }

    @Test func aWatchListensThenSyncsFromListening() {
        var machine = SyncStateMachine()
        #expect(machine.handle(.listening) == .listening)
        #expect(SyncState.idle.canMove(to: .listening))
        // An IDLE event: the folders are known, straight to the first pages (Listening → InitialFast).
        #expect(machine.handle(.foldersSyncStarted) == nil)
        #expect(machine.handle(.foldersListed) == .initialFast)
        #expect(SyncState.listening.canMove(to: .initialFast))
    }

    @Test func anyStateCanFailAndErrorGoesBackToIdle() {
        for state in SyncState.allCases where state != .error {
            var machine = SyncStateMachine(state: state)
            #expect(machine.handle(.failed) == .error)
            #expect(state.canMove(to: .error))
            #expect(machine.handle(.retryDue) == .idle)
        }
        var failed = SyncStateMachine(state: .error)
        #expect(failed.handle(.failed) == nil)
    }

    @Test func stagesBeginInOrderAndMaySkip() throws {
        var order = SyncStageOrder()
        try order.begin(.discoverFolders)
        try order.begin(.status) // no new folder: no bootstrap
        try order.begin(.status)
        try order.begin(.catchUp)
        #expect(throws: SyncStageOrder.OrderError.outOfOrder(current: .catchUp, requested: .bootstrap)) { try order.begin(.bootstrap) }
        try order.begin(.done)
        #expect(order.current == .done)
    }

    @Test func eachStageBeginningIsItsStateEvent() {
        #expect(
            SyncStageOrder.Stage.allCases.map(SyncStageOrder.event(beginning:)) == [
                .syncTriggered, .foldersSyncStarted, .foldersListed, .bootstrapped, .bootstrapped, .caughtUp, .indexed
            ])
        // Walking the stages walks FR-SYNC-04 from Connecting to Idle along the diagram (login between).
        var machine = SyncStateMachine()
        for stage in SyncStageOrder.Stage.allCases {
            if stage == .discoverFolders { machine.handle(.connected) }
            let from = machine.state
            if let event = SyncStageOrder.event(beginning: stage), let to = machine.handle(event) {
                #expect(from.canMove(to: to), "\(stage): \(from) → \(to)")
            }
        }
        #expect(machine.state == .idle)
    }
}
