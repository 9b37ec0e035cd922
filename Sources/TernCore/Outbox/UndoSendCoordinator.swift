import Foundation

/// The steps of sending a draft through its undo window (FR-COMP-02). `DraftsUseCase` is the live
/// one; the seam lets `UndoSendCoordinator`'s timing be tested without a store or a server.
public protocol DraftSendSteps: Sendable {
    func send(_ id: Draft.ID, undoWindow: Duration) async throws -> DraftSending
    func commit(_ held: HeldDraftSend) async throws -> SendOutcome
    func undo(_ held: HeldDraftSend) async throws -> Draft
}

extension DraftsUseCase: DraftSendSteps {}

/// FR-COMP-02's undo window, owned by the core for every front end: a sent draft is held for the
/// window (`undo-send-delay`, or the front end's override), taken back by `undo`, and let go at the
/// window's end. One per process (the composition root holds it).
///
/// Issue 18: a page with script must still be open when its countdown ends, so closing the tab in
/// the window leaves a draft. Such a send (`Watcher.page`) goes only once the page `confirm`s; with
/// no confirmation within `pageGrace` of the window's end, the message goes back to its draft. A
/// terminal, or a page without script, has nothing to confirm with (`Watcher.none`): the window's
/// end sends.
///
/// FR-COMP-02 "App enters background during undo window: Timer pauses. Resumes when app returns to
/// foreground": `pause` keeps what is left of the window and stops its clock, `resume` starts it
/// again from there (a hidden tab, a terminal stopped with Ctrl-Z). A page that paused and is not
/// seen again within `pausedPageLimit` (it refreshes its pause while hidden) is taken as gone, and
/// the message goes back to its draft, never out.
///
/// PLATFORM.md ("App terminated during the undo window: the message is not sent"): the hold lives in
/// this process only. When the process dies in the window nothing here runs again; the outbox finds
/// the hold orphaned (`SendHoldOwnership`) and never sends it by itself. Likewise a coordinator
/// released in the window lets nothing go: its timers hold it weakly.
public actor UndoSendCoordinator {
    /// Who must still be there when the window ends.
    public enum Watcher: Sendable, Hashable {
        /// A page with script: it confirms at the end of its countdown.
        case page
        /// A terminal or a page without script: the window's end is enough.
        case none
    }

    /// What `send` started.
    public enum Started: Sendable {
        /// In its undo window until `until`.
        case held(HeldDraftSend, window: Duration)
        /// No window: queued and tried at once.
        case sent(SendOutcome)
    }

    private struct Hold {
        var held: HeldDraftSend
        var needsConfirmation: Bool
        var confirmed = false
        /// The window's end; moves when a pause ends.
        var until: Date
        /// What was left of the window when it was paused; nil while it runs.
        var pausedRemaining: Duration?
        /// Each timer started for this hold carries the generation it was started in; a pause or a
        /// resume starts a new one, so a timer of an earlier generation does nothing.
        var generation = 0
    }

    /// How long after the window's end a page's confirmation is waited for.
    public static let defaultPageGrace: Duration = .seconds(10)
    /// How long a paused page's hold waits for the page to resume or pause again. A hidden tab's
    /// timers run at most once a minute in Chromium (intensive throttling), so the page refreshes
    /// its pause every minute and five of them can be late before the message goes back to draft.
    public static let defaultPausedPageLimit: Duration = .seconds(300)

    let steps: any DraftSendSteps
    let windows: UndoWindowsUseCase
    let clock: any SleepingClock
    let pageGrace: Duration
    let pausedPageLimit: Duration
    private var holds: [EmailID: Hold] = [:]
    /// Whoever waits for a held send's end (`outcome(of:)`): the outcome, or nil when it went back to its draft.
    private var waiters: [EmailID: [CheckedContinuation<Result<SendOutcome, any Error>?, Never>]] = [:]
    /// The latest ends, for a waiter that asks just after (bounded: a long-running server forgets them).
    private var ended: [(emailId: EmailID, result: Result<SendOutcome, any Error>?)] = []

    public init(
        steps: any DraftSendSteps, windows: UndoWindowsUseCase, clock: any SleepingClock = SystemClock(),
        pageGrace: Duration = defaultPageGrace, pausedPageLimit: Duration = defaultPausedPageLimit
    ) {
        self.steps = steps
        self.windows = windows
        self.clock = clock
        self.pageGrace = pageGrace
        self.pausedPageLimit = pausedPageLimit
    }

    /// The window a send gets now (the composer's countdown shows it).
    public func window() async throws -> Duration { try await windows.send() }

    /// Sends draft `id` with the setting's window, or `window` when the front end chose one (`tern send --undo N`).
    public func send(_ id: Draft.ID, window: Duration? = nil, watcher: Watcher) async throws -> Started {
        var chosen = window ?? .zero
        if window == nil { chosen = try await windows.send() }
        switch try await steps.send(id, undoWindow: chosen) {
        case .sent(let outcome):
            return .sent(outcome)
        case .held(let held):
            let emailId = held.send.emailId
            holds[emailId] = Hold(held: held, needsConfirmation: watcher == .page, until: held.send.until)
            startWindowTimer(emailId)
            return .held(held, window: chosen)
        }
    }

    /// The window's clock stops with what is left of it (the page was hidden, the terminal stopped).
    /// Pausing again refreshes a page's pause (`pausedPageLimit`). Returns what is left; nil when the
    /// message is no longer held, or its window has already ended.
    public func pause(_ emailId: EmailID) -> Duration? {
        guard var hold = holds[emailId] else { return nil }
        let remaining = hold.pausedRemaining ?? .seconds(hold.until.timeIntervalSince(clock.now()))
        guard remaining > .zero else { return nil }
        hold.pausedRemaining = remaining
        hold.generation += 1
        holds[emailId] = hold
        if hold.needsConfirmation {
            let (generation, limit) = (hold.generation, clock.now().adding(pausedPageLimit))
            Task { [weak self, clock] in
                try? await clock.sleep(until: limit)
                await self?.pausedPageGone(emailId, generation: generation)
            }
        }
        return remaining
    }

    /// The window's clock runs again from where it paused. Returns the window's new end; nil when
    /// the message is no longer held. A window that was not paused keeps its end.
    public func resume(_ emailId: EmailID) -> Date? {
        guard var hold = holds[emailId] else { return nil }
        guard let remaining = hold.pausedRemaining else { return hold.until }
        hold.until = clock.now().adding(remaining)
        hold.pausedRemaining = nil
        holds[emailId] = hold
        startWindowTimer(emailId)
        return hold.until
    }

    /// The page's countdown ended with the page open: sent now if the window is over, else at its end.
    /// False when the message is no longer held (undone, or given back to its draft).
    public func confirm(_ emailId: EmailID) async -> Bool {
        guard var hold = holds[emailId] else { return false }
        if hold.pausedRemaining == nil, hold.until <= clock.now() {
            await commit(emailId)
            return true
        }
        hold.confirmed = true
        holds[emailId] = hold
        return true
    }

    /// Undo: the message is its draft again, if its window has not ended (nil: too late, it is being sent).
    public func undo(_ emailId: EmailID) async throws -> Draft? {
        guard let hold = holds.removeValue(forKey: emailId) else { return nil }
        do {
            let draft = try await steps.undo(hold.held)
            finish(emailId, nil)
            return draft
        } catch {
            finish(emailId, nil)
            throw error
        }
    }

    /// Waits for the held send's end: its outcome once committed, nil when it went back to its draft
    /// (undone, or a page that never confirmed). Nil at once for a message this coordinator does not hold.
    public func outcome(of emailId: EmailID) async throws -> SendOutcome? {
        if holds[emailId] == nil {
            return try ended.last(where: { $0.emailId == emailId })?.result?.get()
        }
        let result = await withCheckedContinuation { continuation in waiters[emailId, default: []].append(continuation) }
        return try result?.get()
    }

    /// Whether `emailId` is in its window here.
    public func isHeld(_ emailId: EmailID) -> Bool { holds[emailId] != nil }

    /// The window's end, then the page's grace, for the hold's current generation.
    private func startWindowTimer(_ emailId: EmailID) {
        guard var hold = holds[emailId] else { return }
        hold.generation += 1
        holds[emailId] = hold
        let (generation, until) = (hold.generation, hold.until)
        Task { [weak self, clock, pageGrace] in
            try? await clock.sleep(until: until)
            guard let ended = await self?.windowEnded(emailId, generation: generation), !ended else { return }
            try? await clock.sleep(until: until.adding(pageGrace))
            await self?.graceEnded(emailId, generation: generation)
        }
    }

    /// The window ended: let go unless a page must confirm first. True when nothing is left to wait
    /// for (a timer of an earlier generation, or of a paused window, has nothing to do either).
    private func windowEnded(_ emailId: EmailID, generation: Int) async -> Bool {
        guard let hold = holds[emailId], hold.generation == generation, hold.pausedRemaining == nil else { return true }
        guard !hold.needsConfirmation || hold.confirmed else { return false }
        await commit(emailId)
        return true
    }

    /// Still unconfirmed after the grace: the page is gone (closed, crashed, offline), so the message is a draft again.
    private func graceEnded(_ emailId: EmailID, generation: Int) async {
        guard holds[emailId]?.generation == generation, let hold = holds.removeValue(forKey: emailId) else { return }
        _ = try? await steps.undo(hold.held)
        finish(emailId, nil)
    }

    /// A paused page neither resumed nor paused again in time: it is gone, and so is the send.
    private func pausedPageGone(_ emailId: EmailID, generation: Int) async {
        guard let hold = holds[emailId], hold.generation == generation, hold.pausedRemaining != nil else { return }
        holds[emailId] = nil
        _ = try? await steps.undo(hold.held)
        finish(emailId, nil)
    }

    private func commit(_ emailId: EmailID) async {
        guard let hold = holds.removeValue(forKey: emailId) else { return }
        let result: Result<SendOutcome, any Error>
        do {
            result = .success(try await steps.commit(hold.held))
        } catch {
            result = .failure(error)
        }
        finish(emailId, result)
    }

    private func finish(_ emailId: EmailID, _ result: Result<SendOutcome, any Error>?) {
        ended.append((emailId, result))
        if ended.count > 64 { ended.removeFirst(ended.count - 64) }
        for waiter in waiters.removeValue(forKey: emailId) ?? [] { waiter.resume(returning: result) }
    }
}
