import Foundation
import Synchronization

/// Why FR-SYNC-01 stage D (history catch-up) does not fetch now.
public struct CatchUpPause: Sendable, Hashable, Codable {
    public var reason: String
    /// Ends by itself within seconds (the person's own work): a full sync waits for it in Paused
    /// and goes on; any other pause ends the sync's catch-up until the next sync.
    public var isBrief: Bool

    public init(reason: String, isBrief: Bool) {
        self.reason = reason
        self.isBrief = isBrief
    }
}

/// Asked by the engine between history batches (FR-SYNC-01 stage D: "pausable and resumable").
public protocol CatchUpPausing: Sendable {
    func pause(accountId: Account.ID) async -> CatchUpPause?
}

/// The person's own work on an account's server in this process: opening a thread (its bodies),
/// older mail, an attachment, sending. Catch-up gives way to it (issue 20).
public final class UserWorkTracker: Sendable {
    private let running = Mutex<[Account.ID: Int]>([:])

    public init() {}

    public func during<Result>(_ accountId: Account.ID, _ body: () async throws -> Result) async rethrows -> Result {
        running.withLock { $0[accountId, default: 0] += 1 }
        defer { running.withLock { $0[accountId, default: 1] -= 1 } }
        return try await body()
    }

    public func isBusy(_ accountId: Account.ID) -> Bool {
        running.withLock { ($0[accountId] ?? 0) > 0 }
    }
}

/// Stage D pauses while the person's own work needs the server, when they paused it (`catch-up`
/// setting), and on a metered connection unless `catch-up-on-metered` says continue (FR-SYNC-08).
public struct CatchUpGate: CatchUpPausing {
    let settings: any SettingsStore
    let metered: AttachmentWarningsUseCase
    let userWork: UserWorkTracker

    public init(settings: any SettingsStore, metered: AttachmentWarningsUseCase, userWork: UserWorkTracker) {
        self.settings = settings
        self.metered = metered
        self.userWork = userWork
    }

    public func pause(accountId: Account.ID) async -> CatchUpPause? {
        if userWork.isBusy(accountId) { return CatchUpPause(reason: "giving way to your own work on the server", isBrief: true) }
        let current = (try? await settings.settings()) ?? TernSettings()
        if current.catchUp == .paused {
            return CatchUpPause(reason: "catch-up is paused (tern settings set catch-up on resumes it)", isBrief: false)
        }
        if current.catchUpOnMetered == .pause, await metered.isMetered() {
            return CatchUpPause(
                reason: "the connection is metered (tern settings set catch-up-on-metered continue fetches anyway)",
                isBrief: false)
        }
        return nil
    }
}
