import Foundation

/// A mailbox the server listed (FR-SYNC-01 step 1), before it is stored.
public struct DiscoveredFolder: Sendable, Hashable {
    public var path: String
    public var delimiter: String?
    public var folderType: FolderType
    /// RFC 8474 MAILBOXID, when the server offers OBJECTID and it was asked.
    public var mailboxId: String?

    public init(path: String, delimiter: String?, folderType: FolderType, mailboxId: String? = nil) {
        self.path = path
        self.delimiter = delimiter
        self.folderType = folderType
        self.mailboxId = mailboxId
    }
}

/// A flag change pulled from the server (FR-SYNC-05: the server's state replaces the local one).
public struct ServerFlagState: Sendable, Hashable {
    public var uid: Int64
    public var flags: [String]
    public var modSeq: Int64?

    public init(uid: Int64, flags: [String], modSeq: Int64? = nil) {
        self.uid = uid
        self.flags = flags
        self.modSeq = modSeq
    }
}

/// A stored message whose bodies are still to fetch (FR-SYNC-01 step 7).
public struct BodyRequest: Sendable, Hashable {
    public var emailId: EmailID
    public var uid: Int64
    /// The part tree from BODYSTRUCTURE, as stored (`Email.bodyStructure`, JSON).
    public var bodyStructure: String

    public init(emailId: EmailID, uid: Int64, bodyStructure: String) {
        self.emailId = emailId
        self.uid = uid
        self.bodyStructure = bodyStructure
    }
}

/// Bodies fetched for one message.
public struct FetchedBodies: Sendable, Hashable {
    public var emailId: EmailID
    public var plain: String?
    public var html: String?
    public var snippet: String?
    public var truncated: Bool
    /// FR-SYNC-04 Indexing: what search reads when there is no plain body (the HTML's text).
    public var searchText: String?

    public init(emailId: EmailID, plain: String?, html: String?, snippet: String?, truncated: Bool, searchText: String? = nil) {
        self.emailId = emailId
        self.plain = plain
        self.html = html
        self.snippet = snippet
        self.truncated = truncated
        self.searchText = searchText
    }
}

/// What the sync engine needs of the local store. Every call is one transaction.
public protocol SyncStore: Sendable {
    func folders(accountId: Account.ID) async throws -> [Folder]
    /// FR-SYNC-01 step 1 with the server's complete LIST: inserts new mailboxes, updates the type
    /// of known ones, follows renames (same MAILBOXID, or the one folder of a role that moved) and
    /// removes folders the server no longer has, with their messages unless another folder holds
    /// them (or `keepOrphans`, Gmail's All Mail). Returns the account's folders.
    func saveDiscoveredFolders(_ folders: [DiscoveredFolder], accountId: Account.ID, keepOrphans: Bool) async throws -> [Folder]
    func updateFolderState(_ folder: Folder) async throws
    /// UIDVALIDITY changed (FR-SYNC-02): the folder's associations and cursors go, and the local
    /// changes still waiting on its old UIDs are cancelled (reverted, kept as failed); emails left in
    /// no folder are removed unless `keepOrphans` (Gmail, where they remain in All Mail).
    func resetFolder(_ folderId: FolderID, uidValidity: Int64, keepOrphans: Bool) async throws
    @discardableResult
    func store(_ messages: [IncomingMessage], folderId: FolderID, cursorUID: Int64?, backfillCursorUID: Int64?) async throws -> StoredBatch
    func localUIDs(folderId: FolderID) async throws -> [Int64]
    /// Messages expunged on the server (FR-SYNC-02 deletions by UID set difference).
    func removeFromFolder(_ folderId: FolderID, uids: [Int64], keepOrphans: Bool) async throws
    /// Messages of the folder without bodies, newest first, received since `since` (all when nil).
    func emailsNeedingBodies(folderId: FolderID, since: Date?, limit: Int) async throws -> [BodyRequest]
    /// Stores bodies, re-indexes their text and refreshes their threads' snippets.
    func saveBodies(_ bodies: [FetchedBodies]) async throws
    /// Returns how many stored messages changed.
    @discardableResult
    func applyServerFlags(_ states: [ServerFlagState], folderId: FolderID) async throws -> Int
    /// The bodies of a thread's messages still to fetch, each with the folder to read it from
    /// (the Inbox when it is there).
    func missingBodies(threadId: ThreadID) async throws -> [FolderBodyRequest]
    /// FR-SYNC-04 Indexing: indexes the account's emails that have no search entry (a failed or
    /// interrupted indexing); returns how many.
    func indexMissing(accountId: Account.ID) async throws -> Int
}

