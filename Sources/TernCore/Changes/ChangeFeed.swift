import Foundation
import Synchronization

/// What changed in the mail a front end shows, so a live front end (the web app's server-sent
/// events, `tern sync --watch`) redraws only what it must.
public enum MailChange: Sendable, Hashable {
    /// Thread lists and folder counts of the account (nil: any account) may have changed.
    case threadsChanged(accountId: Account.ID?)
    /// FR-SYNC-01 step 7: a message's body was stored.
    case bodyArrived(emailId: EmailID, threadId: ThreadID?)
    /// FR-SYNC-01 step 7, E-05: the bodies a thread's opening asked for could not be fetched
    /// (`offline`: the server could not be reached; else the account is signed out).
    case bodiesUnavailable(threadId: ThreadID, offline: Bool)
    /// FR-SYNC-04: an account's sync state.
    case syncState(accountId: Account.ID, state: SyncState, detail: String?)
    /// New mail arrived (IDLE, or a sync found it). The name comes along so that a notice can
    /// say it without reading the account table for each event.
    case newMail(accountId: Account.ID, accountName: AccountName, count: Int)
    /// Issue 36: the new messages of that arrival that reached the Inbox unread, for the web app's
    /// notifications (sender, subject and thread; mail already read elsewhere is left out).
    case inboxArrivals(accountId: Account.ID, messages: [NewMessage])
    /// FR-SYNC-07: the Outbox changed (queued, sent, failed).
    case outboxChanged(accountId: Account.ID)
    /// FR-SYNC-07, CO01-E2: a queued message was sent, or failed for good, in a pass this process ran
    /// (the sync engine's retries included), so a page that sent it hears the outcome however late.
    case sendOutcome(emailId: EmailID, state: SendState, error: String?)
    /// FR-SYNC-05, E-10/E-11: a local change the server refused was reverted: "Couldn't archive. Tap to retry."
    case changeFailed(PendingChangeSummary)
    /// An archive or delete inside its undo window was undone (FR-ED-01).
    case removalUndone(threadIds: [ThreadID])
    /// Issue 36: a folder create, rename or delete the server refused; the folder list no longer
    /// shows it. `text` says what and why ("Couldn't rename Work to Jobs: …").
    case folderChangeFailed(accountId: Account.ID, text: String)
    /// FR-ED-03: a download's progress; `received == total` when done.
    case attachmentProgress(AttachmentProgress)
    case trustedSendersChanged
    case settingChanged(SettingKey)
    /// FR-COMP-01: the Drafts list changed (saved, discarded, sent, synced).
    case draftsChanged
    /// FR-COMP-01 "Conflict": another device's version replaced this draft ("Reload?").
    case draftChangedOnServer(draftId: DraftID)
    /// FR-COMP-02's composer states for a message sent from a draft, as they happen in this process.
    case composerSend(ComposerSendUpdate)
    /// Issue 35: an account was added or removed (the sync engine of a long-running process starts
    /// over with the accounts there are now).
    case accountsChanged
    /// FR-SYNC-01's staged bootstrap made visible (issue 35): a folder's headers fetched so far of
    /// those its first sync fetches.
    case headerProgress(FolderHeaderProgress)
}

/// How far a folder's first sync is: headers stored of the total it fetches (the sync window's),
/// with the sums over the account's folders reported so far in this sync (the overall figure).
public struct FolderHeaderProgress: Sendable, Hashable, Codable {
    public var accountId: Account.ID
    public var folderPath: String
    public var fetched: Int
    public var total: Int
    public var accountFetched: Int
    public var accountTotal: Int

    public init(accountId: Account.ID, folderPath: String, fetched: Int, total: Int, accountFetched: Int, accountTotal: Int) {
        self.accountId = accountId
        self.folderPath = folderPath
        self.fetched = fetched
        self.total = total
        self.accountFetched = accountFetched
        self.accountTotal = accountTotal
    }
}

/// The latest header figures of each folder of one account's sync, summed for the overall figure.
final class HeaderProgressTally: Sendable {
    private let folders = Mutex<[String: (fetched: Int, total: Int)]>([:])

    func record(accountId: Account.ID, path: String, fetched: Int, total: Int) -> FolderHeaderProgress {
        folders.withLock { folders in
            folders[path] = (fetched, total)
            return FolderHeaderProgress(
                accountId: accountId, folderPath: path, fetched: fetched, total: total,
                accountFetched: folders.values.reduce(0) { $0 + $1.fetched }, accountTotal: folders.values.reduce(0) { $0 + $1.total })
        }
    }
}

/// A step of sending a draft (FR-COMP-02's mapping of composer states): the undo window opened,
/// undone, or the window's end and what the queue made of it, with the server's text on failure.
public struct ComposerSendUpdate: Sendable, Hashable, Codable {
    public enum State: String, Sendable, Hashable, Codable {
        case undoWindow, undoCancelled, queued, sending, sent, failed
    }

    public var draftId: DraftID
    public var emailId: EmailID
    public var state: State
    public var until: Date?
    public var error: String?

    public init(draftId: DraftID, emailId: EmailID, state: State, until: Date? = nil, error: String? = nil) {
        self.draftId = draftId
        self.emailId = emailId
        self.state = state
        self.until = until
        self.error = error
    }

    init(draftId: DraftID, outcome: SendOutcome) {
        let state: State =
            switch outcome.state {
            case .sent: .sent
            case .failed: .failed
            case .sending: .sending
            case .queued, .none: .queued
            }
        self.init(draftId: draftId, emailId: outcome.emailId, state: state, error: outcome.error)
    }
}

/// One attachment download's progress (determinate when the size is known).
public struct AttachmentProgress: Sendable, Hashable, Codable {
    public enum Phase: String, Sendable, Hashable, Codable { case downloading, retrying, finished, failed, cancelled }

    public var attachmentId: AttachmentID
    public var phase: Phase
    public var receivedBytes: Int64
    /// Nil when the size is not known.
    public var totalBytes: Int64?
    public var error: String?

    public init(attachmentId: AttachmentID, phase: Phase, receivedBytes: Int64, totalBytes: Int64?, error: String? = nil) {
        self.attachmentId = attachmentId
        self.phase = phase
        self.receivedBytes = receivedBytes
        self.totalBytes = totalBytes
        self.error = error
    }
}

/// The change feed: use cases and the sync engine publish, each subscriber gets every change from
/// its subscription on, in order, as an `AsyncStream`. One per process, held by the composition root.
/// A subscriber that falls behind keeps the newest `bufferSize` changes: a front end that missed some
/// redraws from the store, which is the truth.
public final class ChangeFeed: Sendable {
    private struct Subscribers {
        var next = 0
        var continuations: [Int: AsyncStream<MailChange>.Continuation] = [:]
    }

    private let subscribers = Mutex(Subscribers())
    private let bufferSize: Int

    public init(bufferSize: Int = 512) {
        self.bufferSize = bufferSize
    }

    public func publish(_ change: MailChange) {
        let continuations = subscribers.withLock { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(change) }
    }

    /// Changes from now until the stream is dropped or its task is cancelled.
    public func changes() -> AsyncStream<MailChange> {
        let (stream, continuation) = AsyncStream<MailChange>.makeStream(bufferingPolicy: .bufferingNewest(bufferSize))
        let id = subscribers.withLock { state in
            let id = state.next
            state.next += 1
            state.continuations[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    public var subscriberCount: Int { subscribers.withLock { $0.continuations.count } }
}
