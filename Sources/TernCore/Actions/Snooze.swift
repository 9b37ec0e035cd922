import Foundation

/// Issue 36 Snooze: the wake time is an IMAP keyword on the message in the account's `Snoozed`
/// folder, `$SnoozedUntil<seconds since 1970>`, so every client that syncs the folder (a second
/// Tern on another machine) knows when it wakes, without METADATA or a record message
/// (docs/decisions.md).
public enum SnoozeKeyword {
    static let prefix = "$SnoozedUntil"

    public static func keyword(waking date: Date) -> String { prefix + String(Int64(date.timeIntervalSince1970.rounded(.up))) }

    /// Issue 36 "on top": set at the wake, in place of the wake keyword, and kept on the message in the
    /// Inbox, so every Tern that syncs it (not only the one that woke it) sorts its thread at that time.
    static let wokenPrefix = "$WokenAt"

    public static func wokenKeyword(at date: Date) -> String { wokenPrefix + String(Int64(date.timeIntervalSince1970.rounded(.down))) }

    /// When the message was woken, among a copy's server flags (the latest, should it have woken twice).
    public static func woken(in serverFlags: some Collection<String>) -> Date? {
        serverFlags.compactMap { flag -> Date? in
            guard flag.count > wokenPrefix.count, flag.lowercased().hasPrefix(wokenPrefix.lowercased()),
                let seconds = Int64(flag.dropFirst(wokenPrefix.count))
            else { return nil }
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }.max()
    }

    /// The wake time among a copy's server flags (the earliest, should another client have added a second).
    public static func wake(in serverFlags: String) -> Date? {
        serverFlags.split(separator: " ").compactMap { flag -> Date? in
            guard flag.count > prefix.count, flag.lowercased().hasPrefix(prefix.lowercased()),
                let seconds = Int64(flag.dropFirst(prefix.count))
            else { return nil }
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }.min()
    }
}

/// A message waiting in Snoozed, with when it wakes.
public struct SnoozedMessage: Sendable, Hashable {
    public var copy: EmailCopy
    public var threadId: ThreadID?
    public var subject: String
    public var wake: Date
    /// The keyword that says so on the server (removed at the wake).
    public var keyword: String

    public init(copy: EmailCopy, threadId: ThreadID?, subject: String, wake: Date, keyword: String) {
        self.copy = copy
        self.threadId = threadId
        self.subject = subject
        self.wake = wake
        self.keyword = keyword
    }
}

/// What the CLI and the web app list under Snoozed.
public struct SnoozedThread: Sendable, Hashable, Codable {
    public var account: AccountName
    public var threadId: ThreadID?
    public var emailId: EmailID
    public var subject: String
    public var wake: Date

    public init(account: AccountName, threadId: ThreadID?, emailId: EmailID, subject: String, wake: Date) {
        self.account = account
        self.threadId = threadId
        self.emailId = emailId
        self.subject = subject
        self.wake = wake
    }
}

/// The store's side of snooze.
public protocol SnoozeStore: Sendable {
    /// The copies in `folderId` (the account's Snoozed folder) carrying a wake keyword, with no
    /// change of theirs waiting.
    func snoozedMessages(folderId: FolderID) async throws -> [SnoozedMessage]
    /// The wake, in one transaction: each copy leaves Snoozed for `inbox` (a pending move), unread,
    /// its keyword removed (pending flag changes pushed before the move).
    func applyWake(_ messages: [SnoozedMessage], to inbox: FolderID, at date: Date) async throws
}

/// Whoever pushes an account's changes wakes its due snoozes first (`LocalChangesPusher`), so
/// `tern serve`, `tern sync --watch` and any command that pushes wake them, whichever runs.
public protocol SnoozeWaking: Sendable {
    /// How many messages woke.
    @discardableResult
    func wakeDue(account: Account) async throws -> Int
}

/// The name of the folder Tern keeps snoozed mail in (protected from rename and delete).
public enum SnoozedFolder {
    public static let name = "Snoozed"

    /// `Snoozed`, or `INBOX.Snoozed` where personal folders live under the Inbox (Cyrus).
    static func find(in folders: [Folder]) -> Folder? {
        folders.first { $0.path == name && $0.folderType == .custom }
            ?? folders.first { folder in folder.folderType == .custom && folder.delimiter.map { folder.path == "INBOX" + $0 + name } == true }
    }
}

