import NIOConcurrencyHelpers

extension IMAPConnectionPool {
    /// FR-SYNC-03: IDLE on `mailbox` as an async stream of its events. The stream is the mailbox's
    /// event handler while it runs. IDLE is re-issued every `reissueAfter` (25 min); silence for
    /// `probeAfterSilence` is probed with NOOP; a dropped or stuck connection is replaced (the pool's
    /// 5/15/45 s backoff). After three drops in a row with no IDLE established in between, the stream
    /// ends with the error. Ending the iteration (or cancelling its task) ends the IDLE with DONE.
    public nonisolated func idleEvents(mailbox: String, reissueAfter: Duration = .seconds(25 * 60),
                                       probeAfterSilence: Duration = .seconds(5 * 60)) -> AsyncThrowingStream<MailboxEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<MailboxEvent, any Error>.makeStream()
        let stop = NIOLockedValueBox(false)
        let task = Task {
            setEventHandler(for: mailbox) { continuation.yield($0) }
            defer { setEventHandler(for: mailbox, nil) }
            var drops = 0
            while !stop.withLockedValue({ $0 }), !Task.isCancelled {
                let established = NIOLockedValueBox(false)
                do {
                    try await withConnection { session in
                        try await session.select(mailbox, readOnly: true)
                        try await session.loadSequenceMap()
                        established.withLockedValue { $0 = true }
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
                    try? await Task.sleep(for: backoff.delays[drops - 1])
                } catch {
                    continuation.finish(throwing: error)
                    return
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in
            stop.withLockedValue { $0 = true }
            task.cancel()
        }
        return stream
    }
}
