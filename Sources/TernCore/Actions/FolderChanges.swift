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
}

/// Issue 36: create, rename and delete folders. Unlike a message action these are not queued: a
/// folder's name is only settled once the server has accepted it (it may refuse a name, a
/// hierarchy, or find it taken), so the change is made on the server first and the store follows
/// the server's LIST (docs/decisions.md). The special-use folders, and the Snoozed folder Tern
/// keeps, cannot be renamed or deleted: other clients and Tern itself rely on them.
public struct FolderChangesUseCase: Sendable {
    let accounts: any AccountRepository
    let credentials: AccountCredentials
    let store: any FolderChangeStore
    let server: any ServerFolderChanges
    let changes: ChangeFeed?

    public init(
        accounts: any AccountRepository, credentials: AccountCredentials, store: any FolderChangeStore, server: any ServerFolderChanges,
        changes: ChangeFeed? = nil
    ) {
        self.accounts = accounts
        self.credentials = credentials
        self.store = store
        self.server = server
        self.changes = changes
    }

    /// The account's folders after the change, as the server lists them.
    @discardableResult
    public func apply(_ change: FolderChange, account name: AccountName?) async throws -> [Folder] {
        let account = try await accounts.namedOrOnly(name)
        let folders = try await store.folders(accountId: account.id)
        try Self.check(change, against: folders)
        let listed = try await server.apply(change, account: account, credentials: credentials.supply(for: account))
        if case .rename(let from, let to) = change { try await store.renameFolder(accountId: account.id, from: from, to: to) }
        let saved = try await store.saveDiscoveredFolders(listed, accountId: account.id, keepOrphans: account.provider == .gmail)
        changes?.publish(.threadsChanged(accountId: account.id))
        return saved
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
