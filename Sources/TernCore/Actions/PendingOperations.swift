import Foundation

/// A local change waiting for the server (FR-SYNC-05, FR-SYNC-10), or the Sent copy of a sent
/// message (FR-SYNC-07). Persisted, so a change made before a crash or while offline still reaches
/// the server, and reverted when it cannot.
public struct PendingOperation: Sendable, Hashable, Codable, Identifiable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case addFlag, removeFlag, archive, delete, fileSentCopy
        /// Issue 36: to another folder (`targetFolderId`), like archive: the copy leaves its folder.
        case move
        /// Issue 36: a label added where the layout is labels (Gmail): a copy in `targetFolderId`,
        /// the source copy stays.
        case copy

        /// Whether the copy leaves its folder locally at once (and comes back on revert or undo).
        public var removesCopy: Bool { self == .archive || self == .delete || self == .move }
    }

    public enum State: String, Sendable, Hashable, Codable {
        case pending
        /// Gave up after its retries (the local state was reverted): shown with a retry action.
        case failed
    }

    public var id: PendingChangeID?
    public var accountId: Account.ID
    public var kind: Kind
    /// `\Seen` or `\Flagged` for flag changes.
    public var flag: String?
    public var emailId: EmailID
    /// The folder copy acted on; nil for `fileSentCopy`.
    public var folderId: FolderID?
    public var imapUID: Int64?
    /// The folder's UIDVALIDITY when `imapUID` was read: under another one the UID names another
    /// message (RFC 9051 section 2.3.1.1), so the change is cancelled rather than pushed.
    public var uidValidity: Int64?
    /// The copy's server flags when the change was made: what a revert of archive/delete restores.
    public var serverFlags: String?
    public var modSeq: Int64?
    public var state: State
    /// Attempts made so far (the first one included).
    public var attempts: Int
    public var notBefore: Date?
    public var lastError: String?
    public var createdDate: Date
    /// FR-ED-01: the archive or delete this operation belongs to, while it can be undone (it waits
    /// for the server until `notBefore`, the end of its undo window).
    public var undoToken: String?
    /// Issue 36: the folder a `move` or `copy` goes to.
    public var targetFolderId: FolderID?

    /// Why a change made before its folder's UIDVALIDITY changed was cancelled (`lastError`).
    public static let folderResetNote = "the folder was reset on the server (new UIDVALIDITY), so the change was not made; make it again"

    public init(
        id: PendingChangeID? = nil, accountId: Account.ID, kind: Kind, flag: String? = nil, emailId: EmailID, folderId: FolderID? = nil,
        imapUID: Int64? = nil, uidValidity: Int64? = nil, serverFlags: String? = nil, modSeq: Int64? = nil, state: State = .pending,
        attempts: Int = 0, notBefore: Date? = nil, lastError: String? = nil, createdDate: Date, undoToken: String? = nil,
        targetFolderId: FolderID? = nil
    ) {
        self.targetFolderId = targetFolderId
        self.id = id
        self.accountId = accountId
        self.kind = kind
        self.flag = flag
        self.emailId = emailId
        self.folderId = folderId
        self.imapUID = imapUID
        self.uidValidity = uidValidity
        self.serverFlags = serverFlags
        self.modSeq = modSeq
        self.state = state
        self.attempts = attempts
        self.notBefore = notBefore
        self.lastError = lastError
        self.createdDate = createdDate
        self.undoToken = undoToken
    }
}

/// FR-ED-01: an archive or delete that waits `until` before it goes to the server, and can be
/// undone by its token until then. Persisted with its operations: a process that dies inside the
/// window still pushes the change later (the user meant it).
public struct UndoHold: Sendable, Hashable, Codable {
    public var token: String
    public var until: Date

    public init(token: String = UUID().uuidString.lowercased(), until: Date) {
        self.token = token
        self.until = until
    }
}

