import MailTransport
import Synchronization
import Testing

@testable import IMAP

/// FR-SYNC-09 and FR-SYNC-03: the pool's policy (`IMAPSessionPool`, whose network form is
/// `IMAPConnectionPool`) on fake connections, so it runs without a server (issue 33). The same
/// pool against Dovecot is in IMAPIntegrationTests/IMAPConnectionPoolTests.
@Suite(.timeLimit(.minutes(1)))
struct IMAPConnectionPoolTests {
    private typealias Pool = IMAPSessionPool<FakeSession>

    private static func pool(
        _ server: FakeServer, maxConnections: Int = 5, backoff: BackoffSchedule = BackoffSchedule([.milliseconds(1), .milliseconds(2)]),
        maxIdleTime: Duration = .seconds(240), slots: FakeSlotBudget? = nil
    ) -> Pool {
        Pool(
            server: MailServer(host: "fake.invalid", port: 993, security: .implicitTLS), maxConnections: maxConnections, backoff: backoff,
            maxIdleTime: maxIdleTime, slots: slots, givingWayInterval: .milliseconds(1), connect: server.connect)
    }

    /// Runs `operations` short operations at once; the most that ran at the same time.
    private static func mostInUse(_ pool: Pool, operations: Int) async throws -> Int {
        let inUse = Locked((now: 0, peak: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<operations {
                group.addTask {
                    try await pool.withConnection { _ in
                        inUse.withLock {
                            $0.now += 1
                            $0.peak = max($0.peak, $0.now)
                        }
                        try await Task.sleep(for: .milliseconds(2))
                        inUse.withLock { $0.now -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        return inUse.withLock { $0.peak }
    }

    // MARK: - At most five, reused

    @Test func concurrentOperationsNeverOpenMoreThanTheLimit() async throws {
        let server = FakeServer()
        let pool = Self.pool(server, maxConnections: 3)
        #expect(try await Self.mostInUse(pool, operations: 30) == 3)
        let statistics = await pool.statistics
        #expect(statistics.peakOpen == 3 && statistics.connectionsOpened == 3, "\(statistics)")
        #expect(statistics.open == 3 && statistics.busy == 0 && statistics.waiting == 0, "\(statistics)")
        #expect(server.state.withLock { $0.attempts } == 3)
        await pool.shutdown()
    }

    @Test func aLimitBelowOneMeansOne() {
        #expect(Self.pool(FakeServer(), maxConnections: 0).maxConnections == 1)
    }

    @Test func anIdleConnectionIsReused() async throws {
        let server = FakeServer()
        let pool = Self.pool(server)
        var sessions: [Int] = []
        for _ in 0..<4 { sessions.append(try await pool.withConnection { session in session.id }) }
        #expect(Set(sessions).count == 1)
        let statistics = await pool.statistics
        #expect(statistics.connectionsOpened == 1 && statistics.open == 1 && statistics.busy == 0, "\(statistics)")
        await pool.shutdown()
    }

    @Test func theBodysResultAndErrorReachTheCallerAndTheConnectionStays() async throws {
        let server = FakeServer()
        let pool = Self.pool(server)
        await #expect(throws: IMAPError.server(status: .no, text: "nope")) {
            try await pool.withConnection { _ in throw IMAPError.server(status: .no, text: "nope") }
        }
        #expect(try await pool.withConnection { _ in 42 } == 42)
        #expect(await pool.statistics.connectionsOpened == 1, "a command's refusal does not cost the connection")
        await pool.shutdown()
    }

    @Test func waitersAreServedInArrivalOrder() async throws {
        let server = FakeServer()
        let pool = Self.pool(server, maxConnections: 1)
        let gate = Gate()
        let order = Locked<[Int]>([])
        let blocker = Task { try await pool.withConnection { _ in await gate.wait() } }
        try await eventually { await pool.statistics.busy == 1 }
        var waiters: [Task<Void, any Error>] = []
        for index in 0..<6 {
            waiters.append(Task { try await pool.withConnection { _ in order.withLock { $0.append(index) } } })
            try await eventually { await pool.statistics.waiting == index + 1 }
        }
        gate.open()
        try await blocker.value
        for waiter in waiters { try await waiter.value }
        #expect(order.withLock { $0 } == Array(0..<6))
        #expect(await pool.statistics.connectionsOpened == 1)
        await pool.shutdown()
    }

    @Test func aCancelledWaiterLeavesTheQueueAndTheOthersAreServed() async throws {
        let server = FakeServer()
        let pool = Self.pool(server, maxConnections: 1)
        let gate = Gate()
        let blocker = Task { try await pool.withConnection { _ in await gate.wait() } }
        try await eventually { await pool.statistics.busy == 1 }
        let cancelled = Task { try await pool.withConnection { _ in "cancelled one" } }
        try await eventually { await pool.statistics.waiting == 1 }
        let served = Task { try await pool.withConnection { _ in "served" } }
        try await eventually { await pool.statistics.waiting == 2 }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        try await eventually { await pool.statistics.waiting == 1 }
        gate.open()
        try await blocker.value
        #expect(try await served.value == "served")
        await pool.shutdown()
    }

    @Test func aCancelledCallerIsSeenByTheSessionItsCommandRunsOn() async throws {
        let server = FakeServer()
        let pool = Self.pool(server)
        let started = Gate()
        let operation = Task {
            try await pool.withConnection { session in
                started.open()
                while !(session.cancellationCheck?() ?? false) { try await Task.sleep(for: .milliseconds(1)) }
                return "saw the cancellation"
            }
        }
        await started.wait()
        operation.cancel()
        #expect(try await operation.value == "saw the cancellation")
        #expect(try await pool.withConnection { session in session.cancellationCheck?() == false }, "the next job's caller is not cancelled")
        await pool.shutdown()
    }

    // MARK: - Broken and dropped connections

    @Test func aConnectionThatBrokeWhileLeasedIsClosedAndNeverHandedOutAgain() async throws {
        let server = FakeServer()
        let pool = Self.pool(server)
        let first = try await pool.withConnection { session in session.id }
        await #expect(throws: IMAPError.connectionClosed) {
            try await pool.withConnection { session in
                session.isBroken = true
                throw IMAPError.connectionClosed
            }
        }
        try await eventually { server.state.withLock { $0.closed.contains(first) } }
        #expect(!server.state.withLock { $0.loggedOut.contains(first) }, "no LOGOUT on a broken connection")
        #expect(await pool.statistics.open == 0)
        let second = try await pool.withConnection { session in session.id }
        #expect(second != first)
        #expect(await pool.statistics.connectionsOpened == 2)
        await pool.shutdown()
    }

    @Test func aWaiterGetsANewConnectionWhenTheBusyOneBreaks() async throws {
        let server = FakeServer()
        let pool = Self.pool(server, maxConnections: 1)
        let gate = Gate()
        let breaking = Task {
            try await pool.withConnection { session in
                await gate.wait()
                session.isBroken = true
                throw IMAPError.connectionClosed
            }
        }
        try await eventually { await pool.statistics.busy == 1 }
        let waiter = Task { try await pool.withConnection { session in session.id } }
        try await eventually { await pool.statistics.waiting == 1 }
        gate.open()
        await #expect(throws: IMAPError.connectionClosed) { try await breaking.value }
        #expect(try await waiter.value == 1, "served on the replacement, the second connection")
        #expect(await pool.statistics.peakOpen == 1)
        await pool.shutdown()
    }

    @Test func anIdleConnectionWhoseTransportDroppedIsClosedAndReplaced() async throws {
        let server = FakeServer()
        let pool = Self.pool(server)
        let first = try await pool.withConnection { session in session.id }
        server.state.withLock { _ = $0.disconnected.insert(first) }
        let second = try await pool.withConnection { session in session.id }
        #expect(second != first)
        try await eventually { server.state.withLock { $0.closed.contains(first) } }
        for _ in 0..<3 { #expect(try await pool.withConnection { session in session.id } != first) }
        // Its end while the operation still waited may have opened one more, within the limit.
        #expect(await pool.statistics.open <= 2)
        await pool.shutdown()
    }

    @Test func aConnectionIdleLongerThanItsIdleTimeIsNotHandedOut() async throws {
        let server = FakeServer()
        let pool = Self.pool(server, maxIdleTime: .milliseconds(30))
        let first = try await pool.withConnection { session in session.id }
        try await Task.sleep(for: .milliseconds(40))
        let second = try await pool.withConnection { session in session.id }
        #expect(second != first)
        await pool.shutdown()
    }

    @Test func anUnusedConnectionLogsOutAfterItsIdleTime() async throws {
        let server = FakeServer()
        let pool = Self.pool(server, maxIdleTime: .milliseconds(20))
        let first = try await pool.withConnection { session in session.id }
        #expect(await pool.statistics.open == 1)
        try await eventually { server.state.withLock { $0.loggedOut } == [first] }
        #expect(await pool.statistics.open == 0)
        await pool.shutdown()
    }

    // MARK: - Failing to connect

    @Test func aRetryableFailureIsRetriedOnTheScheduleThenReported() async throws {
        let server = FakeServer()
        server.failNextAttempts([.network("refused"), .timeout("slow"), .network("refused again")])
        let pool = Self.pool(server, backoff: BackoffSchedule([.milliseconds(1), .milliseconds(2)]))
        await #expect(throws: IMAPError.network("refused again")) { try await pool.withConnection { _ in } }
        #expect(server.state.withLock { $0.attempts } == 3, "the first attempt and one after each wait")
        let statistics = await pool.statistics
        #expect(statistics.open == 0 && statistics.waiting == 0, "\(statistics)")
        // The schedule is over: the next operation tries afresh, and gets through.
        #expect(try await pool.withConnection { _ in "through" } == "through")
        await pool.shutdown()
    }

    @Test func aFailureThatGoesAwayWithinTheScheduleIsNotSeen() async throws {
        let server = FakeServer()
        server.failNextAttempts([.network("refused")])
        let pool = Self.pool(server)
        #expect(try await pool.withConnection { _ in "through" } == "through")
        #expect(server.state.withLock { $0.attempts } == 2)
        await pool.shutdown()
    }

    @Test func aRefusalIsNotRetried() async throws {
        let server = FakeServer()
        server.failNextAttempts([.authenticationFailed("bad password"), .authenticationFailed("bad password")])
        let pool = Self.pool(server)
        await #expect(throws: IMAPError.authenticationFailed("bad password")) { try await pool.withConnection { _ in } }
        #expect(server.state.withLock { $0.attempts } == 1)
        #expect(await pool.statistics.open == 0)
        await pool.shutdown()
    }

    @Test func everyWaiterGetsTheErrorWhenNoConnectionIsLeft() async throws {
        let server = FakeServer()
        server.failNextAttempts(Array(repeating: .network("refused"), count: 3))
        let pool = Self.pool(server, maxConnections: 1, backoff: BackoffSchedule([.milliseconds(20), .milliseconds(20)]))
        let first = Task { try await pool.withConnection { _ in } }
        try await eventually { await pool.statistics.waiting == 1 }
        let second = Task { try await pool.withConnection { _ in } }
        try await eventually { await pool.statistics.waiting == 2 }
        await #expect(throws: IMAPError.network("refused")) { try await first.value }
        await #expect(throws: IMAPError.network("refused")) { try await second.value }
        #expect(server.state.withLock { $0.attempts } == 3, "one connection's schedule served both")
        await pool.shutdown()
    }

    @Test func aFailingFastOperationIsToldAtTheFirstFailureWhileBackgroundWorkWaits() async throws {
        let server = FakeServer()
        server.failNextAttempts([.network("refused"), .network("refused")])
        let pool = Self.pool(server, backoff: BackoffSchedule([.seconds(600)]))
        let background = Task { try await pool.withConnection { _ in } }
        try await eventually { await pool.reconnectFailure != nil }
        await #expect(throws: IMAPError.network("refused")) { try await pool.withConnection(failingFast: true) { _ in } }
        #expect(await pool.statistics.waiting == 1, "the background operation still waits for the next attempt")
        // Asked again while the pool waits to try: told at once, nothing new opened.
        let opened = await pool.statistics.connectionsOpened
        await #expect(throws: IMAPError.network("refused")) { try await pool.withConnection(failingFast: true) { _ in } }
        #expect(await pool.statistics.connectionsOpened == opened)
        // Stopping the pool stops the attempts at once.
        await pool.shutdown()
        await #expect(throws: CancellationError.self) { try await background.value }
        #expect(await pool.statistics.open == 0)
        #expect(server.state.withLock { $0.attempts } == 1)
    }

    @Test func aFailingFastOperationWaitsForABusyConnectionThatWillComeBack() async throws {
        let server = FakeServer()
        let pool = Self.pool(server, maxConnections: 2, backoff: BackoffSchedule([.seconds(600)]))
        let gate = Gate()
        let busy = Task { try await pool.withConnection { _ in await gate.wait() } }
        try await eventually { await pool.statistics.busy == 1 }
        server.failNextAttempts([.network("refused")])
        let person = Task { try await pool.withConnection(failingFast: true) { session in session.id } }
        try await eventually { await pool.reconnectFailure != nil }
        #expect(await pool.statistics.waiting == 1, "not told: the busy connection serves it")
        gate.open()
        try await busy.value
        #expect(try await person.value == 0)
        await pool.shutdown()
    }

    @Test func aFailingFastOperationIsToldAtTheFirstFailedAttempt() async throws {
        let server = FakeServer()
        server.failNextAttempts([.network("refused")])
        let pool = Self.pool(server, backoff: BackoffSchedule([.seconds(600)]))
        await #expect(throws: IMAPError.network("refused")) { try await pool.withConnection(failingFast: true) { _ in } }
        #expect(await pool.statistics.waiting == 0)
        await pool.shutdown()
    }

    @Test func aConnectionThatGetsThroughClearsTheLastFailure() async throws {
        let server = FakeServer()
        server.failNextAttempts([.network("refused")])
        let pool = Self.pool(server, maxConnections: 2, backoff: BackoffSchedule([.milliseconds(1)]))
        let gate = Gate()
        // Held like an IDLE's, so the next operation finds no connection that will come back.
        let held = Task { try await pool.withConnection(holding: true) { _ in await gate.wait() } }
        try await eventually { await pool.statistics.busy == 1 }
        #expect(await pool.reconnectFailure == nil)
        #expect(try await pool.withConnection(failingFast: true) { session in session.id } == 1)
        gate.open()
        try await held.value
        await pool.shutdown()
    }

    // MARK: - IDLE's connection

    @Test func aFailingFastOperationIsToldWhenTheOnlyBusyConnectionIsAnIDLEs() async throws {
        let server = FakeServer()
        let pool = Self.pool(server, maxConnections: 2, backoff: BackoffSchedule([.seconds(600)]))
        let gate = Gate()
        let idle = Task { try await pool.withConnection(holding: true) { _ in await gate.wait() } }
        try await eventually { await pool.statistics.busy == 1 }
        server.failNextAttempts([.network("refused")])
        await #expect(throws: IMAPError.network("refused")) { try await pool.withConnection(failingFast: true) { _ in } }
        gate.open()
        try await idle.value
        await pool.shutdown()
    }

    @Test func waitersDoNotCountOnAnIDLEsConnectionWhenOpeningFails() async throws {
        let server = FakeServer()
        let pool = Self.pool(server, maxConnections: 2, backoff: BackoffSchedule([.milliseconds(1)]))
        let gate = Gate()
        let idle = Task { try await pool.withConnection(holding: true) { _ in await gate.wait() } }
        try await eventually { await pool.statistics.busy == 1 }
        server.failNextAttempts([.network("refused"), .network("refused")])
        await #expect(throws: IMAPError.network("refused")) { try await pool.withConnection { _ in } }
        gate.open()
        try await idle.value
        await pool.shutdown()
    }

    @Test func waitersCountOnABusyConnectionThatIsNotAnIDLEs() async throws {
        let server = FakeServer()
        let pool = Self.pool(server, maxConnections: 2, backoff: BackoffSchedule([.milliseconds(1)]))
        let gate = Gate()
        let busy = Task { try await pool.withConnection { _ in await gate.wait() } }
        try await eventually { await pool.statistics.busy == 1 }
        server.failNextAttempts([.network("refused"), .network("refused")])
        let waiter = Task { try await pool.withConnection { session in session.id } }
        try await eventually {
            let open = await pool.statistics.open
            return server.state.withLock { $0.attempts } == 3 && open == 1
        }
        #expect(await pool.statistics.waiting == 1)
        gate.open()
        try await busy.value
        #expect(try await waiter.value == 0, "served by the connection that came back")
        await pool.shutdown()
    }

    @Test func idleDeliversTheMailboxsEventsUntilStopped() async throws {
        let server = FakeServer()
        let pool = Self.pool(server)
        let established = Locked(0)
        let events = pool.idleEvents(mailbox: "INBOX", established: { established.withLock { $0 += 1 } })
        let consumer = Task {
            var seen: [MailboxEvent] = []
            for try await event in events {
                seen.append(event)
                if seen.count == 2 { events.stop() }
            }
            return seen
        }
        try await eventually { server.state.withLock { !$0.idling.isEmpty } }
        server.push(.exists(count: 3), mailbox: "INBOX")
        server.push(.exists(count: 4), mailbox: "INBOX")
        #expect(try await consumer.value == [.exists(count: 3), .exists(count: 4)])
        #expect(established.withLock { $0 } == 1)
        try await eventually { await pool.statistics.busy == 0 }
        #expect(await pool.statistics.open == 1, "the connection is back in the pool")
        #expect(server.state.withLock { $0.prepared } == ["INBOX"])
        await pool.shutdown()
    }

    @Test func anIDLEThatDropsIsReestablishedOnANewConnection() async throws {
        let server = FakeServer()
        let pool = Self.pool(server)
        let established = Locked(0)
        let drops = Locked<[IMAPError]>([])
        let events = pool.idleEvents(
            mailbox: "INBOX", reconnecting: { error in drops.withLock { $0.append(error) } },
            established: { established.withLock { $0 += 1 } })
        let consumer = Task {
            for try await event in events {
                if event == .exists(count: 9) { return true }
            }
            return false
        }
        try await eventually { server.state.withLock { $0.idling == [0] } }
        server.state.withLock { _ = $0.dropped.insert(0) }
        try await eventually { server.state.withLock { $0.idling.count == 1 && $0.idling != [0] } }
        server.push(.exists(count: 9), mailbox: "INBOX")
        #expect(try await consumer.value)
        #expect(drops.withLock { $0 } == [.connectionClosed])
        #expect(established.withLock { $0 } == 2)
        events.stop()
        await pool.shutdown()
    }

    @Test func aConnectionHandedOutDeadToTheIDLEIsTriedOnceMore() async throws {
        let server = FakeServer()
        server.state.withLock { $0.prepareFailures = [.connectionClosed] }
        let pool = Self.pool(server)
        let drops = Locked(0)
        let events = pool.idleEvents(mailbox: "INBOX", reconnecting: { _ in drops.withLock { $0 += 1 } })
        let consumer = Task {
            for try await _ in events { return true }
            return false
        }
        try await eventually { server.state.withLock { !$0.idling.isEmpty } }
        server.push(.exists(count: 1), mailbox: "INBOX")
        #expect(try await consumer.value)
        #expect(drops.withLock { $0 } == 0, "not a drop of an established IDLE")
        events.stop()
        await pool.shutdown()
    }

    @Test func twoDeadConnectionsInARowEndTheIDLEWithTheError() async throws {
        let server = FakeServer()
        server.state.withLock { $0.prepareFailures = [.connectionClosed, .timeout("no answer")] }
        let pool = Self.pool(server)
        let events = pool.idleEvents(mailbox: "INBOX")
        await #expect(throws: IMAPError.timeout("no answer")) { for try await _ in events {} }
        await pool.shutdown()
    }

    @Test func aRefusalEndsTheIDLEWithTheError() async throws {
        let server = FakeServer()
        server.state.withLock { $0.prepareFailures = [.server(status: .no, text: "no such mailbox")] }
        let pool = Self.pool(server)
        await #expect(throws: IMAPError.server(status: .no, text: "no such mailbox")) {
            for try await _ in pool.idleEvents(mailbox: "Gone") {}
        }
        try await eventually { await pool.statistics.busy == 0 }
        await pool.shutdown()
    }

    @Test func theIDLEEndsWithTheErrorWhenThePoolGivesUpReconnecting() async throws {
        let server = FakeServer()
        let pool = Self.pool(server, backoff: BackoffSchedule([.milliseconds(1)]))
        let events = pool.idleEvents(mailbox: "INBOX")
        let consumer = Task { for try await _ in events {} }
        try await eventually { server.state.withLock { $0.idling == [0] } }
        // Enough for every schedule: the dropped connection's end may open a replacement beside
        // the one the IDLE asks for.
        server.failNextAttempts(Array(repeating: .network("refused"), count: 8))
        server.state.withLock { _ = $0.dropped.insert(0) }
        await #expect(throws: IMAPError.network("refused")) { try await consumer.value }
        await pool.shutdown()
    }

    // MARK: - The budget shared with other processes

    @Test func theSharedBudgetBoundsTheConnectionsBelowThePoolsLimit() async throws {
        let server = FakeServer()
        let slots = FakeSlotBudget(free: 2)
        let pool = Self.pool(server, slots: slots)
        #expect(try await Self.mostInUse(pool, operations: 20) == 2)
        #expect(slots.state.withLock { $0.peakTaken } == 2)
        // The connections opened for operations that others served stop waiting for a slot.
        try await eventually { await pool.statistics.open == 2 }
        #expect(server.state.withLock { $0.attempts } == 2)
        await pool.shutdown()
        #expect(slots.state.withLock { $0.free } == 2, "every slot is back")
    }

    @Test func aConnectionWaitsForASlotHeldElsewhereAndConnectsWhenOneIsFree() async throws {
        let server = FakeServer()
        let slots = FakeSlotBudget(free: 0)
        let pool = Self.pool(server, slots: slots)
        let operation = Task { try await pool.withConnection { session in session.id } }
        try await eventually {
            let statistics = await pool.statistics
            return statistics.open == 1 && statistics.waiting == 1
        }
        try await Task.sleep(for: .milliseconds(20))
        #expect(server.state.withLock { $0.attempts } == 0, "no connection before a slot")
        slots.state.withLock { $0.free = 1 }
        #expect(try await operation.value == 0)
        #expect(slots.state.withLock { $0.free } == 0, "the idle connection keeps its slot")
        await pool.shutdown()
        #expect(slots.state.withLock { $0.free } == 1)
    }

    @Test func idleConnectionsAreGivenUpOneByOneWhileAnotherProcessWaits() async throws {
        let server = FakeServer()
        let slots = FakeSlotBudget(free: 5)
        let pool = Self.pool(server, slots: slots)
        let gate = Gate()
        let operations = (0..<3).map { _ in Task { try await pool.withConnection { _ in await gate.wait() } } }
        try await eventually { await pool.statistics.busy == 3 }
        gate.open()
        for operation in operations { try await operation.value }
        #expect(await pool.statistics.open == 3)
        slots.state.withLock { $0.wantedForLooks = 1 }
        try await eventually { await pool.statistics.open == 2 }
        try await Task.sleep(for: .milliseconds(20))
        var statistics = await pool.statistics
        #expect(statistics.open == 2 && statistics.connectionsGivenUp == 1, "one at a time: \(statistics)")
        slots.state.withLock { $0.wantedElsewhere = true }
        try await eventually { await pool.statistics.open == 0 }
        statistics = await pool.statistics
        #expect(statistics.connectionsGivenUp == 3, "\(statistics)")
        // Each logs out, then frees its slot.
        try await eventually { slots.state.withLock { $0.free } == 5 }
        #expect(Set(server.state.withLock { $0.loggedOut }).count == 3, "given up with LOGOUT")
        #expect(try await pool.withConnection { _ in 7 } == 7, "a new one when needed")
        await pool.shutdown()
    }

    @Test func aConnectionWhoseJobEndsIsGivenUpBeforeItsOwnWaitersWhileAnotherProcessWaits() async throws {
        let server = FakeServer()
        let slots = FakeSlotBudget(free: 5)
        let pool = Self.pool(server, maxConnections: 2, slots: slots)
        let gate = Gate()
        let operations = (0..<2).map { _ in Task { try await pool.withConnection { _ in await gate.wait() } } }
        try await eventually { await pool.statistics.busy == 2 }
        let waiter = Task { try await pool.withConnection { session in session.id } }
        try await eventually { await pool.statistics.waiting == 1 }
        slots.state.withLock { $0.wantedElsewhere = true }
        gate.open()
        for operation in operations { try await operation.value }
        // The first job to end gives its connection up (the other is still busy): the waiter is served by the other
        // or by a new connection, which waited its turn for a slot.
        _ = try await waiter.value
        #expect(await pool.statistics.connectionsGivenUp >= 1)
        try await eventually { server.state.withLock { $0.loggedOut }.contains { $0 < 2 } }
        await pool.shutdown()
    }

    @Test func theIDLEsConnectionIsNotGivenUpWhileItIdles() async throws {
        let server = FakeServer()
        let slots = FakeSlotBudget(free: 5)
        let pool = Self.pool(server, slots: slots)
        let events = pool.idleEvents(mailbox: "INBOX")
        let consumer = Task { for try await _ in events {} }
        try await eventually { server.state.withLock { $0.idling == [0] } }
        try await pool.withConnection { _ in } // a second connection, left idle
        slots.state.withLock { $0.wantedElsewhere = true }
        try await eventually { await pool.statistics.open == 1 }
        try await Task.sleep(for: .milliseconds(30))
        #expect(await pool.statistics.open == 1, "the IDLE's stays")
        #expect(server.state.withLock { $0.idling } == [0])
        events.stop()
        try await consumer.value
        // Once the IDLE ends, its connection is idle like any other.
        try await eventually { await pool.statistics.open == 0 }
        #expect(await pool.statistics.connectionsGivenUp == 2)
        await pool.shutdown()
    }

    @Test func shutdownStopsAConnectionWaitingForASlot() async throws {
        let server = FakeServer()
        let slots = FakeSlotBudget(free: 0)
        let pool = Self.pool(server, slots: slots)
        let operation = Task { try await pool.withConnection { _ in } }
        try await eventually { await pool.statistics.waiting == 1 }
        await pool.shutdown()
        await #expect(throws: CancellationError.self) { try await operation.value }
        #expect(await pool.statistics.open == 0)
        slots.state.withLock { $0.free = 1 }
        try await Task.sleep(for: .milliseconds(20))
        #expect(server.state.withLock { $0.attempts } == 0)
        #expect(slots.state.withLock { $0.free } == 1)
    }

    @Test func aCallerThatGivesUpStopsItsConnectionsWaitForASlot() async throws {
        let server = FakeServer()
        let slots = FakeSlotBudget(free: 0)
        let pool = Self.pool(server, slots: slots)
        let operation = Task { try await pool.withConnection { _ in } }
        try await eventually { await pool.statistics.waiting == 1 }
        operation.cancel()
        await #expect(throws: CancellationError.self) { try await operation.value }
        try await eventually { await pool.statistics.open == 0 }
        slots.state.withLock { $0.free = 1 }
        try await Task.sleep(for: .milliseconds(20))
        #expect(server.state.withLock { $0.attempts } == 0, "no slot is taken for no one")
        #expect(slots.state.withLock { $0.free } == 1)
        await pool.shutdown()
    }

    // MARK: - Events and shutdown

    @Test func mailboxEventsReachTheMailboxsHandlerWhicheverConnectionSeesThem() async throws {
        let server = FakeServer()
        let pool = Self.pool(server)
        let seen = Locked<[MailboxEvent]>([])
        pool.setEventHandler(for: "INBOX") { event in seen.withLock { $0.append(event) } }
        try await pool.withConnection { session in
            session.events("INBOX", .exists(count: 1))
            session.events("Other", .exists(count: 2))
        }
        #expect(seen.withLock { $0 } == [.exists(count: 1)])
        pool.setEventHandler(for: "INBOX", nil)
        try await pool.withConnection { session in session.events("INBOX", .exists(count: 3)) }
        #expect(seen.withLock { $0 }.count == 1)
        await pool.shutdown()
    }

    @Test func shutdownLogsEveryConnectionOutAndFailsWaiters() async throws {
        let server = FakeServer()
        let pool = Self.pool(server, maxConnections: 2)
        let gate = Gate()
        let busy = Task { try await pool.withConnection { _ in await gate.wait() } }
        try await eventually { await pool.statistics.busy == 1 }
        try await pool.withConnection { _ in } // the second connection, left idle
        let blocked = Task { try await pool.withConnection(holding: true) { _ in await gate.wait() } }
        try await eventually { await pool.statistics.busy == 2 }
        let waiter = Task { try await pool.withConnection { _ in } }
        try await eventually { await pool.statistics.waiting == 1 }
        let stopping = Task { await pool.shutdown() }
        await #expect(throws: CancellationError.self) { try await waiter.value }
        gate.open()
        await stopping.value
        try await busy.value
        try await blocked.value
        #expect(await pool.statistics.open == 0)
        #expect(Set(server.state.withLock { $0.loggedOut }) == [0, 1])
        await #expect(throws: CancellationError.self) { try await pool.withConnection { _ in } }
    }
}

/// The far side of the fake connections: scripted failures, which connections are up, what each did.
private final class FakeServer: Sendable {
    struct State {
        /// The next connection attempts fail with these, in order.
        var failures: [IMAPError] = []
        /// The next IDLEs fail with these before they start (a connection handed out dead).
        var prepareFailures: [IMAPError] = []
        var attempts = 0
        var nextID = 0
        var loggedOut: [Int] = []
        var closed: [Int] = []
        /// Connections whose transport went away under them.
        var disconnected: Set<Int> = []
        /// Connections whose IDLE drops at its next check.
        var dropped: Set<Int> = []
        var idling: [Int] = []
        var prepared: [String] = []
        var sinks: [Int: @Sendable (String, MailboxEvent) -> Void] = [:]
    }

    let state = Mutex(State())

    func failNextAttempts(_ failures: [IMAPError]) {
        state.withLock { $0.failures = failures }
    }

    /// What the server pushes to the connection in IDLE.
    func push(_ event: MailboxEvent, mailbox: String) {
        let sinks = state.withLock { state in state.idling.compactMap { state.sinks[$0] } }
        for sink in sinks { sink(mailbox, event) }
    }

    var connect: IMAPSessionPool<FakeSession>.Connect {
        { events, serve in
            let session = try self.open(events: events)
            defer { self.state.withLock { $0.closed.append(session.id) } }
            let id = session.id
            try await serve(session) { !self.state.withLock { $0.disconnected.contains(id) } }
            if !session.isBroken { self.state.withLock { $0.loggedOut.append(session.id) } }
        }
    }

    private func open(events: @escaping @Sendable (String, MailboxEvent) -> Void) throws -> FakeSession {
        let id = try state.withLock { state in
            state.attempts += 1
            if !state.failures.isEmpty { throw state.failures.removeFirst() }
            state.nextID += 1
            state.sinks[state.nextID - 1] = events
            return state.nextID - 1
        }
        return FakeSession(id: id, server: self, events: events)
    }
}

/// A logged-in connection as the pool sees it, with no network under it.
private final class FakeSession: PooledIMAPSession {
    let id: Int
    let server: FakeServer
    let events: @Sendable (String, MailboxEvent) -> Void
    var isBroken = false
    var cancellationCheck: (() -> Bool)?

    init(id: Int, server: FakeServer, events: @escaping @Sendable (String, MailboxEvent) -> Void) {
        self.id = id
        self.server = server
        self.events = events
    }

    func prepareIdle(on mailbox: MailboxPath) async throws {
        let failure = server.state.withLock { state in
            state.prepareFailures.isEmpty ? nil : state.prepareFailures.removeFirst()
        }
        if let failure {
            isBroken = failure.isRetryable
            throw failure
        }
        server.state.withLock { $0.prepared.append(mailbox.name) }
    }

    func idle(reissueAfter: Duration, probeAfterSilence: Duration, shouldStop: () -> Bool) async throws -> IdleOutcome {
        server.state.withLock { $0.idling.append(id) }
        defer { server.state.withLock { state in state.idling.removeAll { $0 == id } } }
        while true {
            if shouldStop() { return .stopped }
            if server.state.withLock({ $0.dropped.contains(id) }) {
                isBroken = true
                throw IMAPError.connectionClosed
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}

/// The account's slots as another process shares them: `free` is what the others leave; the test
/// sets whether one of them waits.
private final class FakeSlotBudget: ConnectionSlotBudget {
    struct State {
        var free: Int
        var taken = 0
        var peakTaken = 0
        var wantedElsewhere = false
        /// Wanted elsewhere for this many looks, then not (unless `wantedElsewhere`).
        var wantedForLooks = 0
    }

    let state: Mutex<State>

    init(free: Int) { state = Mutex(State(free: free)) }

    func takeSlot() async throws -> any ConnectionSlot {
        while true {
            try Task.checkCancellation()
            let took = state.withLock { state in
                guard state.free > 0 else { return false }
                state.free -= 1
                state.taken += 1
                state.peakTaken = max(state.peakTaken, state.taken)
                return true
            }
            if took { return FakeSlot(budget: self) }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    func isWantedElsewhere() -> Bool {
        state.withLock { state in
            guard state.wantedForLooks == 0 else {
                state.wantedForLooks -= 1
                return true
            }
            return state.wantedElsewhere
        }
    }
}

private final class FakeSlot: ConnectionSlot {
    let budget: FakeSlotBudget
    let isReleased = Mutex(false)

    init(budget: FakeSlotBudget) { self.budget = budget }

    func release() {
        let wasReleased = isReleased.withLock { released in
            defer { released = true }
            return released
        }
        guard !wasReleased else { return }
        budget.state.withLock { state in
            state.free += 1
            state.taken -= 1
        }
    }
}

/// Holds jobs until the test opens it.
private final class Gate: Sendable {
    private let isOpen = Mutex(false)

    func open() { isOpen.withLock { $0 = true } }

    func wait() async {
        while !isOpen.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(1)) }
    }
}

/// Waits (up to twenty seconds: a loaded machine) for what the pool does in its own tasks.
private func eventually(_ condition: () async throws -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(1))
    }
    Issue.record("the condition did not come true", sourceLocation: sourceLocation)
}

/// Test state shared by concurrent tasks.
private final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) { storage = Mutex(value) }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result { storage.withLock { body(&$0) } }
}
