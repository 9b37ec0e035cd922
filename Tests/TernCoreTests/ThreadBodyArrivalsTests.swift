import Foundation
import TernCore
import Testing

/// FR-ED-01: a front end waiting for a thread's bodies hears of them on the change feed only.
@Suite struct ThreadBodyArrivalsTests {
    let changes = ChangeFeed()
    let clock = ManualSleepingClock()

    @Test func endsWhenEveryBodyWaitedForArrived() async {
        let listener = ThreadBodyArrivals(changes: changes).listen(threadId: 7)
        // Published before the wait began, after the listening did: not missed.
        changes.publish(.bodyArrived(emailId: 1, threadId: 7))
        let waiting = Task { await listener.wait(for: [1, 2], within: .seconds(20), clock: clock) }
        changes.publish(.bodyArrived(emailId: 9, threadId: 8))
        changes.publish(.bodyArrived(emailId: 2, threadId: 7))
        #expect(await waiting.value == .arrived)
    }

    @Test func endsWhenTheThreadsBodiesAreUnavailable() async {
        let listener = ThreadBodyArrivals(changes: changes).listen(threadId: 7)
        let waiting = Task { await listener.wait(for: [1], within: .seconds(20), clock: clock) }
        changes.publish(.bodiesUnavailable(threadId: 8, offline: false))
        changes.publish(.bodiesUnavailable(threadId: 7, offline: true))
        #expect(await waiting.value == .unavailable(offline: true))
    }

    @Test func endsAtTheBound() async {
        let listener = ThreadBodyArrivals(changes: changes).listen(threadId: 7)
        let waiting = Task { await listener.wait(for: [1], within: .seconds(20), clock: clock) }
        #expect(await eventually { clock.deadlines.count == 1 })
        clock.advance(by: .seconds(20))
        #expect(await waiting.value == .timedOut)
    }

    @Test func nothingToWaitForEndsAtOnce() async {
        #expect(await ThreadBodyArrivals(changes: changes).listen(threadId: 7).wait(for: [], within: .seconds(20), clock: clock) == .arrived)
    }
}
