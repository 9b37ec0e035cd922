import Foundation

/// FR-SYNC-01 step 1: the role of a mailbox, from its RFC 6154 special-use attribute.
public enum FolderType: String, Sendable, Hashable, Codable, CaseIterable {
    case inbox, sent, drafts, trash, spam, starred, custom
    /// `\All` (`[Gmail]/All Mail`): known, never synced; it is the archive target (FR-SYNC-10).
    case all
    /// `\Archive` (RFC 6154): on Cyrus, Fastmail and most servers other than Gmail an ordinary
    /// folder people archive into. It is synced like any other, and it is the archive target when
    /// the account has no `\All` (issue 22: taking it for `\All` hid its mail).
    case archive
    /// `\Important`: known, never synced; importance is a flag, not a mailbox.
    case important
    /// A mailbox that cannot be selected (`\Noselect`, `\NonExistent`), such as `[Gmail]`.
    case container

    /// FR-SYNC-01 step 1: `\All` and `\Important` MUST NOT be synced.
    public var isSyncable: Bool {
        switch self {
        case .all, .important, .container: false
        default: true
        }
    }
}

/// FR-SYNC-01/02: the state of background history catch-up for one folder.
public enum CatchUpStatus: String, Sendable, Hashable, Codable, CaseIterable {
    case idle, running, paused, completed, error
}

/// A mailbox on the server and the sync state Tern keeps for it.
public struct Folder: Sendable, Hashable, Codable, Identifiable {
    public var id: FolderID?
    public var accountId: Account.ID
    /// The mailbox name as the server spells it (decoded from modified UTF-7), e.g. `[Gmail]/Sent Mail`.
    public var path: String
    /// The last path component, for display.
    public var displayName: String
    public var delimiter: String?
    public var folderType: FolderType
    /// FR-SYNC-02 step 5: a change resets both cursors and restarts the folder's bootstrap.
    public var uidValidity: Int64?
    public var uidNext: Int64?
    /// RFC 7162 CONDSTORE: the highest mod-sequence seen, for `CHANGEDSINCE` flag pulls.
    public var highestModSeq: Int64?
    /// The server's message count at the last completed sync: with UIDNEXT and HIGHESTMODSEQ, what
    /// STATUS compares to skip an unchanged folder.
    public var serverMessageCount: Int64?
    /// FR-SYNC-02: highest UID persisted by forward incremental sync.
    public var forwardCursorUID: Int64?
    /// FR-SYNC-02: oldest UID boundary persisted by backward catch-up.
    public var backfillCursorUID: Int64?
    /// FR-SYNC-01 stage B/C: the first page of this folder is stored.
    public var initialFastCompleted: Bool
    public var catchUpStatus: CatchUpStatus
    /// FR-SYNC-02: catch-up found nothing older; scrolling no longer asks the server.
    public var reachedServerHistoryBoundary: Bool
    public var lastSyncDate: Date?
    /// The last sync error for this folder, shown to the user and cleared on success.
    public var lastSyncError: String?
    /// RFC 8474 MAILBOXID on a server with OBJECTID: the same folder after a rename (issue 22).
    public var mailboxId: String?

    public init(
        id: FolderID? = nil, accountId: Account.ID, path: String, displayName: String? = nil, delimiter: String? = "/",
        folderType: FolderType, uidValidity: Int64? = nil, uidNext: Int64? = nil, highestModSeq: Int64? = nil,
        forwardCursorUID: Int64? = nil, backfillCursorUID: Int64? = nil, initialFastCompleted: Bool = false,
        catchUpStatus: CatchUpStatus = .idle, reachedServerHistoryBoundary: Bool = false,
        lastSyncDate: Date? = nil, lastSyncError: String? = nil, serverMessageCount: Int64? = nil,
        mailboxId: String? = nil
    ) {
        self.id = id
        self.accountId = accountId
        self.path = path
        self.displayName = displayName ?? Folder.lastComponent(of: path, delimiter: delimiter)
        self.delimiter = delimiter
        self.folderType = folderType
        self.uidValidity = uidValidity
        self.uidNext = uidNext
        self.highestModSeq = highestModSeq
        self.forwardCursorUID = forwardCursorUID
        self.backfillCursorUID = backfillCursorUID
        self.initialFastCompleted = initialFastCompleted
        self.catchUpStatus = catchUpStatus
        self.reachedServerHistoryBoundary = reachedServerHistoryBoundary
        self.lastSyncDate = lastSyncDate
        self.lastSyncError = lastSyncError
        self.serverMessageCount = serverMessageCount
        self.mailboxId = mailboxId
    }

    public var isSyncable: Bool { folderType.isSyncable }

    public static func lastComponent(of path: String, delimiter: String?) -> String {
        guard let delimiter, !delimiter.isEmpty, let range = path.range(of: delimiter, options: .backwards) else {
            return path
        }
        return String(path[range.upperBound...])
    }
}
