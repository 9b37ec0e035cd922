import Foundation
import Synchronization
import Testing

@testable import TernCore

/// FR-COMP-02 and issue 18: the undo window's paths, on a clock the tests move.
@Suite struct UndoSendCoordinatorTests {
    /// Records what the coordinator asked of the drafts; every send is held for the window it is given.
    final class RecordingSendSteps: DraftSendSteps {
        enum Step: Equatable {
            case send(Draft.ID, Duration)
            case commit(EmailID)
            case undo(EmailID)
        }

        let clock: ManualSleepingClock
        private let steps = Mutex<[Step]>([])

        init(clock: ManualSleepingClock) {
            self.clock = clock
        }

        var recorded: [Step] { steps.withLock { $0 } }

        func send(_ id: Draft.ID, undoWindow: Duration) async throws -> DraftSending {
            steps.withLock { $0.append(.send(id, undoWindow)) }
            let emailId = EmailID(100 + id.rawValue)
            guard undoWindow > .zero else { return .sent(SendOutcome(emailId: emailId, messageId: "<m\(id)@x>", state: .sent)) }
            let held = HeldSend(
                emailId: emailId, messageId: "<m\(id)@x>", accountId: "a", until: clock.now().adding(undoWindow),
                claim: NoClaim())
            return .held(HeldDraftSend(draftId: id, draftMessageId: "<d\(id)@x>", send: held))
        }

        func commit(_ held: HeldDraftSend) async throws -> SendOutcome {
            steps.withLock { $0.append(.commit(held.send.emailId)) }
            return SendOutcome(emailId: held.send.emailId, messageId: held.send.messageId, state: .sent)
        }

        func undo(_ held: HeldDraftSend) async throws -> Draft {
            steps.withLock { $0.append(.undo(held.send.emailId)) }
            let content = ComposeDraft(mode: .new, accountId: "a", from: EmailAddress(address: "me@example.org"))
            return Draft(
                id: held.draftId, accountId: "a", messageId: held.draftMessageId, content: content, revision: 1,
                createdDate: clock.now(), updatedDate: clock.now(), sync: DraftSyncStatus(state: .pending))
        }
    }

    struct NoClaim: SendHoldClaim {
        func release() {}
    }

    let clock = ManualSleepingClock()
    let settings = InMemorySettingsStore()

    func coordinator(_ steps: RecordingSendSteps) -> UndoSendCoordinator {
        UndoSendCoordinator(
            steps: steps, windows: UndoWindowsUseCase(settings: SettingsUseCase(store: settings)), clock: clock,
            pageGrace: .seconds(10))
    }

    /// Waits until the coordinator's timer for a held send sleeps.
    func timerSleeps(_ count: Int = 1) async -> Bool { await eventually { clock.deadlines.count >= count } }

    /// A page's send (5 s window) with the clock moved `past` the window's start, into the grace: its timer waits again.
    func pageSendUnconfirmed(_ draftId: Draft.ID, past: Duration, on undo: UndoSendCoordinator) async throws {
        _ = try await undo.send(draftId, watcher: .page)
        #expect(await timerSleeps())
        clock.advance(by: past)
        #expect(await eventually { clock.deadlines.count == 1 })
    }

    @Test func theSettingsWindowHoldsTheSendAndItsEndCommitsIt() async throws {
        try await settings.setValue("10", for: .undoSendDelay)
        let steps = RecordingSendSteps(clock: clock)
        let undo = coordinator(steps)
        guard case .held(let held, let window) = try await undo.send(1, watcher: .none) else {
            Issue.record("not held")
            return
        }
        #expect(window == .seconds(10))
        #expect(steps.recorded == [.send(1, .seconds(10))])
        #expect(await timerSleeps())
        clock.advance(by: .seconds(9))
        #expect(await undo.isHeld(held.send.emailId))
        #expect(steps.recorded == [.send(1, .seconds(10))])
        clock.advance(by: .seconds(1))
        #expect(await eventually { steps.recorded.contains(.commit(101)) })
        #expect(try await undo.outcome(of: 101)?.state == .sent)
        #expect(await !undo.isHeld(101))
    }

