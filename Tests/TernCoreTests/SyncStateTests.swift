import Testing

@testable import TernCore

/// FR-SYNC-04's diagram.
struct SyncStateTests {
    @Test func aSyncGoesThroughTheDiagramsStates() {
        let path: [SyncState] = [.idle, .connecting, .authenticating, .syncingFolders, .initialFast, .catchingUp, .indexing, .idle]
        for (from, to) in zip(path, path.dropFirst()) { #expect(from.canMove(to: to), "\(from) → \(to)") }
    }

    @Test func tokenRefreshReturnsToAuthenticating() {
        #expect(SyncState.authenticating.canMove(to: .tokenRefresh))
        #expect(SyncState.tokenRefresh.canMove(to: .authenticating))
        #expect(SyncState.tokenRefresh.canMove(to: .error))
        #expect(!SyncState.tokenRefresh.canMove(to: .syncingFolders))
    }

    @Test func newMailWhileListeningStartsAtTheInbox() {
        #expect(SyncState.idle.canMove(to: .listening))
        #expect(SyncState.listening.canMove(to: .initialFast))
        #expect(!SyncState.listening.canMove(to: .catchingUp))
    }

    @Test func catchUpPausesAndResumes() {
        #expect(SyncState.catchingUp.canMove(to: .paused) && SyncState.paused.canMove(to: .catchingUp))
        #expect(!SyncState.idle.canMove(to: .catchingUp))
    }
}
