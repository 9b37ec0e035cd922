import Foundation
import ServiceLifecycle
import Synchronization
import TernCore
import TernRuntime

/// What the web app remembers between requests: the latest sync state per account (from the change
/// feed), the network work of conversations just opened (bodies being fetched, for the page's
/// long-poll), and the attachment downloads running (for Cancel).
final class WebState: Sendable {
    let changes: ChangeFeed
    private let syncStates = Mutex<[String: SyncStatus]>([:])
    private let network = Mutex<[Int64: ConversationNetworkWork]>([:])
    private let downloads = Mutex<[Int64: Task<Void, Never>]>([:])
    private let contacts = Mutex<(index: ContactIndex, built: Date)?>(nil)
    private let heldSends = Mutex<[Int64: HeldSendInPage]>([:])
    private let prefills = Mutex<[String: (draft: ComposeDraft, made: Date)]>([:])
    let uploads: UploadStaging
    let autosaveSeconds: Int

    init(changes: ChangeFeed, home: URL, autosaveSeconds: Int = 30) {
        self.changes = changes
        self.autosaveSeconds = autosaveSeconds
        uploads = UploadStaging(directory: home.appendingPathComponent("uploads"))
    }

    /// FR-COMP-04: the contact index, built once and again after a minute (the sync adds contacts as
    /// mail arrives); a keystroke only searches it.
    func contactIndex(_ autocomplete: ContactsAutocompleteUseCase) async throws -> ContactIndex {
        if let cached = contacts.withLock({ $0 }), cached.built.timeIntervalSinceNow > -60 { return cached.index }
        let index = try await autocomplete.index()
        contacts.withLock { $0 = (index, Date()) }
        return index
    }

    /// FR-COMP-01's prefill of a composer (the reply's quote is the original rendered to text),
    /// made once when the composer opens and reused by its checks, saves and Send for ten minutes:
    /// each of those rebuilds the message from the prefill and the form. One with notes (the
    /// original's body not there yet) is made again each time.
    func prefill(mode: ComposeMode, original: Int64?, account: String?, make: () async throws -> ComposeDraft) async throws -> ComposeDraft {
        let key = "\(mode.rawValue)|\(original.map { String($0) } ?? "")|\(account ?? "")"
        if let cached = prefills.withLock({ $0[key] }), cached.made.timeIntervalSinceNow > -600 { return cached.draft }
        let draft = try await make()
        guard draft.notes.isEmpty else { return draft }
        prefills.withLock { cache in
            if cache.count >= 32 { cache = cache.filter { $0.value.made.timeIntervalSinceNow > -600 } }
            if cache.count >= 32, let oldest = cache.min(by: { $0.value.made < $1.value.made })?.key { cache.removeValue(forKey: oldest) }
            cache[key] = (draft, Date())
        }
        return draft
    }

    var syncStatuses: [String: SyncStatus] { syncStates.withLock { $0 } }

    /// Keeps `syncStatuses` current for as long as the server runs.
    var follower: some Service { SyncStateFollower(state: self) }

    func record(_ change: MailChange) {
        if case .syncState(let account, let state, let detail) = change {
            syncStates.withLock { $0[account] = SyncStatus(state: state, detail: detail, date: Date()) }
        }
    }

    func register(_ work: ConversationNetworkWork, threadId: Int64) { network.withLock { $0[threadId] = work } }

    func takeNetworkWork(threadId: Int64) -> ConversationNetworkWork? { network.withLock { $0.removeValue(forKey: threadId) } }

    /// Starts a download unless one of the same attachment runs; false when one does.
    func startDownload(_ attachmentId: Int64, _ work: @escaping @Sendable () async -> Void) -> Bool {
        downloads.withLock { running in
            guard running[attachmentId] == nil else { return false }
            running[attachmentId] = Task { [weak self] in
                await work()
                _ = self?.downloads.withLock { $0.removeValue(forKey: attachmentId) }
            }
            return true
        }
    }