/// What one operation asks of the IMAP server, with the mailbox names resolved.
public struct ServerOperation: Sendable, Hashable {
    public enum Action: Sendable, Hashable {
        /// FR-SYNC-10: `UID STORE +FLAGS`/`-FLAGS`.
        case store(flag: String, add: Bool, mailbox: String, uid: Int64)
        /// Archive and delete to Trash: `UID MOVE`, or `COPY` + `\Deleted` + `UID EXPUNGE`.
        /// `createTarget`: the server has no such mailbox yet (an IMAP server without `\All`).
        case move(mailbox: String, uid: Int64, to: String, createTarget: Bool)
        /// Issue 36 "Label as…": `UID COPY`, the source copy stays.
        case copy(mailbox: String, uid: Int64, to: String)
        /// Delete from Trash: `\Deleted` + `UID EXPUNGE` of only this UID.
        case expunge(mailbox: String, uid: Int64)
        /// FR-SYNC-07: the copy in Sent. `confirmOnly`: look for it by Message-ID and do not append
        /// (Gmail files what it relays itself). `sentMailbox` nil: the account was never synced, the
        /// server's `\Sent` mailbox is looked up (LIST).
        case fileSentCopy(message: OutgoingSubmission, sentMailbox: String?, confirmOnly: Bool)
    }

    public var id: PendingChangeID
    public var action: Action
    /// The UIDVALIDITY the action's UID belongs to; the server side acts only when the mailbox's,
    /// read at SELECT, is the same (nil for a Sent copy, which names no UID).
    public var uidValidity: Int64?

    public init(id: PendingChangeID, action: Action, uidValidity: Int64? = nil) {
        self.id = id
        self.action = action
        self.uidValidity = uidValidity
    }
}

public enum ServerOperationOutcome: Sendable, Hashable {
    /// Done. `newUID`: where the copy now is (APPENDUID/COPYUID), when the server said.
    case done(newUID: Int64?)
    /// The server said NO: retrying will not help; the change is reverted at once.
    case refused(String)
    /// Not now (not filed by Gmail yet, a server busy): retried on the schedule.
    case deferred(String)
    /// The mailbox's UIDVALIDITY is no longer the one the UID was read under: the UID may name
    /// another message now, so nothing was sent and the change is cancelled (reverted, reported).
    case folderReset
}

/// The IMAP side (the Sync module). One connection per batch; each operation gets its own outcome,
/// and a thrown error (a dropped connection) counts as `deferred` for every operation not yet done.
public protocol ServerMailActions: Sendable {
    func perform(_ operations: [ServerOperation], account: Account, credentials: CredentialSupply) async throws
        -> [PendingChangeID: ServerOperationOutcome]
    /// Whether the mailbox (nil: the server's `\Sent`) holds a message with this Message-ID
    /// (`UID SEARCH HEADER Message-ID`).
    func mailbox(_ mailbox: String?, containsMessageId messageId: String, account: Account, credentials: CredentialSupply) async throws -> Bool
}

/// One folder copy of an email, as an action sees it.
public struct EmailCopy: Sendable, Hashable {
    public var emailId: EmailID
    public var accountId: Account.ID
    public var folderId: FolderID
    public var folderPath: String
    public var folderType: FolderType
    public var uid: Int64
    public var serverFlags: String
    public var modSeq: Int64?

    public init(
        emailId: EmailID, accountId: Account.ID, folderId: FolderID, folderPath: String, folderType: FolderType, uid: Int64,
        serverFlags: String, modSeq: Int64?
    ) {
        self.emailId = emailId
        self.accountId = accountId
        self.folderId = folderId
        self.folderPath = folderPath
        self.folderType = folderType
        self.uid = uid
        self.serverFlags = serverFlags
        self.modSeq = modSeq
    }
}

/// The emails an action changes locally and the server copies it pushes to. For flags an email in
/// no synced folder (archived) still changes locally.
public struct ActionScope: Sendable, Hashable {
    public var emailIds: [EmailID]
    public var copies: [EmailCopy]

    public init(emailIds: [EmailID], copies: [EmailCopy]) {
        self.emailIds = emailIds
        self.copies = copies
    }

    /// The scope without these messages and their copies.
    public func excluding(_ ids: Set<EmailID>) -> ActionScope {
        ActionScope(emailIds: emailIds.filter { !ids.contains($0) }, copies: copies.filter { !ids.contains($0.emailId) })
    }
}

/// What a user action names: a thread (every message of it) or one message.
public enum MailTarget: Sendable, Hashable {
    case thread(ThreadID)
    case message(EmailID)
}

/// FR-SYNC-10 Local → Server.
public enum FlagChange: String, Sendable, Hashable, Codable, CaseIterable {
    case read, unread, star, unstar

    public var flag: String { self == .read || self == .unread ? "\\Seen" : "\\Flagged" }
    public var adds: Bool { self == .read || self == .star }
}

