import Foundation

/// Pushes an account's due operations to the server in one batch, and applies each outcome:
/// done, retried on FR-SYNC-05's schedule, or given up and reverted to the server's state.
public struct PendingOperationProcessor: Sendable {
    let store: any MailActionStore
    let server: any ServerMailActions
    let clock: any WallClock

    /// FR-SYNC-05: retries after 5 s, 15 s and 45 s; after the third, the change is reverted.
    public static let retryDelays: [Duration] = [.seconds(5), .seconds(15), .seconds(45)]
    /// Gmail files every message sent through its SMTP in Sent by itself: Tern looks for it this many
    /// times (following the retry delays) before appending a copy of its own.
    public static let gmailSentChecks = 3

    public init(store: any MailActionStore, server: any ServerMailActions, clock: any WallClock = SystemClock()) {
        self.store = store
        self.server = server
        self.clock = clock
    }

    /// `ignoreBackoff`: the user asked to try now; attempts still count.
    public func process(account: Account, credentials: CredentialSupply, ignoreBackoff: Bool = false) async throws -> OperationsReport {
        let now = clock.now()
        let pending = try await store.pendingOperations(accountId: account.id)
        // An archive or delete inside its undo window waits even for "try now": Undo must find nothing sent.
        let due = pending.filter { ($0.notBefore ?? .distantPast) <= now || (ignoreBackoff && $0.undoToken == nil) }
        var report = OperationsReport()
        report.nextDue = pending.filter { !due.contains($0) }.compactMap(\.notBefore).min()
        guard !due.isEmpty else { return report }

        let mailboxes = MailboxRoles(folders: try await store.folders(accountId: account.id))
        var actions: [ServerOperation] = []
        var byId: [PendingChangeID: PendingOperation] = [:]
        var targetFolders: [PendingChangeID: FolderID] = [:]
        for operation in due {
            guard let id = operation.id else { continue }
            byId[id] = operation
            switch try await action(for: operation, account: account, mailboxes: mailboxes) {
            case .perform(let action, let target):
                actions.append(ServerOperation(id: id, action: action, uidValidity: operation.uidValidity))
                if let target { targetFolders[id] = target }
            case .nothingToDo:
                try await store.complete(operation, newUID: nil, targetFolderId: nil)
                report.done += 1
            case .impossible(let reason):
                try await store.fail(operation, error: reason, attempts: operation.attempts + 1)
                report.failed.append(reason)
                report.failedOperationIds.append(id)
                report.failedEmailIds.insert(operation.emailId)
            }
        }
        guard !actions.isEmpty else { return report }

        var outcomes: [PendingChangeID: ServerOperationOutcome] = [:]
        var connectionError: String?
        var needsPerson = false
        do {
            outcomes = try await server.perform(actions, account: account, credentials: credentials)
        } catch {
            connectionError = String(describing: error)
            needsPerson = (error as? TernError)?.needsPerson == true
        }
        for action in actions {
            guard let operation = byId[action.id] else { continue }
            // Issue 33: a refused sign-in is not retried as a dropped connection (each retry another
            // failed login); the change fails now, listed by `tern changes` to retry after signing in.
            let unanswered: ServerOperationOutcome =
                needsPerson
                ? .refused(connectionError ?? "")
                : .deferred(connectionError ?? "the server did not answer")
            let outcome = outcomes[action.id] ?? unanswered
            let attempts = operation.attempts + 1
            switch outcome {
            case .done(let uid):
                try await store.complete(operation, newUID: uid, targetFolderId: targetFolders[action.id])
                report.done += 1
            case .refused(let text):
                try await store.fail(operation, error: text, attempts: attempts)
                report.failed.append(text)
                report.failedOperationIds.append(action.id)
                report.failedEmailIds.insert(operation.emailId)
            case .folderReset:
                try await store.fail(operation, error: PendingOperation.folderResetNote, attempts: attempts)
                report.failed.append(PendingOperation.folderResetNote)
                report.failedOperationIds.append(action.id)
                report.failedEmailIds.insert(operation.emailId)
            case .deferred(let text):
                if attempts > Self.retryDelays.count {
                    try await store.fail(operation, error: text, attempts: attempts)
                    report.failed.append(text)
                    report.failedOperationIds.append(action.id)
                    report.failedEmailIds.insert(operation.emailId)
                } else {
                    let next = now.adding(Self.retryDelays[attempts - 1])
                    try await store.scheduleRetry(action.id, attempts: attempts, notBefore: next, error: text)
                    report.waiting += 1
                    report.nextDue = min(report.nextDue ?? next, next)
                }
            }
        }
        return report
    }

