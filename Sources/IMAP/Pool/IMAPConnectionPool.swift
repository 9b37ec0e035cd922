import Logging
import MailTransport
import NIOConcurrencyHelpers
import NIOCore

/// FR-SYNC-09: at most `maxConnections` (5) IMAP connections per account, reused across operations.
/// When all are busy, operations wait in arrival order; a sixth connection is never opened. With a
/// `ConnectionSlotBudget` the five are the account's across processes: each connection holds a
/// slot of the budget from before it connects until it is closed, waits for one when other
/// processes hold them all, and gives one up when another process waits (docs/decisions.md).
///
/// Each connection is a task that owns its `IMAPSession` for the connection's whole life (the
/// session never crosses tasks); operations are sent to it as jobs. A connection whose session broke
/// (network error, timeout, protocol violation) is closed, never handed out again; the next
/// operation opens a new one, retrying after 5, 15 and 45 s before failing with a typed error.
public typealias IMAPConnectionPool = IMAPSessionPool<IMAPSession>

/// The pool's policy over any session type: `IMAPConnectionPool` on the network, fake sessions in
/// the unit tests of that policy (issue 33). What a connection is comes from `connect`.
public actor IMAPSessionPool<Session: PooledIMAPSession> {
    public struct Statistics: Sendable, Hashable {
        /// Connecting, idle or busy connections now.
        public var open: Int
        public var busy: Int
        public var waiting: Int
        /// The most connections ever open at once.
        public var peakOpen: Int
        public var connectionsOpened: Int
        /// Connections closed because another process waited for a slot of the budget.
        public var connectionsGivenUp: Int
    }

    typealias Job = @Sendable (Session) async -> Void

    /// Opens one connection and logs in, calls `serve` with the session and a probe of whether the
    /// connection is still up, and closes the connection when `serve` returns (LOGOUT unless the
    /// session broke). Mailbox events the session sees go to `events`. Throws what connecting or
    /// logging in threw; the pool tries again on its schedule when that is a retryable `IMAPError`.
    public typealias Connect =
        @Sendable (
            _ events: @escaping @Sendable (_ mailbox: String, _ event: MailboxEvent) -> Void,
            _ serve: (Session, _ isConnected: @escaping @Sendable () -> Bool) async throws -> Void
        ) async throws -> Void

    final class Connection: Sendable {
        let id: Int
        let jobs: AsyncStream<Job>.Continuation
        let isConnected: NIOLockedValueBox<(@Sendable () -> Bool)?> = NIOLockedValueBox(nil)
        let lastUsed: NIOLockedValueBox<ContinuousClock.Instant> = NIOLockedValueBox(.now)

        init(id: Int, jobs: AsyncStream<Job>.Continuation) {
            self.id = id
            self.jobs = jobs
        }
    }

    struct Waiter {
        let id: Int
        /// The person waits for it (a thread's bodies, an attachment): told at the first failed
        /// attempt rather than after the whole reconnect schedule.
        let failsFast: Bool
        let continuation: CheckedContinuation<Connection, any Error>
    }

    public nonisolated let server: MailServer
    let connect: Connect
    public nonisolated let maxConnections: Int
    public nonisolated let backoff: BackoffSchedule
    let maxIdleTime: Duration
    /// The account's connections shared with other processes; `nil`: `maxConnections` is this
    /// pool's alone.
    let slots: (any ConnectionSlotBudget)?
    /// How often a pool with idle connections looks whether another process waits for a slot.
    let givingWayInterval: Duration
    let logger: Logger
    let router = MailboxEventRouter()

    private var connecting: Set<Int> = []
    private var idle: [Connection] = []
    private var busy: [Int: Connection] = [:]
    /// Busy connections held by an IDLE: they come back only when the IDLE ends, so waiters do not
    /// count on them when no new connection can be opened.
    private var held: Set<Int> = []
    /// Why the last attempt to connect failed, while the pool waits to try again (cleared by a
    /// connection that gets through).
    private(set) var reconnectFailure: (any Error)?
    private var waiters: [Waiter] = []
    /// Connections that wait for a slot of `slots` before they connect.
    private var awaitingSlot: Set<Int> = []
    /// A task looks at `slots` every `givingWayInterval` while some connection is idle.
    private var isWatchingForWaitersElsewhere = false
    private var givenUp = 0
    private var tasks: [Int: Task<Void, Never>] = [:]
    private var nextID = 0
    private var peakOpen = 0
    private var opened = 0
    private var isShutDown = false

    /// `server` names where `connect` connects (for those who key pools by it). `slots`: the budget
    /// shared with other processes, if any.
    public init(
        server: MailServer, maxConnections: Int = 5, backoff: BackoffSchedule = .standard,
        maxIdleTime: Duration = .seconds(240), slots: (any ConnectionSlotBudget)? = nil,
        givingWayInterval: Duration = .milliseconds(250), logger: Logger = Logger(label: "tern.imap.pool"),
        connect: @escaping Connect
    ) {
        self.server = server
        self.connect = connect
        self.maxConnections = max(1, maxConnections)
        self.backoff = backoff
        self.maxIdleTime = maxIdleTime
        self.slots = slots
        self.givingWayInterval = givingWayInterval
        self.logger = logger
    }

    public var statistics: Statistics {
        Statistics(
            open: openCount, busy: busy.count, waiting: waiters.count, peakOpen: peakOpen, connectionsOpened: opened,
            connectionsGivenUp: givenUp)
    }

    private var openCount: Int { connecting.count + idle.count + busy.count }

    /// Runs `body` on a pooled connection. The body runs in the connection's task; cancelling the
    /// caller is passed on to the session, which abandons the command and closes the connection.
    /// `failingFast`: for what a person waits on; when the server cannot be reached it fails at the
    /// first failed attempt instead of waiting through the reconnect schedule (background work waits).
    public func withConnection<Result: Sendable>(
        failingFast: Bool = false,
        _ body: @escaping @Sendable (Session) async throws -> Result
    ) async throws -> Result {
        try await withConnection(holding: false, failingFast: failingFast, body)
    }

    /// `holding`: the body keeps the connection for a long time (IDLE), see `held`.
    func withConnection<Result: Sendable>(
        holding: Bool, failingFast: Bool = false,
        _ body: @escaping @Sendable (Session) async throws -> Result
    ) async throws -> Result {
        let connection = try await acquire(failingFast: failingFast)
        if holding { held.insert(connection.id) }
        let cancelled = NIOLockedValueBox(false)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
                let job: Job = { session in
                    session.cancellationCheck = { cancelled.withLockedValue { $0 } }
                    let result: Swift.Result<Result, any Error>
                    do {
                        result = .success(try await body(session))
                    } catch {
                        result = .failure(error)
                    }
                    session.cancellationCheck = nil
                    // Back in the pool before the caller goes on: its statistics are never stale.
                    await self.jobFinished(connection, broken: session.isBroken)
                    continuation.resume(with: result)
                }
                if case .terminated = connection.jobs.yield(job) {
                    continuation.resume(throwing: IMAPError.connectionClosed)
                }
            }
        } onCancel: {
            cancelled.withLockedValue { $0 = true }
        }
    }

    /// The mailbox's one event handler (EXISTS, EXPUNGE, flag changes), whichever connection sees them.
    public nonisolated func setEventHandler(for mailbox: String, _ handler: (@Sendable (MailboxEvent) -> Void)?) {
        router.set(handler, for: mailbox)
    }

    /// Closes every connection (LOGOUT) and fails waiting operations; a connection still trying to
    /// connect (waiting out its backoff) is stopped.
    public func shutdown() async {
        isShutDown = true
        for waiter in waiters { waiter.continuation.resume(throwing: CancellationError()) }
        waiters.removeAll()
        for connection in idle { connection.jobs.finish() }
        idle.removeAll()
        for connection in busy.values { connection.jobs.finish() }
        for id in connecting { tasks[id]?.cancel() }
        let running = Array(tasks.values)
        for task in running { await task.value }
    }

    // MARK: - Handing out connections

    private func acquire(failingFast: Bool) async throws -> Connection {
        guard !isShutDown else { throw CancellationError() }
        while let connection = idle.popLast() {
            let stale = connection.lastUsed.withLockedValue { ContinuousClock.now - $0 > maxIdleTime }
            let active = connection.isConnected.withLockedValue { $0?() ?? false }
            if stale || !active {
                connection.jobs.finish() // logs out and ends its task
                continue
            }
            busy[connection.id] = connection
            return connection
        }
        // The server was out of reach at the last attempt and the pool is waiting to try again.
        if failingFast, let failure = reconnectFailure, busy.count == held.count { throw failure }
        if openCount < maxConnections { openConnection() }
        let waiterID = nextID
        nextID += 1
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiters.append(Waiter(id: waiterID, failsFast: failingFast, continuation: continuation))
            }
        } onCancel: {
            Task { await self.cancelWaiter(waiterID) }
        }
    }

    private func cancelWaiter(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
        stopUnneededSlotWaits()
    }

    /// A connection is free (new, or its job finished): first waiter first. `mayGiveWay`: a
    /// connection whose job just ended is closed instead when another process waits for a slot.
    private func handOut(_ connection: Connection, mayGiveWay: Bool = false) {
        connection.lastUsed.withLockedValue { $0 = .now }
        if isShutDown {
            connection.jobs.finish()
        } else if mayGiveWay, canSpareOne, slots?.isWantedElsewhere() == true {
            givenUp += 1
            connection.jobs.finish() // logs out; its slot goes to the waiting process
        } else if !waiters.isEmpty {
            busy[connection.id] = connection
            waiters.removeFirst().continuation.resume(returning: connection)
            stopUnneededSlotWaits()
        } else {
            idle.append(connection)
            scheduleIdleClose(connection)
            watchForWaitersElsewhere()
        }
    }

    // MARK: - The budget shared with other processes

    /// Whether a connection whose job ended can be given up: this pool keeps another that is not an
    /// IDLE's, so its own work goes on rather than waiting in turn for every job. (An IDLE's
    /// connection is never given up: it is FR-SYNC-03's push.)
    private var canSpareOne: Bool {
        idle.count + busy.count - held.count >= 1
    }

    /// Waits for a slot of `slots` before `connection` connects (nil without a budget). Throws
    /// `CancellationError` when the pool shut down or no longer needs the connection meanwhile.
    private func takeSlot(for connection: Connection) async throws -> (any ConnectionSlot)? {
        guard let slots else { return nil }
        awaitingSlot.insert(connection.id)
        let slot: any ConnectionSlot
        do {
            slot = try await slots.takeSlot()
        } catch {
            awaitingSlot.remove(connection.id)
            throw error
        }
        guard awaitingSlot.remove(connection.id) != nil, !isShutDown else {
            slot.release()
            throw CancellationError()
        }
        return slot
    }

    /// A connection stopped waiting for a slot (shut down, or not needed): it never connected, so
    /// nothing is reported; another is opened only if the waiters now outnumber the connections
    /// being opened.
    private func slotWaitStopped(_ connection: Connection) {
        connecting.remove(connection.id)
        tasks[connection.id] = nil
        if connecting.isEmpty { reconnectFailure = nil }
        if waiters.count > connecting.count, openCount < maxConnections, !isShutDown {
            openConnection(inheriting: false)
        }
    }

    /// Connections that still wait for a slot while the operations they were opened for have been
    /// served by others (or gave up) stop waiting, so this process does not take slots another
    /// process waits for only to leave them idle.
    private func stopUnneededSlotWaits() {
        var surplus = connecting.count - waiters.count
        while surplus > 0, let id = awaitingSlot.first {
            awaitingSlot.remove(id)
            tasks[id]?.cancel()
            surplus -= 1
        }
    }

    /// While a connection is idle, every `givingWayInterval`: when another process waits for a slot,
    /// one idle connection logs out (the least recently used). A waiting one-shot command so gets a
    /// slot within moments of asking, not when `maxIdleTime` ends; an idle connection is given up
    /// even when it is the pool's last, so processes that each keep one cannot leave a sixth
    /// waiting on them.
    private func watchForWaitersElsewhere() {
        guard slots != nil, !isWatchingForWaitersElsewhere else { return }
        isWatchingForWaitersElsewhere = true
        let interval = givingWayInterval
        Task.detached { [weak self] in
            while true {
                try? await Task.sleep(for: interval)
                guard let self, await self.giveUpAnIdleConnectionIfWanted() else { return }
            }
        }
    }

    /// Returns whether to go on watching (some connection is idle).
    private func giveUpAnIdleConnectionIfWanted() -> Bool {
        guard !isShutDown, !idle.isEmpty else {
            isWatchingForWaitersElsewhere = false
            return false
        }
        if slots?.isWantedElsewhere() == true {
            givenUp += 1
            idle.removeFirst().jobs.finish() // logs out; its slot goes to the waiting process
        }
        return true
    }

    /// A connection left idle for `maxIdleTime` logs out, so a long-running process does not keep
    /// up to five logged-in connections per account until the server drops them (a provider counts
    /// them against its limit). One that was used meanwhile is left alone.
    private func scheduleIdleClose(_ connection: Connection) {
        let after = maxIdleTime
        Task.detached { [weak self] in
            try? await Task.sleep(for: after)
            await self?.closeIfIdle(connection)
        }
    }

    private func closeIfIdle(_ connection: Connection) {
        guard let index = idle.firstIndex(where: { $0.id == connection.id }),
            connection.lastUsed.withLockedValue({ ContinuousClock.now - $0 >= maxIdleTime })
        else { return }
        idle.remove(at: index)
        connection.jobs.finish() // logs out and ends its task
    }

    /// `inheriting`: the new connection's task keeps the task locals of the operation that needs it
    /// (the sync whose login states it reports); a replacement opened as another connection ends
    /// is detached, so it reports to no one.
    private func openConnection(inheriting: Bool = true) {
        let id = nextID
        nextID += 1
        connecting.insert(id)
        opened += 1
        peakOpen = max(peakOpen, openCount)
        let (jobs, continuation) = AsyncStream<Job>.makeStream()
        let connection = Connection(id: id, jobs: continuation)
        let connect = connect
        let backoff = backoff
        let logger = logger
        let router = router
        let run: @Sendable () async -> Void = {
            await Self.runConnection(
                connection, jobs: jobs, connect: connect, backoff: backoff, router: router, logger: logger,
                pool: self)
        }
        tasks[id] = inheriting ? Task { await run() } : Task.detached { await run() }
    }

    private func connectionReady(_ connection: Connection) {
        reconnectFailure = nil
        connecting.remove(connection.id)
        handOut(connection)
    }

    private func jobFinished(_ connection: Connection, broken: Bool) {
        busy[connection.id] = nil
        held.remove(connection.id)
        if broken {
            connection.jobs.finish()
        } else {
            handOut(connection, mayGiveWay: true)
        }
    }

    /// An attempt to connect failed and will be tried again after a wait: the operations a person
    /// waits on get the error now.
    private func attemptFailed(_ error: any Error) {
        reconnectFailure = error
        // A busy connection that is not an IDLE's comes back soon and serves them.
        guard busy.count == held.count else { return }
        for waiter in waiters where waiter.failsFast { waiter.continuation.resume(throwing: error) }
        waiters.removeAll { $0.failsFast }
    }

    private func connectionEnded(_ connection: Connection, error: (any Error)?, wasReady: Bool) {
        connecting.remove(connection.id)
        busy[connection.id] = nil
        held.remove(connection.id)
        idle.removeAll { $0.id == connection.id }
        tasks[connection.id] = nil
        if let error, !wasReady {
            // The schedule is over: the next operation tries afresh.
            reconnectFailure = nil
            // Every attempt failed: with no other connection to serve them (an IDLE's comes back
            // only when it ends), waiters get the error.
            if openCount - held.count == 0 {
                for waiter in waiters { waiter.continuation.resume(throwing: error) }
                waiters.removeAll()
            }
        } else if !waiters.isEmpty, openCount < maxConnections, !isShutDown {
            openConnection(inheriting: false)
        }
    }

    /// The life of one connection: connect and log in (retrying with backoff), run jobs until the
    /// pool finishes the job stream or the session breaks, then LOGOUT and close.
    private static func runConnection(
        _ connection: Connection, jobs: AsyncStream<Job>, connect: Connect, backoff: BackoffSchedule,
        router: MailboxEventRouter, logger: Logger, pool: IMAPSessionPool
    ) async {
        var attempt = 0
        var wasReady = false
        var lastError: (any Error)?
        while true {
            // FR-SYNC-09: the slot is taken before the TCP connection and held until it is closed.
            let slot: (any ConnectionSlot)?
            do {
                slot = try await pool.takeSlot(for: connection)
            } catch {
                await pool.slotWaitStopped(connection)
                return
            }
            do {
                try await connect({ mailbox, event in router.dispatch(event, for: mailbox) }) { session, isConnected in
                    connection.isConnected.withLockedValue { $0 = isConnected }
                    wasReady = true
                    await pool.connectionReady(connection)
                    for await job in jobs {
                        await job(session)
                        if session.isBroken { return }
                    }
                }
                lastError = nil
            } catch {
                lastError = error
            }
            slot?.release()
            guard !wasReady, let error = lastError, (error as? IMAPError)?.isRetryable == true, attempt < backoff.delays.count,
                !Task.isCancelled
            else { break }
            logger.info("IMAP connection failed, retrying", metadata: ["error": "\(error)", "in": "\(backoff.delays[attempt])"])
            await pool.attemptFailed(error)
            try? await Task.sleep(for: backoff.delays[attempt])
            if Task.isCancelled { break }
            attempt += 1
        }
        await pool.connectionEnded(connection, error: lastError, wasReady: wasReady)
    }
}