/// Issue 36: `tern snooze ID --until WHEN` and the web app's Snooze: the conversation leaves the
/// Inbox for Snoozed (created on the server the first time) with its wake time as a keyword, undone
/// like archive; at that time it comes back to the Inbox, unread (`SnoozeWaker`).
public struct SnoozeUseCase: Sendable {
    let accounts: any AccountRepository
    let actions: MailActionsUseCase
    let folderChanges: FolderChangesUseCase
    let store: any SnoozeStore
    let clock: any WallClock

    public init(
        accounts: any AccountRepository, actions: MailActionsUseCase, folderChanges: FolderChangesUseCase, store: any SnoozeStore,
        clock: any WallClock = SystemClock()
    ) {
        self.accounts = accounts
        self.actions = actions
        self.folderChanges = folderChanges
        self.store = store
        self.clock = clock
    }

    /// `when`: as the person typed it, placed in `calendar` (their time zone).
    public func snooze(
        _ targets: [MailTarget], until when: String, calendar: Calendar = .current, folder: String? = nil, undoWindow: Duration? = nil
    ) async throws -> SnoozeResult {
        let wake: Date
        do {
            wake = try WhenExpression(when).date(now: clock.now(), calendar: calendar)
        } catch {
            throw TernError.invalidInput(error.description)
        }
        return try await snooze(targets, until: wake, folder: folder, undoWindow: undoWindow)
    }

    public func snooze(_ targets: [MailTarget], until wake: Date, folder: String? = nil, undoWindow: Duration? = nil) async throws -> SnoozeResult {
        guard wake > clock.now() else { throw TernError.invalidInput("that time has already passed") }
        let scope = try await actions.store.scope(of: targets, folderPath: folder, forFlags: false)
        var snoozed: [Account.ID: Folder] = [:]
        for accountId in Set(scope.copies.map(\.accountId)).sorted() {
            guard let account = try await accounts.account(id: accountId) else { continue }
            snoozed[accountId] = try await snoozedFolder(of: account)
        }
        let moving = scope.copies.filter { snoozed[$0.accountId]?.id != $0.folderId }
        let result = try await actions.transfer(
            .move, ActionScope(emailIds: scope.emailIds, copies: moving), to: snoozed, undoWindow: undoWindow,
            keyword: SnoozeKeyword.keyword(waking: wake))
        return SnoozeResult(removal: result, wake: wake)
    }

    /// Snoozed messages of the account named (every account when nil), soonest first.
    public func list(account name: AccountName?) async throws -> [SnoozedThread] {
        var found: [SnoozedThread] = []
        for account in try await accounts.allAccounts() where name == nil || account.name == name {
            guard let folder = SnoozedFolder.find(in: try await actions.store.folders(accountId: account.id)), let id = folder.id else { continue }
            found += try await store.snoozedMessages(folderId: id).map {
                SnoozedThread(account: account.name, threadId: $0.threadId, emailId: $0.copy.emailId, subject: $0.subject, wake: $0.wake)
            }
        }
        return found.sorted { $0.wake < $1.wake }
    }

    /// The account's Snoozed folder, created on the server when it has none.
    func snoozedFolder(of account: Account) async throws -> Folder {
        if let found = SnoozedFolder.find(in: try await actions.store.folders(accountId: account.id)) { return found }
        let folders = try await folderChanges.apply(.create(path: SnoozedFolder.name), account: account.name)
        guard let created = SnoozedFolder.find(in: folders) else { throw TernError.serverFailure("the server did not keep the folder 'Snoozed'") }
        return created
    }
}

/// What a snooze did, and until when.
public struct SnoozeResult: Sendable, Hashable, Codable {
    public var removal: RemovalResult
    public var wake: Date
}

/// Wakes what is due: applied in the store as pending changes, which the same push sends.
public struct SnoozeWaker: SnoozeWaking {
    let store: any SnoozeStore
    let folders: any MailActionStore
    let changes: ChangeFeed?
    let clock: any WallClock

    public init(store: any SnoozeStore, folders: any MailActionStore, changes: ChangeFeed? = nil, clock: any WallClock = SystemClock()) {
        self.store = store
        self.folders = folders
        self.changes = changes
        self.clock = clock
    }

    public func wakeDue(account: Account) async throws -> Int {
        let folders = try await folders.folders(accountId: account.id)
        guard let snoozed = SnoozedFolder.find(in: folders)?.id, let inbox = folders.first(where: { $0.folderType == .inbox })?.id else { return 0 }
        let now = clock.now()
        let due = try await store.snoozedMessages(folderId: snoozed).filter { $0.wake <= now }
        guard !due.isEmpty else { return 0 }
        try await store.applyWake(due, to: inbox, at: now)
        changes?.publish(.threadsChanged(accountId: account.id))
        return due.count
    }
}
