import Foundation
import MailTransport

/// Why an IDLE ended.
public enum IdleOutcome: Sendable, Hashable {
    /// `reissueAfter` passed: RFC 2177 asks clients to re-issue IDLE at least every 29 minutes.
    case reissueDue
    /// Nothing came for `probeAfterSilence`; a NOOP answered, so the connection is alive.
    case probed
    /// The caller asked to stop (or its task was cancelled).
    case stopped
    /// The server ended the IDLE itself.
    case serverEnded
}

extension IMAPSession {
    /// RFC 2177 IDLE on the selected mailbox (FR-SYNC-03). Events (EXISTS, EXPUNGE, FETCH) reach
    /// `eventSink` as they arrive. Returns when a re-issue is due, when the no-traffic watchdog has
    /// probed the connection with NOOP, or when `shouldStop` says so; a probe that goes unanswered
    /// throws `.timeout`, so the caller reconnects. Servers without IDLE are polled with NOOP.
    public func idle(
        reissueAfter: Duration = .seconds(25 * 60), probeAfterSilence: Duration = .seconds(5 * 60),
        shouldStop: () -> Bool = { false }
    ) async throws -> IdleOutcome {
        guard selected != nil else { throw IMAPError.invalidArgument("IDLE needs a selected mailbox") }
        let clock = ContinuousClock()
        let started = clock.now
        beginWaiting()
        defer { endWaiting() }

        guard hasCapability("IDLE") else {
            let pollEvery = min(probeAfterSilence, .seconds(60))
            while true {
                if case .tick = try await nextEventIgnoringResponses() {
                    if isCancelled || shouldStop() { return .stopped }
                    if clock.now - started >= pollEvery {
                        endWaiting()
                        try await noop()
                        return clock.now - started >= reissueAfter ? .reissueDue : .probed
                    }
                }
            }
        }

        let tag = nextTag()
        try await send(Array("\(tag) IDLE\r\n".utf8))
        var waitingForContinuation = true
        var outcome: IdleOutcome?
        while outcome == nil {
            switch try await nextEvent() {
            case .message(.response(.continuation)):
                waitingForContinuation = false
            case .message(.response(.untagged(let response))):
                if case .state(let state) = response, state.status == .bye {
                    markBroken()
                    throw IMAPError.server(status: .bye, text: state.text)
                }
                observe(response)
            case .message(.response(.tagged(let responseTag, let state))) where responseTag == tag:
                guard state.status == .ok else { throw Self.failure(for: state, command: "IDLE") }
                return .serverEnded
            case .message(.response(.tagged(let other, _))):
                markBroken()
                throw IMAPError.protocolViolation(.malformed(reason: "response for unknown tag \(other)", bytes: []))
            case .message(.unparseable(let bytes, let reason)):
                logger.warning("skipped an unparseable response during IDLE", metadata: ["reason": "\(reason)"])
                _ = bytes
            case .tick(let silence):
                if waitingForContinuation {
                    try checkStuck(silence)
                } else if isCancelled || shouldStop() {
                    outcome = .stopped
                } else if clock.now - started >= reissueAfter {
                    outcome = .reissueDue
                } else if silence >= probeAfterSilence {
                    outcome = .probed
                }
            }
        }
        // DONE, then the tagged OK of IDLE: from here the command timeout applies again.
        beginWaiting()
        try await send(Array("DONE\r\n".utf8))
        _ = try await collect(tag: tag, command: "IDLE") { _ in }
        if outcome == .probed { try await noop() }
        return outcome!
    }

    private func nextEventIgnoringResponses() async throws -> ConnectionEvent {
        let event = try await nextEvent()
        if case .message(.response(.untagged(let response))) = event { observe(response) }
        return event
    }
}