    @Test func undoInsideTheWindowGivesTheDraftBackAndNothingIsSent() async throws {
        let steps = RecordingSendSteps(clock: clock)
        let undo = coordinator(steps)
        _ = try await undo.send(2, watcher: .none)
        #expect(await timerSleeps())
        let waiting = Task { try await undo.outcome(of: 102) }
        clock.advance(by: .seconds(4))
        let draft = try await undo.undo(102)
        #expect(draft?.id == 2)
        #expect(try await waiting.value == nil)
        clock.advance(by: .seconds(30))
        for _ in 0..<100 { await Task.yield() }
        #expect(steps.recorded == [.send(2, .seconds(5)), .undo(102)])
        // Too late to undo twice.
        #expect(try await undo.undo(102) == nil)
    }

    /// Lets the coordinator's timer tasks run after the clock moved.
    func settle() async { for _ in 0..<200 { await Task.yield() } }

    /// FR-COMP-02 "App enters background during undo window: Timer pauses. Resumes when app returns
    /// to foreground" (a terminal stopped with Ctrl-Z): nothing goes while paused, however long, and
    /// the window goes on from what was left.
    @Test func aPausedWindowSendsNothingAndResumesFromWhatWasLeft() async throws {
        let steps = RecordingSendSteps(clock: clock)
        let undo = coordinator(steps)
        _ = try await undo.send(4, watcher: .none)
        #expect(await timerSleeps())
        clock.advance(by: .seconds(2))
        #expect(await undo.pause(104) == .seconds(3))
        #expect(await undo.pause(104) == .seconds(3), "pausing again keeps what was left")
        clock.advance(by: .seconds(600))
        await settle()
        #expect(steps.recorded == [.send(4, .seconds(5))])
        let resumed = try #require(await undo.resume(104))
        #expect(resumed == clock.now().adding(.seconds(3)))
        #expect(await eventually { clock.deadlines.contains(resumed) })
        clock.advance(by: .milliseconds(2_900))
        await settle()
        #expect(!steps.recorded.contains(.commit(104)))
        clock.advance(by: .milliseconds(100))
        #expect(await eventually { steps.recorded.contains(.commit(104)) })
        #expect(await undo.pause(104) == nil, "no longer held")
    }

    /// A hidden page refreshes its pause; one that neither resumes nor pauses again within the
    /// limit is gone, and its message goes back to its draft, never out.
    @Test func aPausedPageThatIsNotSeenAgainLeavesADraft() async throws {
        let steps = RecordingSendSteps(clock: clock)
        let undo = coordinator(steps)
        _ = try await undo.send(5, watcher: .page)
        #expect(await timerSleeps())
        clock.advance(by: .seconds(1))
        #expect(await undo.pause(105) == .seconds(4))
        clock.advance(by: .seconds(299))
        await settle()
        #expect(await undo.pause(105) == .seconds(4), "the page is still there: its pause is refreshed")
        clock.advance(by: .seconds(299))
        await settle()
        #expect(await undo.isHeld(105))
        let waiting = Task { try await undo.outcome(of: 105) }
        clock.advance(by: .seconds(2))
        #expect(await eventually { steps.recorded.contains(.undo(105)) })
        #expect(try await waiting.value == nil)
        #expect(!steps.recorded.contains(.commit(105)))
        #expect(await undo.resume(105) == nil)
    }

    /// A page seen again resumes; its countdown's end confirms and the message goes.
    @Test func aResumedPageConfirmsAtItsNewEnd() async throws {
        let steps = RecordingSendSteps(clock: clock)
        let undo = coordinator(steps)
        _ = try await undo.send(6, watcher: .page)
        #expect(await timerSleeps())
        clock.advance(by: .seconds(4))
        #expect(await undo.pause(106) == .seconds(1))
        clock.advance(by: .seconds(120))
        await settle()
        let end = try #require(await undo.resume(106))
        clock.advance(by: .seconds(1))
        #expect(clock.now() >= end)
        #expect(await undo.confirm(106))
        #expect(await eventually { steps.recorded.contains(.commit(106)) })
        #expect(!steps.recorded.contains(.undo(106)))
    }

