import Foundation

/// Issue 36 Folders: move threads or messages to any folder, and "Label as…" (a copy in another
/// folder where the layout is labels, as on Gmail). Both are archive's shape: applied locally at
/// once, pushed as pending operations after the undo window, undone by `undo`, reverted and
/// published when the server refuses.
extension MailActionsUseCase {
    /// `folder`: the folder being looked at (nil: the Inbox for a thread, the only folder of a
    /// message). Copies already in `destination` stay where they are.
    public func move(
        _ targets: [MailTarget], to destination: String, folder: String? = nil, undoWindow: Duration? = nil
    ) async throws -> RemovalResult {
        let scope = try await store.scope(of: targets, folderPath: folder, forFlags: false)
        let targetFolders = try await destinationFolders(destination, accounts: Set(scope.copies.map(\.accountId)))
        let moving = scope.copies.filter { targetFolders[$0.accountId]?.id != $0.folderId }
        return try await transfer(.move, ActionScope(emailIds: scope.emailIds, copies: moving), to: targetFolders, undoWindow: undoWindow)
    }

    /// "Label as…": each message gets a copy in `label` (one `UID COPY` from one of its folders:
    /// the one being looked at when given, else the Inbox, else any); messages already there are left alone.
    public func label(
        _ targets: [MailTarget], adding label: String, folder: String? = nil, undoWindow: Duration? = nil
    ) async throws -> RemovalResult {
        let all = try await store.scope(of: targets, folderPath: nil, forFlags: true)
        let targetFolders = try await destinationFolders(label, accounts: Set(all.copies.map(\.accountId)))
        var sources: [EmailCopy] = []
        for emailId in all.emailIds {
            let copies = all.copies.filter { $0.emailId == emailId }
            guard let first = copies.first, !copies.contains(where: { targetFolders[$0.accountId]?.id == $0.folderId }) else { continue }
            let chosen = copies.first { $0.folderPath == folder } ?? copies.first { $0.folderType == .inbox } ?? first
            sources.append(chosen)
        }
        return try await transfer(.copy, ActionScope(emailIds: all.emailIds, copies: sources), to: targetFolders, undoWindow: undoWindow)
    }

    func transfer(
        _ kind: PendingOperation.Kind, _ scope: ActionScope, to targetFolders: [Account.ID: Folder], undoWindow: Duration?,
        keyword: String? = nil
    ) async throws -> RemovalResult {
        let now = clock.now()
        let hold = undoWindow.flatMap { $0 > .zero ? UndoHold(until: now.adding($0)) : nil }
        for (accountId, target) in targetFolders.sorted(by: { $0.key < $1.key }) {
            guard let targetId = target.id else { continue }
            let copies = scope.copies.filter { $0.accountId == accountId }
            guard !copies.isEmpty else { continue }
            try await store.applyTransfer(kind, of: copies, to: targetId, at: now, undo: hold, keyword: keyword)
        }
        publishChanged(scope)
        guard let hold, !scope.copies.isEmpty else { return RemovalResult(action: try await push(scope), undo: nil) }
        return RemovalResult(
            action: ActionResult(messages: scope.emailIds.count, copies: scope.copies.count, waiting: scope.copies.count),
            undo: hold)
    }

    /// The folder named `path` in each account (the Inbox matched without case, RFC 9051 section 5.1).
    func destinationFolders(_ path: String, accounts: Set<Account.ID>) async throws -> [Account.ID: Folder] {
        var found: [Account.ID: Folder] = [:]
        for accountId in accounts {
            let folders = try await store.folders(accountId: accountId)
            let isInbox = path.caseInsensitiveCompare("INBOX") == .orderedSame
            guard let folder = folders.first(where: { $0.path == path || (isInbox && $0.folderType == .inbox) }) else {
                throw TernError.notFound("folder '\(path)'")
            }
            guard folder.folderType != .container else { throw TernError.invalidInput("'\(path)' holds folders, not messages") }
            found[accountId] = folder
        }
        return found
    }
}
