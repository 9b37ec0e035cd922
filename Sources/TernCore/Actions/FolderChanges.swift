import Foundation

/// Issue 36: a change to the account's folders themselves.
public enum FolderChange: Sendable, Hashable {
    case create(path: String)
    case rename(from: String, to: String)
    case delete(path: String)
}

/// The IMAP side (the Sync module): CREATE, RENAME or DELETE on the server, then its LIST with
/// roles, which is what the store is reconciled to.
public protocol ServerFolderChanges: Sendable {
    func apply(_ change: FolderChange, account: Account, credentials: CredentialSupply) async throws -> [DiscoveredFolder]
}

/// The stored folders, as folder changes read and reconcile them.
public protocol FolderChangeStore: Sendable {
    func folders(accountId: Account.ID) async throws -> [Folder]
    /// The folder and those below it take the new name, keeping their messages and cursors, so the
    /// LIST that follows finds them under it (a server without MAILBOXID would otherwise look like
    /// a deletion and a creation, and every message be fetched again).
    func renameFolder(accountId: Account.ID, from: String, to: String) async throws
    func saveDiscoveredFolders(_ folders: [DiscoveredFolder], accountId: Account.ID, keepOrphans: Bool) async throws -> [Folder]
    /// The messages stored in the folder (nil id: none).
    func messageCount(folderId: FolderID?) async throws -> Int
}

/// Issue 36: create, rename and delete folders, each pushed with undo like archive (FR-ED-01):
/// `request` queues the change with the undo window's end, front ends show the folder list with it
/// laid over (the new folder there, the new name, the folder gone) at once, and the pusher makes it
/// on the server when the window has passed; only then does the store follow the server's LIST (a
/// folder's name is settled once the server has accepted it: it may refuse a name, a hierarchy, or
/// find it taken, and the change is then dropped and the refusal published; docs/decisions.md).
/// The special-use folders, and the Snoozed folder Tern keeps, cannot be renamed or deleted: other
/// clients and Tern itself rely on them. A folder holding messages is deleted only when the request
/// names their count (the server deletes them with it), and one with folders below it not at all.
public struct FolderChangesUseCase: Sendable {
    let accounts: any AccountRepository
    let credentials: AccountCredentials
    let store: any FolderChangeStore
    let server: any ServerFolderChanges
    let changes: ChangeFeed?
    let queue: (any PendingFolderChangeStore)?
    let clock: any WallClock

    public init(
        accounts: any AccountRepository, credentials: AccountCredentials, store: any FolderChangeStore, server: any ServerFolderChanges,
        changes: ChangeFeed? = nil, queue: (any PendingFolderChangeStore)? = nil, clock: any WallClock = SystemClock()
    ) {
        self.accounts = accounts
        self.credentials = credentials
        self.store = store
        self.server = server
        self.changes = changes
        self.queue = queue
        self.clock = clock
    }

    /// Made on the server now, without an undo window (Tern's own Snoozed folder; `--no-undo`): the
    /// account's folders after the change, as the server lists them.
    @discardableResult
    public func apply(_ change: FolderChange, account name: AccountName?) async throws -> [Folder] {
        let account = try await accounts.namedOrOnly(name)
        let folders = try await store.folders(accountId: account.id)
        try Self.check(change, against: folders)
        let saved = try await applyOnServer(change, account: account)
        changes?.publish(.threadsChanged(accountId: account.id))
        return saved
    }

    func applyOnServer(_ change: FolderChange, account: Account) async throws -> [Folder] {
        let listed = try await server.apply(change, account: account, credentials: credentials.supply(for: account))
        if case .rename(let from, let to) = change { try await store.renameFolder(accountId: account.id, from: from, to: to) }
        return try await store.saveDiscoveredFolders(listed, accountId: account.id, keepOrphans: account.provider == .gmail)
    }

