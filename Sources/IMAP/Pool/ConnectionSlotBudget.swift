/// FR-SYNC-09 across processes: an account's five connections are shared by every process that
/// reaches it (`tern serve`, `tern sync --watch` and the one-shot commands run beside them), so the
/// pool takes a slot of a budget shared with them before it connects and keeps it for the life of
/// the connection. What the budget is (lock files under `$TERN_HOME`) is the runtime's; the pool
/// knows only this.
public protocol ConnectionSlotBudget: Sendable {
    /// Waits until a slot is free and takes it: queued behind whoever waits already, never over
    /// the budget. Throws `CancellationError` when the waiting task is cancelled.
    func takeSlot() async throws -> any ConnectionSlot
    /// Another holder of the budget (another process) waits for a slot now, and this one does not:
    /// the pool gives way by closing a connection it can spare.
    func isWantedElsewhere() -> Bool
}

/// One slot of a `ConnectionSlotBudget`, held while one connection lives.
public protocol ConnectionSlot: Sendable {
    /// Frees the slot for the next waiter; a second call does nothing.
    func release()
}
