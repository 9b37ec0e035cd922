import NIOConcurrencyHelpers

extension IMAPConnectionPool {
    /// FR-SYNC-03: IDLE on `mailbox` as an async stream of its events. The stream is the mailbox's
    /// event handler while it runs. IDLE is re-issued every `reissueAfter` (25 min); silence for
    /// `probeAfterSilence` is probed with NOOP; a dropped or stuck connection is replaced (the pool's
    /// 5/15/45 s backoff). After three drops in a row with no IDLE established in between, the stream
    /// ends with the error. Ending the iteration (or cancelling its task) ends the IDLE with DONE.
    /// `established` runs each time the mailbox is selected for IDLE (again after a reconnect): what
    /// arrived before that is in no event, so a caller catches up there. `reconnecting` is told of
    /// each drop and the wait before the next attempt (FR-SYNC-04: the state shows it).
    public nonisolated func idleEvents(mailbox: MailboxPath, reissueAfter: Duration = .seconds(25 * 60),
                                       probeAfterSilence: Duration = .seconds(5 * 60),
                                       reconnecting: (@Sendable (_ error: IMAPError, _ after: Duration) -> Void)? = nil,
                                       established onEstablished: (@Sendable () -> Void)? = nil) -> MailboxEventStream {
        let (stream, continuation) = AsyncThrowingStream<MailboxEvent, any Error>.makeStream()
        let stop = NIOLockedValueBox(false)
        let task = Task {
            setEventHandler(for: mailbox.name) { continuation.yield($0) }
            defer { setEventHandler(for: mailbox.name, nil) }
            var drops = 0
            while !stop.withLockedValue({ $0 }), !Task.isCancelled {
                let established = NIOLockedValueBox(false)
                do {
                    try await withConnection(holding: true) { session in
                        try await session.select(mailbox, readOnly: true)
                        try await session.loadSequenceMap()
                        established.withLockedValue { $0 = true }
                        onEstablished?()
                        while true {
                            let outcome = try await session.idle(reissueAfter: reissueAfter, probeAfterSilence: probeAfterSilence) {
                                stop.withLockedValue { $0 }
                            }
                            if outcome == .stopped { return }
                        }
                    }
                    break
                } catch let error as IMAPError where error.isRetryable {
                    drops = established.withLockedValue { $0 } ? 1 : drops + 1
                    guard drops <= backoff.delays.count else {
                        continuation.finish(throwing: error)
                        return
                    }
                    logger.info("IDLE connection dropped, reconnecting", metadata: ["mailbox": "\(mailbox)", "error": "\(error)"])
                    reconnecting?(error, backoff.delays[drops - 1])
                    try? await Task.sleep(for: backoff.delays[drops - 1])
                } catch {
                    continuation.finish(throwing: error)
                    return
                }
            }
            continuation.finish()
        }
        let ending = IdleEnding(stop: stop, task: task)
        continuation.onTermination = { [weak ending] _ in ending?.end() }
        return MailboxEventStream(base: stream, ending: ending)
    }
}

/// The events of one IDLE. The IDLE ends when iteration ends, also by `break` or `return` out of a
/// `for await` loop: the iterator holds the ending, whose release stops the IDLE.
public struct MailboxEventStream: AsyncSequence, Sendable {
    public typealias Element = MailboxEvent
    let base: AsyncThrowingStream<MailboxEvent, any Error>
    let ending: IdleEnding

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<MailboxEvent, any Error>.AsyncIterator
        let ending: IdleEnding

        public mutating func next() async throws -> MailboxEvent? { try await base.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), ending: ending)
    }

    /// Ends the IDLE now (DONE, connection back to the pool).
    public func stop() { ending.end() }
}

final class IdleEnding: Sendable {
    let stop: NIOLockedValueBox<Bool>
    let task: Task<Void, Never>

    init(stop: NIOLockedValueBox<Bool>, task: Task<Void, Never>) {
        self.stop = stop
        self.task = task
    }

    /// Sets the flag the IDLE loop checks at each watchdog tick; the loop then sends DONE.
    func end() {
        stop.withLockedValue { $0 = true }
    }

    deinit { end() }
}