    @Test func undoAfterTheWindowIsTooLate() async throws {
        let steps = RecordingSendSteps(clock: clock)
        let undo = coordinator(steps)
        _ = try await undo.send(3, watcher: .none)
        #expect(await timerSleeps())
        clock.advance(by: .seconds(5))
        #expect(await eventually { steps.recorded.contains(.commit(103)) })
        #expect(try await undo.undo(103) == nil)
        #expect(!steps.recorded.contains(.undo(103)))
    }

    @Test func aPageThatNeverConfirmsLeavesADraftAfterTheGrace() async throws {
        let steps = RecordingSendSteps(clock: clock)
        let undo = coordinator(steps)
        try await pageSendUnconfirmed(4, past: .seconds(5), on: undo)
        // The window ended unconfirmed: still held, for the grace.
        #expect(await undo.isHeld(104))
        #expect(steps.recorded == [.send(4, .seconds(5))])
        clock.advance(by: .seconds(10))
        #expect(await eventually { steps.recorded.contains(.undo(104)) })
        #expect(!steps.recorded.contains(.commit(104)))
        #expect(await undo.confirm(104) == false)
    }

    @Test func aPageConfirmingEarlySendsAtTheWindowsEnd() async throws {
        let steps = RecordingSendSteps(clock: clock)
        let undo = coordinator(steps)
        _ = try await undo.send(5, watcher: .page)
        #expect(await timerSleeps())
        clock.advance(by: .seconds(2))
        #expect(await undo.confirm(105))
        for _ in 0..<100 { await Task.yield() }
        #expect(!steps.recorded.contains(.commit(105)), "not before the window's end")
        clock.advance(by: .seconds(3))
        #expect(await eventually { steps.recorded.contains(.commit(105)) })
    }

    @Test func aPageConfirmingInTheGraceSendsAtOnce() async throws {
        let steps = RecordingSendSteps(clock: clock)
        let undo = coordinator(steps)
        try await pageSendUnconfirmed(6, past: .seconds(7), on: undo)
        #expect(await undo.confirm(106))
        #expect(steps.recorded.contains(.commit(106)))
        clock.advance(by: .seconds(10))
        for _ in 0..<100 { await Task.yield() }
        #expect(!steps.recorded.contains(.undo(106)))
    }

    @Test func aFrontEndsWindowOverridesTheSettingAndZeroSendsAtOnce() async throws {
        let steps = RecordingSendSteps(clock: clock)
        let undo = coordinator(steps)
        guard case .sent(let outcome) = try await undo.send(7, window: .zero, watcher: .none) else {
            Issue.record("held")
            return
        }
        #expect(outcome.emailId == 107)
        guard case .held(_, let window) = try await undo.send(8, window: .seconds(30), watcher: .none) else {
            Issue.record("sent")
            return
        }
        #expect(window == .seconds(30))
        #expect(steps.recorded == [.send(7, .zero), .send(8, .seconds(30))])
    }

    /// PLATFORM.md: the process gone in the window (here: the coordinator released) lets nothing go;
    /// the hold is left for the outbox's orphan rule, which never sends it by itself.
    @Test func aCoordinatorGoneInTheWindowNeverSends() async throws {
        let steps = RecordingSendSteps(clock: clock)
        var undo: UndoSendCoordinator? = coordinator(steps)
        _ = try await undo?.send(9, watcher: .none)
        #expect(await timerSleeps())
        undo = nil
        clock.advance(by: .seconds(60))
        for _ in 0..<1_000 { await Task.yield() }
        #expect(steps.recorded == [.send(9, .seconds(5))])
    }

    @Test func theWindowsAreReadFromTheSettings() async throws {
        let windows = UndoWindowsUseCase(settings: SettingsUseCase(store: settings))
        #expect(try await windows.send() == .seconds(5))
        #expect(try await windows.action() == .seconds(5))
        try await settings.setValue("15", for: .undoSendDelay)
        try await settings.setValue("30", for: .undoActionWindow)
        #expect(try await windows.send() == .seconds(15))
        #expect(try await windows.action().wholeSeconds == 30)
    }
}
