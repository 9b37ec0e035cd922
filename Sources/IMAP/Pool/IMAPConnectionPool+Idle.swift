import NIOConcurrencyHelpers

extension IMAPSessionPool {
    /// FR-SYNC-03: IDLE on `mailbox` as an async stream of its events. The stream is the mailbox's
    /// event handler while it runs. IDLE is re-issued every `reissueAfter` (25 min); silence for
    /// `probeAfterSilence` is probed with NOOP; a dropped or stuck connection is replaced through the
    /// pool, which retries connecting on its schedule (5, 15, 45 s). When the pool gives up, the stream
    /// ends with the error: FR-SYNC-09's three retries, then Error, surfaced to the caller (not a
    /// schedule of its own on top of the pool's). Ending the iteration (or cancelling its task) ends
    /// the IDLE with DONE. `established` runs each time the mailbox is selected for IDLE (again after
    /// a reconnect): what arrived before that is in no event, so a caller catches up there.
    /// `reconnecting` is told of each drop (FR-SYNC-04: the state shows it).
    public nonisolated func idleEvents(
        mailbox: MailboxPath, reissueAfter: Duration = .seconds(25 * 60),
        probeAfterSilence: Duration = .seconds(5 * 60),
        reconnecting: (@Sendable (_ error: IMAPError) -> Void)? = nil,
        established onEstablished: (@Sendable () -> Void)? = nil
    ) -> MailboxEventStream {
        let (stream, continuation) = AsyncThrowingStream<MailboxEvent, any Error>.makeStream()
        let stop = NIOLockedValueBox(false)
        let task = Task {
            setEventHandler(for: mailbox.name) { continuation.yield($0) }
            defer { setEventHandler(for: mailbox.name, nil) }
            // A connection handed out dead (its close not yet seen) fails before IDLE starts: tried
            // once more at once; a failure to connect at all is the pool's schedule, already run.
            var handedOutDead = 0
            while !stop.withLockedValue({ $0 }), !Task.isCancelled {
                let established = NIOLockedValueBox(false)
                let acquired = NIOLockedValueBox(false)
                do {
                    try await withConnection(holding: true) { session in
                        acquired.withLockedValue { $0 = true }
                        try await session.prepareIdle(on: mailbox)
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
                    guard established.withLockedValue({ $0 }) else {
                        if acquired.withLockedValue({ $0 }), handedOutDead == 0 {
                            handedOutDead += 1
                            continue
                        }
                        continuation.finish(throwing: error)
                        return
                    }
                    handedOutDead = 0
                    logger.info("IDLE connection dropped, reconnecting", metadata: ["mailbox": "\(mailbox)", "error": "\(error)"])
                    reconnecting?(error)
                    // A server that drops each IDLE as it starts is not asked again at once.
                    try? await Task.sleep(for: backoff.delays.first ?? .zero)
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