/// FR-SYNC-04's states, as the engine reports them.
public enum SyncProgress: Sendable, Hashable {
    /// FR-SYNC-04: the engine entered this state (for an account).
    case state(account: AccountName, SyncState, detail: String? = nil)
    case connecting
    case discoveredFolders(Int)
    /// A folder is about to be selected: the order of these shows the stages (FR-SYNC-01).
    case selectingFolder(path: String)
    /// FR-SYNC-01 stage B: the newest Inbox headers are stored; the list can be shown.
    case firstPageReady(messages: Int)
    case syncingFolder(path: String, done: Int, total: Int)
    /// A folder's first sync: headers stored so far of those it fetches (the sync window's), as the
    /// batches land (issue 35: the first sync's progress in the web app).
    case headersFetched(path: String, fetched: Int, total: Int)
    case folderDone(path: String)
    /// `tern sync --watch`: IDLE is established on the Inbox.
    case watching(account: AccountName)
    /// New mail stored by a sync that IDLE triggered (FR-SYNC-03).
    case newMail(account: AccountName, messages: [NewMessage])
    /// The watch loop sent queued mail, or gave up on some (FR-SYNC-07).
    case pushed(account: AccountName, PushReport)
    /// FR-SYNC-04 Error → Idle: the account could not be reached after the reconnect schedule;
    /// the watch goes on and tries again at `at`.
    case retryScheduled(account: AccountName, at: Date, reason: String)
    /// A sync pass of the account ended (one-shot, or triggered by IDLE); `failedFolders` are those
    /// it could not sync (`tern status`'s last successful sync is one without any).
    case synced(account: AccountName, failedFolders: [String])
}

public struct FolderSyncReport: Sendable, Hashable, Codable {
    public var path: String
    public var folderType: FolderType
    public var serverMessages: Int
    public var inserted: Int
    public var linked: Int
    public var removed: Int
    public var flagChanges: Int
    /// Messages whose bodies were fetched (FR-SYNC-01 step 7, the account's hydration policy).
    public var bodiesFetched: Int = 0
    /// Messages asked for that did not come back whole (quarantined or not answered): skipped now
    /// and fetched again on the next sync (FR-SYNC-01 edge cases).
    public var failedMessages: Int = 0
    /// Messages skipped by an earlier sync and fetched again by this one.
    public var retriedMessages: Int = 0
    /// The first new messages (at most 50), for notices.
    public var newMessages: [NewMessage] = []
    public var uidValidityReset: Bool
    public var error: String?
    /// FR-SYNC-01 stage D stopped for this: the folder's history is fetched on from its backfill
    /// cursor when catch-up may run again.
    public var catchUpPaused: CatchUpPause?

    public init(
        path: String, folderType: FolderType, serverMessages: Int = 0, inserted: Int = 0, linked: Int = 0, removed: Int = 0,
        flagChanges: Int = 0, uidValidityReset: Bool = false, error: String? = nil
    ) {
        self.path = path
        self.folderType = folderType
        self.serverMessages = serverMessages
        self.inserted = inserted
        self.linked = linked
        self.removed = removed
        self.flagChanges = flagChanges
        self.uidValidityReset = uidValidityReset
        self.error = error
    }
}

public struct SyncReport: Sendable, Hashable, Codable {
    public var account: AccountName
    public var folders: [FolderSyncReport]
    /// Milliseconds from the start to the first 30 Inbox headers stored (FR-SYNC-01 stage B).
    public var firstPageMilliseconds: Double?
    public var seconds: Double
    /// What went to the server before the pull (pending changes, queued mail).
    public var pushed: PushReport?

    public init(account: AccountName, folders: [FolderSyncReport], firstPageMilliseconds: Double?, seconds: Double) {
        self.account = account
        self.folders = folders
        self.firstPageMilliseconds = firstPageMilliseconds
        self.seconds = seconds
    }
}

/// Runs one account's sync; implemented by the Sync module on the IMAP client.
public protocol MailSynchronizing: Sendable {
    func sync(account: Account, credentials: CredentialSupply, progress: @escaping @Sendable (SyncProgress) -> Void) async throws -> SyncReport
    /// FR-SYNC-03: IDLE on the Inbox; every change syncs the Inbox again. Runs until cancelled.
    func watch(account: Account, credentials: CredentialSupply, progress: @escaping @Sendable (SyncProgress) -> Void) async throws
    /// FR-SYNC-01 step 5: one page of older headers of a folder, below its backfill cursor.
    func loadOlder(account: Account, folderPath: String, credentials: CredentialSupply) async throws -> OlderMailResult
    /// FR-SYNC-01 step 7 "detail open": these bodies, now (grouped by folder on one connection).
    func fetchBodies(_ requests: [FolderBodyRequest], account: Account, credentials: CredentialSupply) async throws -> Int
}

/// A body to fetch and where: the folder the message is read from.
public struct FolderBodyRequest: Sendable, Hashable {
    public var accountId: Account.ID
    public var folderId: FolderID
    public var folderPath: String
    public var request: BodyRequest

    public init(accountId: Account.ID, folderId: FolderID, folderPath: String, request: BodyRequest) {
        self.accountId = accountId
        self.folderId = folderId
        self.folderPath = folderPath
        self.request = request
    }
}

/// What asking for older mail did (FR-SYNC-01 step 5).
public enum OlderMailResult: Sendable, Hashable, Codable {
    /// A context guard: unified inbox, a virtual folder, search. Nothing was asked of the server.
    case notApplicable(reason: String)
    /// Older headers were stored; more may follow.
    case fetched(count: Int)
    /// Nothing older: the server's history or the sync window ends here.
    case reachedBoundary(serverHistory: Bool)
}