extension IMAPSessionPool where Session == IMAPSession {
    public init(
        server: MailServer, credentials: IMAPCredentialSource, maxConnections: Int = 5,
        backoff: BackoffSchedule = .standard, maxIdleTime: Duration = .seconds(240), slots: (any ConnectionSlotBudget)? = nil,
        logger: Logger = Logger(label: "tern.imap.pool")
    ) {
        self.init(
            server: server, maxConnections: maxConnections, backoff: backoff, maxIdleTime: maxIdleTime, slots: slots,
            logger: logger, connect: Self.networkConnect(to: server, credentials: credentials, logger: logger))
    }

    /// Connections over the network (`IMAPClient`): logged in with `credentials`, QRESYNC enabled
    /// where offered, LOGOUT at the end unless the session broke.
    static func networkConnect(to server: MailServer, credentials: IMAPCredentialSource, logger: Logger) -> Connect {
        { events, serve in
            try await IMAPClient.withSession(to: server, logger: logger) { session in
                session.eventSink = events
                try await session.authenticate(with: credentials)
                // RFC 5161: ENABLE before any SELECT; jobs on this connection may select first.
                if session.hasCapability("QRESYNC") { _ = try? await session.enable(["QRESYNC"]) }
                let channel = session.channel
                try await serve(session) { channel.isActive }
                if !session.isBroken { try? await session.logout() }
            }
        }
    }
}

/// The one handler per mailbox (thread-safe: sessions on several connections call it).
final class MailboxEventRouter: Sendable {
    private let handlers = NIOLockedValueBox<[String: @Sendable (MailboxEvent) -> Void]>([:])

    func set(_ handler: (@Sendable (MailboxEvent) -> Void)?, for mailbox: String) {
        handlers.withLockedValue { $0[mailbox] = handler }
    }

    func dispatch(_ event: MailboxEvent, for mailbox: String) {
        let handler = handlers.withLockedValue { $0[mailbox] }
        handler?(event)
    }
}
