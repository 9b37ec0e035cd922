import Foundation
import IMAP

/// The IMAP operations the sync engine (`FolderSynchronizer`, `AccountSynchronizer`,
/// `AttachmentDownloader`, `IMAPDraftMailbox`, `IMAPMailActions`) performs on one logged-in
/// connection, in the IMAP module's own types. `IMAPSession` is the live one; `TernTesting`'s
/// in-memory server is the other, so the engine is tested without a server (issue 33).
///
/// Like `IMAPSession`, a session is used by one task at a time: the pool's job that was handed it.
/// Requirements carry every argument (no defaults), so a call never has two candidates on the
/// concrete `IMAPSession`.
public protocol SyncSession: AnyObject {
    /// The mailbox the last SELECT or EXAMINE opened, as the server answered it.
    var selected: IMAPSession.SelectedMailbox? { get }
    func hasCapability(_ name: String) -> Bool
    /// Between commands: throws `CancellationError` once the task the session works for gave up.
    func checkCancellation() throws

    /// SELECT (or EXAMINE when `readOnly`): UIDVALIDITY, UIDNEXT, HIGHESTMODSEQ; with `qresync`
    /// (RFC 7162) also what vanished and changed since that state.
    @discardableResult
    func select(_ mailbox: MailboxPath, readOnly: Bool, qresync: (uidValidity: UInt32, modSeq: UInt64)?) async throws
        -> IMAPSession.SelectedMailbox
    func uidSearch(_ criteria: SearchCriteria) async throws -> [UInt32]
    /// UID FETCH, each message handed to `each` as it arrives; `changedSince` is CONDSTORE's CHANGEDSINCE.
    @discardableResult
    func uidFetch(_ uids: UIDSet, items: [FetchItem], changedSince: UInt64?, each: (FetchedMessage) throws -> Void) async throws
        -> [QuarantinedResponse]
    @discardableResult
    func uidStore(_ uids: UIDSet, _ mode: StoreMode, flags: [String], silent: Bool, unchangedSince: UInt64?) async throws
        -> (updated: [FetchedMessage], modified: UIDSet)
    @discardableResult
    func uidCopy(_ uids: UIDSet, to mailbox: MailboxPath) async throws -> UIDMapping?
    @discardableResult
    func uidMove(_ uids: UIDSet, to mailbox: MailboxPath) async throws -> UIDMapping?
    /// RFC 4315: only these UIDs; returns the UIDs that left.
    @discardableResult
    func uidExpunge(_ uids: UIDSet) async throws -> [UInt32]
    @discardableResult
    func append(to mailbox: MailboxPath, message: [UInt8], flags: [String], date: Date?) async throws -> UIDMapping?
    func create(_ mailbox: MailboxPath) async throws
    func rename(_ mailbox: MailboxPath, to newName: MailboxPath) async throws
    func delete(_ mailbox: MailboxPath) async throws
    func listMailboxes() async throws -> [MailboxListing]
    func namespaces() async throws -> Namespaces?
    /// STATUS of each mailbox, by the mailbox's name.
    func status(of mailboxes: [MailboxPath], items: [String]) async throws -> [String: [String: UInt64]]
    /// RFC 8474 MAILBOXID of each mailbox, by name (empty without OBJECTID).
    func mailboxIds(of mailboxes: [MailboxPath]) async throws -> [String: String]
}

extension IMAPSession: SyncSession {}

/// FR-SYNC-09: an account's connections as the engine borrows them. `IMAPConnectionPool` is the
/// live one (`LiveSyncConnectionPool`); `TernTesting`'s in-memory pool keeps the same policy
/// (at most five, reconnect schedule) over the in-memory server.
public protocol SyncConnectionPool: Sendable {
    /// The wait between failed connection attempts; its last step is also the watch's wait before
    /// trying an account that could not be reached again (FR-SYNC-04 Error → Idle).
    var backoff: BackoffSchedule { get }
    /// Runs `body` on a pooled, logged-in connection. `failingFast`: a person waits for it, so a
    /// server out of reach fails it at the first failed attempt rather than after the schedule.
    func withConnection<Result: Sendable>(failingFast: Bool, _ body: @escaping @Sendable (any SyncSession) async throws -> Result)
        async throws -> Result
    /// FR-SYNC-03: IDLE on `mailbox`, as its events. `established` runs each time the IDLE is
    /// (re)established, `reconnecting` at each drop; the stream ends with the error when the pool
    /// gives up reconnecting, and ending the iteration ends the IDLE.
    func idleEvents(mailbox: MailboxPath, reconnecting: (@Sendable (IMAPError) -> Void)?, established: (@Sendable () -> Void)?)
        -> AsyncThrowingStream<MailboxEvent, any Error>
}

extension SyncConnectionPool {
    public func withConnection<Result: Sendable>(_ body: @escaping @Sendable (any SyncSession) async throws -> Result) async throws -> Result {
        try await withConnection(failingFast: false, body)
    }
}

/// The live pool: `IMAPConnectionPool` as it is, its sessions handed to the engine as `SyncSession`s.
public struct LiveSyncConnectionPool: SyncConnectionPool {
    public let pool: IMAPConnectionPool

    public init(_ pool: IMAPConnectionPool) {
        self.pool = pool
    }

    public var backoff: BackoffSchedule { pool.backoff }

    public func withConnection<Result: Sendable>(failingFast: Bool, _ body: @escaping @Sendable (any SyncSession) async throws -> Result)
        async throws -> Result
    {
        try await pool.withConnection(failingFast: failingFast) { (session: IMAPSession) in try await body(session) }
    }

    public func idleEvents(mailbox: MailboxPath, reconnecting: (@Sendable (IMAPError) -> Void)?, established: (@Sendable () -> Void)?)
        -> AsyncThrowingStream<MailboxEvent, any Error>
    {
        let events = pool.idleEvents(mailbox: mailbox, reconnecting: reconnecting, established: established)
        // The IDLE ends when the consumer stops: its iterator is released with the forwarding task.
        let (stream, continuation) = AsyncThrowingStream<MailboxEvent, any Error>.makeStream()
        let forwarding = Task {
            do {
                for try await event in events { continuation.yield(event) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in forwarding.cancel() }
        return stream
    }
}