    /// The change as the person asks for it: checked against the folders as they show (with the
    /// changes still waiting), then queued until `undoWindow` ends; nil or zero: made on the server
    /// now. `messagesConfirmed`: for a delete, the count of messages the person agreed to lose with
    /// the folder; a folder holding another number of messages is refused.
    public func request(
        _ change: FolderChange, account name: AccountName?, undoWindow: Duration?, messagesConfirmed: Int? = nil
    ) async throws -> FolderChangeResult {
        let account = try await accounts.namedOrOnly(name)
        let stored = try await store.folders(accountId: account.id)
        let waiting = try await queue?.pendingFolderChanges(accountId: account.id) ?? []
        let shown = Self.shownFolders(stored, waiting)
        try Self.check(change, against: shown)
        if case .delete(let path) = change, let folder = shown.first(where: { $0.path == path }) {
            try Self.checkDeletion(of: folder, in: shown, messages: try await store.messageCount(folderId: folder.id), confirmed: messagesConfirmed)
        }
        let now = clock.now()
        guard let queue, let window = undoWindow, window > .zero else {
            let saved = try await applyOnServer(change, account: account)
            changes?.publish(.threadsChanged(accountId: account.id))
            return FolderChangeResult(folders: Self.shownFolders(saved, waiting).map(\.path), undo: nil)
        }
        let hold = UndoHold(until: now.adding(window))
        let queued = try await queue.queueFolderChange(
            PendingFolderChange(accountId: account.id, change: change, notBefore: hold.until, createdDate: now, undoToken: hold.token))
        changes?.publish(.threadsChanged(accountId: account.id))
        return FolderChangeResult(folders: Self.shownFolders(stored, waiting + [queued]).map(\.path), undo: hold)
    }

    /// FR-ED-01 Undo for a folder change: forgotten if its window has not passed (nothing of it
    /// reached the server); nil when the token is not a folder change's or its window has passed.
    public func undo(_ token: String) async throws -> PendingFolderChange? {
        guard let queue, let undone = try await queue.undoFolderChange(token: token, now: clock.now()) else { return nil }
        changes?.publish(.threadsChanged(accountId: undone.accountId))
        return undone
    }

    /// The latest folder change still inside its undo window.
    public func latestUndoable() async throws -> UndoHold? {
        try await queue?.latestUndoableFolderChange(now: clock.now())
    }

    /// FR-SYNC-05: the account's due folder changes, oldest first, made on the server. A refusal
    /// (the name taken, no permission) drops the change, which the list then no longer shows, and is
    /// published; a dropped connection is retried on the schedule of the other changes.
    public func push(account: Account, credentials supply: CredentialSupply, ignoreBackoff: Bool = false) async throws -> OperationsReport {
        var report = OperationsReport()
        guard let queue else { return report }
        let now = clock.now()
        let pending = try await queue.pendingFolderChanges(accountId: account.id)
        for change in pending {
            guard let id = change.id else { continue }
            // In order, stopping at the first not due: a later change may name what an earlier one
            // creates or renames.
            guard (change.notBefore ?? .distantPast) <= now || (ignoreBackoff && change.undoToken == nil) else {
                report.nextDue = change.notBefore
                break
            }
            let attempts = change.attempts + 1
            do {
                let folders = try await store.folders(accountId: account.id)
                if Self.alreadyDone(change.change, in: folders) {
                    try await queue.completeFolderChange(id)
                } else {
                    try Self.check(change.change, against: folders)
                    let listed = try await server.apply(change.change, account: account, credentials: supply)
                    try await queue.completeFolderChange(id)
                    if case .rename(let from, let to) = change.change { try await store.renameFolder(accountId: account.id, from: from, to: to) }
                    _ = try await store.saveDiscoveredFolders(listed, accountId: account.id, keepOrphans: account.provider == .gmail)
                }
                report.done += 1
            } catch let error as TernError where Self.isPassing(error) && attempts <= PendingOperationProcessor.retryDelays.count {
                let next = now.adding(PendingOperationProcessor.retryDelays[attempts - 1])
                try await queue.scheduleFolderChangeRetry(id, attempts: attempts, notBefore: next, error: "\(error)")
                report.waiting += 1
                report.nextDue = [report.nextDue, next].compactMap { $0 }.min()
                break
            } catch {
                let text = FolderChangeWording.failure(change.change, error)
                try await queue.failFolderChange(id, error: text, attempts: attempts)
                report.failed.append(text)
                changes?.publish(.folderChangeFailed(accountId: account.id, text: text))
            }
            changes?.publish(.threadsChanged(accountId: account.id))
        }
        return report
    }

