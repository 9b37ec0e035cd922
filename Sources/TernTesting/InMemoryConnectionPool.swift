import IMAP
import Sync
import Synchronization

/// `SyncConnectionPool` over an `InMemoryIMAPServer`, with the policy the engine counts on from
/// the live `IMAPConnectionPool` (FR-SYNC-09): at most `maxConnections` at once, waiters served in
/// arrival order, a connection reused until it breaks, a failed connection attempt retried after
/// each step of `backoff` (a person's operation, `failingFast`, told at the first failure), and
/// IDLE reconnected after a drop until the pool gives up.
///
/// The pool keeps no time of its own: each wait (between attempts, before re-establishing a dropped
/// IDLE) is recorded and handed to `wait`, which by default returns at once, so the engine's tests
/// run at the speed of their work and never race a real timer (issue 33).
public actor InMemoryConnectionPool: SyncConnectionPool {
    public nonisolated let server: InMemoryIMAPServer
    public nonisolated let maxConnections: Int
    public nonisolated let backoff: BackoffSchedule

    private var idle: [InMemoryIMAPSession] = []
    /// Connections open or being opened.
    private var open = 0
    private var waiters: [CheckedContinuation<InMemoryIMAPSession?, Never>] = []
    private var isShutDown = false
    /// The most connections open at once, and how many were opened in all.
    public private(set) var peakOpen = 0
    public private(set) var connectionsOpened = 0
    /// The waits taken between failed attempts, in order (what a test checks the schedule by).
    public private(set) var waits: [Duration] = []
    /// The waits taken before re-establishing a dropped IDLE, in order.
    public private(set) var idleReconnectWaits: [Duration] = []
    let wait: @Sendable (Duration) async -> Void

    /// `wait` stands for the time a wait takes: at once unless a test passes its own (a clock it
    /// controls, or a real sleep).
    public init(
        server: InMemoryIMAPServer, maxConnections: Int = 5, backoff: BackoffSchedule = BackoffSchedule([]),
        wait: @escaping @Sendable (Duration) async -> Void = { _ in await Task.yield() }
    ) {
        self.server = server
        self.maxConnections = max(1, maxConnections)
        self.backoff = backoff
        self.wait = wait
    }

    public nonisolated func withConnection<Result: Sendable>(
        failingFast: Bool,
        _ body: @escaping @Sendable (any SyncSession) async throws -> Result
    ) async throws -> Result {
        let session = try await acquire(failingFast: failingFast)
        do {
            let result = try await body(session)
            await release(session)
            return result
        } catch {
            await release(session)
            throw error
        }
    }

    public nonisolated func idleEvents(
        mailbox: MailboxPath, reconnecting: (@Sendable (IMAPError) -> Void)?,
        established onEstablished: (@Sendable () -> Void)?
    ) -> AsyncThrowingStream<MailboxEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<MailboxEvent, any Error>.makeStream()
        let task = Task {
            while !Task.isCancelled {
                let established = EstablishedFlag()
                do {
                    try await withConnection(failingFast: false) { session in
                        guard let session = session as? InMemoryIMAPSession else { return }
                        try await session.select(mailbox, readOnly: true, qresync: nil)
                        let events = try await session.idle()
                        established.value.withLock { $0 = true }
                        onEstablished?()
                        defer { Task { await session.server.unwatch(mailbox.name, connection: session.connection) } }
                        do {
                            for try await event in events { continuation.yield(event) }
                        } catch {
                            session.markBroken()
                            throw error
                        }
                        if !Task.isCancelled { throw IMAPError.connectionClosed }
                    }
                    break
                } catch let error as IMAPError where error.isRetryable && established.value.withLock({ $0 }) {
                    reconnecting?(error)
                    await waitBeforeIdleReconnect()
                } catch {
                    continuation.finish(throwing: error)
                    return
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private func waitBeforeIdleReconnect() async {
        let delay = backoff.delays.first ?? .zero
        idleReconnectWaits.append(delay)
        await wait(delay)
    }

    /// Logs every connection out; waiting operations fail.
    public func shutdown() async {
        isShutDown = true
        for waiter in waiters { waiter.resume(returning: nil) }
        waiters = []
        for session in idle { await server.disconnect(session.connection) }
        idle = []
    }

    private func acquire(failingFast: Bool) async throws -> InMemoryIMAPSession {
        guard !isShutDown else { throw CancellationError() }
        if let session = idle.popLast() { return session }
        if open < maxConnections { return try await connect(failingFast: failingFast) }
        guard let session = await withCheckedContinuation({ waiters.append($0) }) else { throw CancellationError() }
        return session
    }

    /// Opens a connection, retrying on the schedule; the slot is given back when every attempt failed.
    private func connect(failingFast: Bool) async throws -> InMemoryIMAPSession {
        open += 1
        peakOpen = max(peakOpen, open)
        var attempt = 0
        while true {
            do {
                let connection = try await server.connect()
                connectionsOpened += 1
                return InMemoryIMAPSession(server: server, connection: connection, capabilities: await server.capabilities)
            } catch let error as IMAPError where error.isRetryable && !failingFast && attempt < backoff.delays.count {
                waits.append(backoff.delays[attempt])
                await wait(backoff.delays[attempt])
                attempt += 1
            } catch {
                open -= 1
                throw error
            }
        }
    }

    private func release(_ session: InMemoryIMAPSession) async {
        if session.isBroken || isShutDown {
            open -= 1
            await server.disconnect(session.connection)
            // A waiter gets a new connection in the freed slot.
            if !waiters.isEmpty, !isShutDown {
                let waiter = waiters.removeFirst()
                if let fresh = try? await connect(failingFast: false) { waiter.resume(returning: fresh) } else { waiter.resume(returning: nil) }
            }
        } else if !waiters.isEmpty {
            waiters.removeFirst().resume(returning: session)
        } else {
            idle.append(session)
        }
    }
}

/// Whether an IDLE got as far as listening: a drop after that is reconnected, a failure before it ends the stream.
private final class EstablishedFlag: Sendable {
    let value = Mutex(false)
}
