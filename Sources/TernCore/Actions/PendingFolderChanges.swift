import Foundation

/// Issue 36: a folder create, rename or delete waiting for the end of its undo window, then for the
/// server (FR-ED-01, FR-SYNC-05). The stored folders are not touched until the server has accepted
/// it: until then front ends see the folder list with the change laid over it
/// (`PendingFolderChanges.overlay`), so sync, which names folders by their server path, goes on
/// unaffected, and Undo only has to forget the row (docs/decisions.md).
public struct PendingFolderChange: Sendable, Hashable, Codable, Identifiable {
    public enum Kind: String, Sendable, Hashable, Codable {
        case create, rename, delete
    }

    public var id: PendingFolderChangeID?
    public var accountId: Account.ID
    public var kind: Kind
    /// The folder created, renamed or deleted (its server path).
    public var path: String
    /// A rename's new path.
    public var newPath: String?
    public var state: PendingOperation.State
    public var attempts: Int
    /// The end of the undo window, then of a retry's wait.
    public var notBefore: Date?
    public var lastError: String?
    public var createdDate: Date
    public var undoToken: String?

    public init(
        id: PendingFolderChangeID? = nil, accountId: Account.ID, change: FolderChange, state: PendingOperation.State = .pending,
        attempts: Int = 0, notBefore: Date? = nil, lastError: String? = nil, createdDate: Date, undoToken: String? = nil
    ) {
        self.id = id
        self.accountId = accountId
        switch change {
        case .create(let created):
            kind = .create
            path = created
            newPath = nil
        case .rename(let from, let to):
            kind = .rename
            path = from
            newPath = to
        case .delete(let deleted):
            kind = .delete
            path = deleted
            newPath = nil
        }
        self.state = state
        self.attempts = attempts
        self.notBefore = notBefore
        self.lastError = lastError
        self.createdDate = createdDate
        self.undoToken = undoToken
    }

    public var change: FolderChange {
        switch kind {
        case .create: .create(path: path)
        case .rename: .rename(from: path, to: newPath ?? path)
        case .delete: .delete(path: path)
        }
    }
}

/// The persistence of folder changes waiting for the server.
public protocol PendingFolderChangeStore: Sendable {
    /// Queued; `undo` carries the window's end and token.
    func queueFolderChange(_ change: PendingFolderChange) async throws -> PendingFolderChange
    /// The changes still waiting (not failed), oldest first; nil: every account's.
    func pendingFolderChanges(accountId: Account.ID?) async throws -> [PendingFolderChange]
    /// FR-ED-01 Undo: the change of `token` if it is still inside its window and was never tried; it
    /// is forgotten (nothing of it reached the server).
    func undoFolderChange(token: String, now: Date) async throws -> PendingFolderChange?
    /// The most recent folder change still inside its undo window.
    func latestUndoableFolderChange(now: Date) async throws -> UndoHold?
    /// The server accepted it, or it had nothing left to do.
    func completeFolderChange(_ id: PendingFolderChangeID) async throws
    func scheduleFolderChangeRetry(_ id: PendingFolderChangeID, attempts: Int, notBefore: Date, error: String) async throws
    /// The server refused it: kept as failed, with the server's words, and no longer laid over the list.
    func failFolderChange(_ id: PendingFolderChangeID, error: String, attempts: Int) async throws
}

/// The folder list as front ends show it while changes wait: the stored list with each pending
/// change laid over it, in the order they were made.
public enum PendingFolderChanges {
    public static func overlay(_ folders: [FolderSummary], _ changes: [PendingFolderChange], accounts: [Account.ID: AccountName]) -> [FolderSummary] {
        var result = folders
        for change in changes {
            guard let account = accounts[change.accountId] else { continue }
            switch change.change {
            case .create(let path):
                guard !result.contains(where: { $0.account == account && $0.path == path }) else { continue }
                result.append(FolderSummary(account: account, path: path, folderType: .custom, messageCount: 0, unreadCount: 0, lastSyncDate: nil))
            case .rename(let from, let to):
                for index in result.indices where result[index].account == account {
                    if let renamed = renamedPath(result[index].path, from: from, to: to) { result[index].path = renamed }
                }
            case .delete(let path):
                result.removeAll { $0.account == account && $0.path == path }
            }
        }
        return result
    }

    /// `path` under a rename of `from` to `to`: the folder itself, or one below it (the server's
    /// delimiter follows `from`); nil when the rename does not touch it.
    public static func renamedPath(_ path: String, from: String, to: String) -> String? {
        if path == from { return to }
        for delimiter in ["/", "."] where path.hasPrefix(from + delimiter) {
            return to + path.dropFirst(from.count)
        }
        return nil
    }

    /// The server path of a folder as the overlaid list names it (a pending rename's new name is its
    /// old one until the server has it); nil for a folder only created here so far.
    public static func storedPath(_ shown: String, account: Account.ID, _ changes: [PendingFolderChange]) -> String? {
        var path: String? = shown
        for change in changes.reversed() where change.accountId == account {
            guard let current = path else { return nil }
            switch change.change {
            case .create(let created): if current == created { path = nil }
            case .rename(let from, let to): path = renamedPath(current, from: to, to: from) ?? current
            case .delete: break
            }
        }
        return path
    }
}

/// What a folder change request did, and how to undo it while it can be.
public struct FolderChangeResult: Sendable, Hashable, Codable {
    /// The account's folder paths as they now show (with the change).
    public var folders: [String]
    /// Nil when it went to the server at once.
    public var undo: UndoHold?

    public init(folders: [String], undo: UndoHold?) {
        self.folders = folders
        self.undo = undo
    }
}

/// E-11 for folder changes: what was not done, and the server's reason.
public enum FolderChangeWording {
    public static func failure(_ change: FolderChange, _ error: any Error) -> String {
        let what =
            switch change {
            case .create(let path): "create the folder \(path)"
            case .rename(let from, let to): "rename the folder \(from) to \(to)"
            case .delete(let path): "delete the folder \(path)"
            }
        return "Couldn't \(what): \(error)"
    }
}