/// A pending or failed change as the front ends list it (the "Couldn't … Tap to retry" of FR-ED-01).
public struct PendingChangeSummary: Sendable, Hashable, Codable {
    public var id: PendingChangeID
    public var account: AccountName
    public var kind: PendingOperation.Kind
    public var flag: String?
    public var emailId: EmailID
    /// The message's conversation: a front end that left it for the list (archive, delete) goes back
    /// to it when the server refuses (E-11).
    public var threadId: ThreadID?
    public var subject: String
    public var folder: String?
    public var state: PendingOperation.State
    public var attempts: Int
    public var notBefore: Date?
    public var lastError: String?

    public init(
        id: PendingChangeID, account: AccountName, kind: PendingOperation.Kind, flag: String?, emailId: EmailID, subject: String, folder: String?,
        state: PendingOperation.State, attempts: Int, notBefore: Date?, lastError: String?, threadId: ThreadID? = nil
    ) {
        self.threadId = threadId
        self.id = id
        self.account = account
        self.kind = kind
        self.flag = flag
        self.emailId = emailId
        self.subject = subject
        self.folder = folder
        self.state = state
        self.attempts = attempts
        self.notBefore = notBefore
        self.lastError = lastError
    }
}

/// The persistence of user actions and their pending server operations. Each method is one
/// transaction: the optimistic local change and the operation that will push it are written together.
public protocol MailActionStore: Sendable {
    /// The copies an action applies to. `folderPath` is the folder the user is looking at; nil
    /// means "implied": for archive and delete, the Inbox for a thread, the one folder of a message
    /// in a single folder; for flags every copy.
    func scope(of targets: [MailTarget], folderPath: String?, forFlags: Bool) async throws -> ActionScope
    /// Those of `emailIds` whose From is one of their account's own addresses (its address and aliases).
    func writtenByAccount(_ emailIds: [EmailID]) async throws -> Set<EmailID>
    /// FR-SYNC-10: the flag set locally on each email, one operation per copy whose server flags
    /// differ. A newer change of the same flag replaces an older one still waiting.
    func applyFlagChange(_ change: FlagChange, to scope: ActionScope, at date: Date) async throws
    /// FR-SYNC-10 Archive/Delete: the copies leave their folder locally (the Email stays); deletes
    /// set `deletedDate` so the message is not in the virtual Archive.
    /// `undo`: the operations wait for the end of the undo window and carry its token.
    func applyRemoval(_ kind: PendingOperation.Kind, of copies: [EmailCopy], at date: Date, undo: UndoHold?) async throws
    /// Issue 36: a `move` (the copies leave their folder locally, as archive) or `copy` (nothing
    /// changes locally until the server says where the new copy is) to `target`, with its
    /// operations, in one transaction. `keyword`: set on each copy before it moves (snooze's wake
    /// time, issue 36), so the copy arrives with it.
    func applyTransfer(
        _ kind: PendingOperation.Kind, of copies: [EmailCopy], to target: FolderID, at date: Date, undo: UndoHold?, keyword: String?
    ) async throws
    /// FR-ED-01 Undo: the operations of `token` that are still waiting inside their window (`now`
    /// before their `notBefore`, never attempted) are removed and their local change reverted.
    /// Returns the threads restored; empty when the window has passed.
    func undoRemoval(token: String, now: Date) async throws -> [ThreadID]
    /// The most recent archive or delete still inside its undo window.
    func latestUndoableRemoval(now: Date) async throws -> UndoHold?
    func pendingOperations(accountId: Account.ID) async throws -> [PendingOperation]
    /// Mailboxes by id, with their roles, to turn operations into server actions.
    func folders(accountId: Account.ID) async throws -> [Folder]
    /// A sent message's bytes, for its Sent copy.
    func sentMessage(emailId: EmailID) async throws -> OutgoingSubmission?
    /// Success: the operation goes; a flag push records the flag as the server's, a Sent copy or a
    /// move into a synced folder records the new association when `newUID` is known.
    func complete(_ operation: PendingOperation, newUID: Int64?, targetFolderId: FolderID?) async throws
    func scheduleRetry(_ operationId: PendingChangeID, attempts: Int, notBefore: Date, error: String) async throws
    /// Gave up: the local change is undone to match the server (FR-SYNC-05) and the operation kept
    /// as failed, with its error, for a retry action.
    func fail(_ operation: PendingOperation, error: String, attempts: Int) async throws
    /// The retry action: the change is applied locally again and pushed as new.
    func retry(_ operationId: PendingChangeID) async throws -> PendingOperation?
    func dismiss(_ operationId: PendingChangeID) async throws
    func summaries(accountId: Account.ID?) async throws -> [PendingChangeSummary]
}
