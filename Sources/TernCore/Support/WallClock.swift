import Foundation

/// The time the send queue and the pending-change processor read. Injected, so the 24-hour queue
/// limit and the retry schedules (FR-SYNC-05, FR-SYNC-07) are tested in milliseconds.
public protocol WallClock: Sendable {
    func now() -> Date
}

public struct SystemClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}

extension Date {
    public func adding(_ duration: Duration) -> Date { addingTimeInterval(duration.inSeconds) }
}
