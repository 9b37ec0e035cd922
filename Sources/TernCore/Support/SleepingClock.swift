import Foundation

/// A `WallClock` that timed policy also waits on: the undo-send window (FR-COMP-02) and the sync
/// engine's retry schedule (FR-SYNC-04 Error → Idle). Injected, so their tests move time instead of
/// sleeping.
public protocol SleepingClock: WallClock {
    /// Returns at `deadline` (at once when it has passed); throws `CancellationError` when cancelled.
    func sleep(until deadline: Date) async throws
}

extension SystemClock: SleepingClock {
    public func sleep(until deadline: Date) async throws {
        let milliseconds = (deadline.timeIntervalSinceNow * 1000).rounded(.up)
        guard milliseconds > 0 else { return try Task.checkCancellation() }
        try await Task.sleep(for: .milliseconds(Int64(milliseconds)))
    }
}