    /// A dropped connection or a busy server: worth another try.
    static func isPassing(_ error: TernError) -> Bool {
        switch error {
        case .connectionLost, .storeBusy: true
        default: false
        }
    }

    /// The server already shows the change (a push that died after the server's OK).
    static func alreadyDone(_ change: FolderChange, in folders: [Folder]) -> Bool {
        switch change {
        case .create(let path): folders.contains { $0.path == path }
        case .rename(let from, let to): !folders.contains { $0.path == from } && folders.contains { $0.path == to }
        case .delete(let path): !folders.contains { $0.path == path }
        }
    }

    /// The stored folders with the waiting changes laid over them, as the person sees them.
    static func shownFolders(_ stored: [Folder], _ waiting: [PendingFolderChange]) -> [Folder] {
        var result = stored
        for change in waiting where change.state == .pending {
            switch change.change {
            case .create(let path):
                if !result.contains(where: { $0.path == path }) {
                    result.append(Folder(accountId: change.accountId, path: path, folderType: .custom))
                }
            case .rename(let from, let to):
                for index in result.indices {
                    if let renamed = PendingFolderChanges.renamedPath(result[index].path, from: from, to: to) { result[index].path = renamed }
                }
            case .delete(let path):
                result.removeAll { $0.path == path }
            }
        }
        return result
    }

    /// A folder with folders below it is not deleted (servers differ: some refuse, some keep the
    /// children under a \Noselect parent); one holding messages only when their count was confirmed.
    static func checkDeletion(of folder: Folder, in folders: [Folder], messages: Int, confirmed: Int?) throws {
        if folders.contains(where: { $0.path != folder.path && PendingFolderChanges.renamedPath($0.path, from: folder.path, to: "") != nil }) {
            throw TernError.invalidInput("'\(folder.path)' holds other folders: delete or move those first")
        }
        if messages > 0, confirmed != messages {
            let held = "'\(folder.path)' holds \(messages) message\(messages == 1 ? "" : "s")"
            throw TernError.invalidInput("\(held), which the server deletes with it: confirm the count to delete it anyway")
        }
    }

    /// What is refused before the server is asked.
    static func check(_ change: FolderChange, against folders: [Folder]) throws {
        func existing(_ path: String) throws -> Folder {
            guard let folder = folders.first(where: { $0.path == path }) else { throw TernError.notFound("folder '\(path)'") }
            return folder
        }
        func valid(_ path: String) throws {
            let trimmed = path.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, trimmed == path else {
                throw TernError.invalidInput("a folder name cannot be empty or begin or end with a space")
            }
            guard !path.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == "*" || $0 == "%" }) else {
                throw TernError.invalidInput("a folder name cannot contain control characters, '*' or '%'")
            }
            guard path.caseInsensitiveCompare("INBOX") != .orderedSame else { throw TernError.alreadyExists("folder 'INBOX'") }
            guard !folders.contains(where: { $0.path == path }) else { throw TernError.alreadyExists("folder '\(path)'") }
        }
        func changeable(_ folder: Folder) throws {
            guard folder.folderType == .custom, SnoozedFolder.find(in: [folder]) == nil else {
                throw TernError.invalidInput("'\(folder.path)' is one of the account's special folders and is kept as it is")
            }
        }
        switch change {
        case .create(let path):
            try valid(path)
        case .rename(let from, let to):
            try changeable(try existing(from))
            try valid(to)
        case .delete(let path):
            try changeable(try existing(path))
        }
    }
}