    enum Plan {
        case perform(ServerOperation.Action, targetFolderId: FolderID?)
        case nothingToDo
        case impossible(String)
    }

    func action(for operation: PendingOperation, account: Account, mailboxes: MailboxRoles) async throws -> Plan {
        let source = operation.folderId.flatMap { mailboxes.byId[$0] }
        // The folder was reset since the change was made (sync saw a new UIDVALIDITY): its UID is
        // meaningless now, and the server is not even asked.
        if let source, operation.kind != .fileSentCopy, source.uidValidity != operation.uidValidity {
            return .impossible(PendingOperation.folderResetNote)
        }
        switch operation.kind {
        case .addFlag, .removeFlag:
            guard let source, let uid = operation.imapUID, let flag = operation.flag else { return .nothingToDo }
            return .perform(.store(flag: flag, add: operation.kind == .addFlag, mailbox: source.path, uid: uid), targetFolderId: nil)
        case .archive:
            guard let source, let uid = operation.imapUID else { return .nothingToDo }
            // FR-SYNC-10: to \All, else \Archive; a server with neither gets an "Archive" mailbox in the
            // user's namespace (docs/decisions.md).
            let target = mailboxes.archive
            if source.folderType == .all || source.id == target?.id { return .nothingToDo }
            return .perform(
                .move(mailbox: source.path, uid: uid, to: target?.path ?? "Archive", createTarget: target == nil),
                targetFolderId: target?.id)
        case .delete:
            guard let source, let uid = operation.imapUID else { return .nothingToDo }
            if source.folderType == .trash { return .perform(.expunge(mailbox: source.path, uid: uid), targetFolderId: nil) }
            let trash = mailboxes.trash
            return .perform(
                .move(mailbox: source.path, uid: uid, to: trash?.path ?? "Trash", createTarget: trash == nil),
                targetFolderId: trash?.id)
        case .move, .copy:
            guard let source, let uid = operation.imapUID else { return .nothingToDo }
            // Issue 36: the destination was deleted (here or by another client) since the change was made.
            guard let target = operation.targetFolderId.flatMap({ mailboxes.byId[$0] }) else {
                return .impossible("the destination folder no longer exists")
            }
            if source.id == target.id { return .nothingToDo }
            let action: ServerOperation.Action =
                operation.kind == .move
                ? .move(mailbox: source.path, uid: uid, to: target.path, createTarget: false)
                : .copy(mailbox: source.path, uid: uid, to: target.path)
            return .perform(action, targetFolderId: target.id)
        case .fileSentCopy:
            guard let message = try await store.sentMessage(emailId: operation.emailId) else { return .nothingToDo }
            let sent = mailboxes.sent
            let confirmOnly = account.provider == .gmail && operation.attempts < Self.gmailSentChecks
            return .perform(.fileSentCopy(message: message, sentMailbox: sent?.path, confirmOnly: confirmOnly), targetFolderId: sent?.id)
        }
    }
}

/// What one push did.
public struct OperationsReport: Sendable, Hashable, Codable {
    public var done = 0
    /// Failed now and retried later.
    public var waiting = 0
    /// Given up (and reverted), with the errors.
    public var failed: [String] = []
    /// The operations given up, for the change feed's "Couldn't … Tap to retry".
    public var failedOperationIds: [PendingChangeID] = []
    /// The messages those operations were for: what the user asked for that did not happen.
    public var failedEmailIds: Set<EmailID> = []
    /// When the earliest waiting operation is due.
    public var nextDue: Date?

    public init() {}
}

/// The mailboxes actions need, by role (RFC 6154 special use).
struct MailboxRoles {
    let byId: [FolderID: Folder]
    let archive: Folder?
    let trash: Folder?
    let sent: Folder?

    init(folders: [Folder]) {
        var byId: [FolderID: Folder] = [:]
        for folder in folders { if let id = folder.id { byId[id] = folder } }
        self.byId = byId
        // FR-SYNC-10: Gmail's All Mail, else the server's Archive (marked, or named so: SpecialUseInference).
        archive = folders.first { $0.folderType == .all } ?? folders.first { $0.folderType == .archive }
        trash = folders.first { $0.folderType == .trash }
        sent = folders.first { $0.folderType == .sent }
    }
}