    /// FR-COMP-02: a message in its undo window, let go when the window ends unless `takeBack` took it first.
    /// Killing the process in the window leaves the hold orphaned: the message is never sent by itself.
    /// A page with script must also still be there (issue 18: closing the tab in the window leaves a draft):
    /// it confirms at the end of its countdown (`confirmSend`); without that within `pageGrace` of the
    /// window's end the message goes back to its draft. A page without script has nothing to confirm with.
    func hold(_ held: HeldDraftSend, drafts: DraftsUseCase, pageConfirms: Bool) {
        let emailId = held.send.emailId
        heldSends.withLock { $0[emailId] = HeldSendInPage(held: held, needsConfirmation: pageConfirms, confirmed: false, drafts: drafts) }
        Task { [weak self] in
            try? await Task.sleep(for: .seconds(max(0, held.send.until.timeIntervalSinceNow)))
            guard let self else { return }
            if let mine = self.heldSends.withLock({ sends -> HeldSendInPage? in
                guard let entry = sends[emailId], !entry.needsConfirmation || entry.confirmed else { return nil }
                return sends.removeValue(forKey: emailId)
            }) {
                _ = try? await drafts.commit(mine.held)
                return
            }
            try? await Task.sleep(for: Self.pageGrace)
            // Still unconfirmed: the page is gone (closed, crashed, offline), so the message is a draft again.
            if let orphan = self.takeBack(emailId) { _ = try? await drafts.undo(orphan) }
        }
    }

    /// How long after the window's end a page's confirmation is waited for.
    static let pageGrace: Duration = .seconds(10)

    /// The page's countdown ended with the page still open: sent now if the window is over, else at its end.
    /// False when the message is no longer held (undone, or given back to its draft).
    func confirmSend(_ emailId: Int64) async -> Bool {
        let due = heldSends.withLock { sends -> HeldSendInPage? in
            guard var entry = sends[emailId] else { return nil }
            if entry.held.send.until <= Date() { return sends.removeValue(forKey: emailId) }
            entry.confirmed = true
            sends[emailId] = entry
            return nil
        }
        if let due { _ = try? await due.drafts.commit(due.held); return true }
        return heldSends.withLock { $0[emailId] != nil }
    }

    /// Undo: the held message if its window has not ended.
    func takeBack(_ emailId: Int64) -> HeldDraftSend? { heldSends.withLock { $0.removeValue(forKey: emailId)?.held } }

    func cancelDownload(_ attachmentId: Int64) -> Bool {
        guard let task = downloads.withLock({ $0[attachmentId] }) else { return false }
        task.cancel()
        return true
    }
}

struct SyncStateFollower: Service {
    let state: WebState

    /// Ends at graceful shutdown: the service group waits for every service before the process exits.
    func run() async throws {
        let changes = state.changes.changes()
        await cancelWhenGracefulShutdown {
            for await change in changes { state.record(change) }
        }
    }
}

/// The sync engine inside `tern serve` (PLATFORM.md): a first sync of every account, then IDLE
/// watching with pending changes and the send queue pushed as they come due. A failure of the whole
/// run is reported on the change feed (the folder pane shows it) and retried on a growing delay,
/// never ending the server.
struct SyncEngineService: Service {
    static let retryDelays: [Duration] = [.seconds(5), .seconds(15), .seconds(45), .seconds(120)]

    let services: TernServices

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var failures = 0
            while !Task.isCancelled {
                do {
                    guard try await !services.syncAccounts.accounts(named: nil).isEmpty else {
                        try await Task.sleep(for: .seconds(30))
                        continue
                    }
                    _ = try await services.syncAccounts(account: nil) { _ in }
                    try await services.syncAccounts.watch(account: nil) { _ in }
                    failures = 0
                } catch is CancellationError {
                    return
                } catch {
                    let delay = Self.retryDelays[min(failures, Self.retryDelays.count - 1)]
                    failures += 1
                    await services.syncAccounts.retryScheduled(at: Date().addingTimeInterval(Double(delay.components.seconds)),
                                                               reason: WebErrorText.describe(error))
                    try? await Task.sleep(for: delay)
                }
            }
        }
    }
}

/// A held send and whether its page must confirm it (issue 18: a closed tab never sends).
struct HeldSendInPage: Sendable {
    var held: HeldDraftSend
    var needsConfirmation: Bool
    var confirmed: Bool
    var drafts: DraftsUseCase
}
