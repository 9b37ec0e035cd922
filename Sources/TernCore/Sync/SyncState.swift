import Foundation

/// FR-SYNC-04: the states of an account's sync engine, in the spec's diagram. Front ends show the
/// current one; `canMove(to:)` is the diagram, so the engine's reports can be checked against it.
public enum SyncState: String, Sendable, Hashable, Codable, CaseIterable {
    case idle, connecting, authenticating, tokenRefresh, syncingFolders, initialFast, catchingUp, paused, indexing, listening, error

    static let transitions: [SyncState: Set<SyncState>] = [
        .idle: [.connecting, .listening],
        .connecting: [.authenticating],
        .authenticating: [.syncingFolders, .tokenRefresh],
        .tokenRefresh: [.authenticating],
        .syncingFolders: [.initialFast],
        .initialFast: [.catchingUp],
        .catchingUp: [.indexing, .paused],
        // A pause that lasts (paused by the person, a metered connection) ends the sync's catch-up:
        // what was stored is indexed and the account is Idle; the next sync resumes it.
        .paused: [.catchingUp, .indexing],
        .indexing: [.idle],
        .listening: [.initialFast, .idle],
        .error: [.idle]
    ]

    /// Any state can fail (the diagram draws the failures it names; a server can fail at any step).
    public func canMove(to next: SyncState) -> Bool {
        next == .error ? self != .error : Self.transitions[self, default: []].contains(next)
    }
}
