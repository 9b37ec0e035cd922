import Foundation

/// FR-COMP-02 and PLATFORM.md ("App terminated during the undo window: the message is not sent"): a message in
/// its undo window is held by the process that queued it, with a hold that dies with that process (SIGKILL
/// included). The queue never sends a held message by the clock alone: only its owner lifts the hold at the end
/// of the window. A held message whose owner is gone is an orphan, and is never sent by itself.
public protocol SendHoldOwnership: Sendable {
    /// Holds the message with this Message-ID for the calling process until the claim is released.
    func claim(messageId: String) throws -> any SendHoldClaim
    /// True when no live process holds it (its owner released it without lifting the hold, or died).
    func isOrphaned(messageId: String) -> Bool
}

public protocol SendHoldClaim: Sendable {
    func release()
}

/// A message in its undo window, owned by this process: `OutboxUseCase.commit` lets it go at the end of the
/// window, `OutboxUseCase.undo` takes it back.
public struct HeldSend: Sendable {
    public let emailId: EmailID
    public let messageId: String
    public let accountId: Account.ID
    public let until: Date
    let claim: any SendHoldClaim

    public init(emailId: EmailID, messageId: String, accountId: Account.ID, until: Date, claim: any SendHoldClaim) {
        self.emailId = emailId
        self.messageId = messageId
        self.accountId = accountId
        self.until = until
        self.claim = claim
    }
}

extension SendQueueProcessor {
    /// What an orphaned held message becomes: failed, with the reason and the way to send it, never sent by itself.
    public static let orphanedHoldError = """
        Not sent: Tern stopped during this message's undo window, so it was kept back. Send it again (retry) or discard it.
        """
}
