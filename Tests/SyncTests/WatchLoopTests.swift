import Sync
import Testing

/// FR-SYNC-03's watch as a value: each event's effects from each phase, the reconnect path and
/// the retry after the pool gives up (issue 33).
@Suite struct WatchLoopTests {
    @Test func anEstablishedIdleListensAndSyncsTheInbox() {
        var loop = WatchLoop(retryDelay: .seconds(45))
        #expect(loop.phase == .starting)
        #expect(loop.handle(.idleEstablished) == [.state(.listening), .sync(allFolders: false)])
        #expect(loop.phase == .listening)
    }

    @Test func theFirstSyncAnnouncesTheWatchOnce() {
        var loop = WatchLoop(retryDelay: .seconds(45))
        _ = loop.handle(.idleEstablished)
        #expect(loop.handle(.syncFinished(newMessages: 0)) == [.state(.listening), .announceWatching])
        #expect(loop.announced)
        #expect(loop.handle(.syncFinished(newMessages: 0)) == [.state(.listening)])
        #expect(loop.handle(.syncFinished(newMessages: 2)) == [.state(.listening), .announceNewMail])
    }

    @Test func mailboxEventsAndResumedCatchUpAskForSyncs() {
        var loop = WatchLoop(retryDelay: .seconds(45))
        _ = loop.handle(.idleEstablished)
        #expect(loop.handle(.mailboxChanged) == [.sync(allFolders: false)])
        #expect(loop.handle(.catchUpMayResume) == [.sync(allFolders: true)])
    }

    @Test func aFailedSyncIsAnErrorAndTheWatchGoesOn() {
        var loop = WatchLoop(retryDelay: .seconds(45))
        _ = loop.handle(.idleEstablished)
        #expect(loop.handle(.syncFailed(reason: "timed out")) == [.state(.failed, detail: "timed out")])
        #expect(loop.phase == .listening)
        #expect(loop.handle(.mailboxChanged) == [.sync(allFolders: false)])
    }

    @Test func aDroppedIdleReconnectsAndIsEstablishedAgain() {
        var loop = WatchLoop(retryDelay: .seconds(45))
        _ = loop.handle(.idleEstablished)
        #expect(
            loop.handle(.idleDropped(reason: "the server closed the connection"))
                == [.state(.idleDropped, detail: "the server closed the connection; reconnecting")])
        #expect(loop.phase == .reconnecting)
        #expect(loop.handle(.idleEstablished) == [.state(.listening), .sync(allFolders: false)])
        #expect(loop.phase == .listening)
    }

    @Test func givingUpWaitsTheLastStepThenStartsAgain() {
        var loop = WatchLoop(retryDelay: .seconds(45))
        _ = loop.handle(.idleEstablished)
        _ = loop.handle(.syncFinished(newMessages: 0))
        #expect(loop.handle(.gaveUp(reason: "network error")) == [.state(.failed, detail: "network error"), .waitToRetry(.seconds(45))])
        #expect(loop.phase == .waitingToRetry)
        // Nothing is synced while the account is out of reach.
        #expect(loop.handle(.mailboxChanged).isEmpty)
        #expect(loop.handle(.catchUpMayResume).isEmpty)
        #expect(loop.handle(.retryDue) == [.state(.retryDue), .restartIdle])
        #expect(loop.phase == .starting && !loop.announced, "the watch is announced again once it is back")
        #expect(loop.handle(.retryDue).isEmpty, "a retry is due only after giving up")
    }
}
