/// What `IMAPSessionPool`'s policy needs of a session it hands out (FR-SYNC-09, FR-SYNC-03): whether
/// it broke (never handed out again), a way to hear that the caller gave up, and the commands of
/// an IDLE. `IMAPSession` is the one on the network; the pool's unit tests give it fakes.
public protocol PooledIMAPSession: AnyObject, SendableMetatype {
    /// The connection can no longer be trusted; the pool closes it instead of reusing it.
    var isBroken: Bool { get }
    /// Asked while a command runs: the pool's caller gave up, so the command is abandoned.
    var cancellationCheck: (() -> Bool)? { get set }
    /// EXAMINE `mailbox` and learn its sequence numbers' UIDs: what an IDLE on it needs first.
    func prepareIdle(on mailbox: MailboxPath) async throws
    /// RFC 2177 IDLE on the selected mailbox until a re-issue is due, a probe answered or `shouldStop`.
    func idle(reissueAfter: Duration, probeAfterSilence: Duration, shouldStop: () -> Bool) async throws -> IdleOutcome
}

extension IMAPSession: PooledIMAPSession {
    public func prepareIdle(on mailbox: MailboxPath) async throws {
        try await select(mailbox, readOnly: true)
        try await loadSequenceMap()
    }
}
