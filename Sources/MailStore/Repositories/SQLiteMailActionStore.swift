import Foundation
import GRDB
import TernCore

/// `MailActionStore` on the local database: each optimistic change and the operation that pushes it
/// in one transaction; thread metadata and per-folder lists refreshed with them.
public struct SQLiteMailActionStore: MailActionStore {
    let database: TernDatabase

    public init(database: TernDatabase) { self.database = database }

    public func scope(of targets: [MailTarget], folderPath: String?, forFlags: Bool) async throws -> ActionScope {
        try await database.writer.read { db in
            var emailIds: [EmailID] = []
            var seen: Set<EmailID> = []
            var copies: [EmailCopy] = []
            for target in targets {
                let ids: [EmailID]
                switch target {
                case .thread(let id):
                    ids = try EmailID.fetchAll(db, sql: "SELECT id FROM email WHERE threadId = ? ORDER BY dateReceived", arguments: [id])
                    guard !ids.isEmpty else { throw TernError.notFound("thread \(id)") }
                case .message(let id):
                    guard try Email.exists(db, key: id) else { throw TernError.notFound("message \(id)") }
                    ids = [id]
                }
                let all = try Self.copies(of: ids, db: db)
                emailIds += ids.filter { seen.insert($0).inserted }
                // A flag belongs to the message, not to the folder it is viewed in: every copy gets it.
                copies += forFlags ? all : try Self.removalCopies(all, target: target, folderPath: folderPath)
            }
            return ActionScope(emailIds: emailIds, copies: copies)
        }
    }

    public func writtenByAccount(_ emailIds: [EmailID]) async throws -> Set<EmailID> {
        guard !emailIds.isEmpty else { return [] }
        return try await database.writer.read { db in
            let own = Dictionary(uniqueKeysWithValues: try Account.fetchAll(db).map { ($0.id, $0.ownAddresses) })
            let rows = try Row.fetchAll(
                db, sql: "SELECT id, accountId, fromAddress FROM email WHERE id IN (\(databaseQuestionMarks(count: emailIds.count)))",
                arguments: StatementArguments(emailIds))
            return Set(
                rows.compactMap { row -> EmailID? in
                    let address: String = row["fromAddress"]
                    return own[row["accountId"] as AccountID]?.contains(address.lowercased()) == true ? row["id"] : nil
                })
        }
    }

    /// FR-ED-01: archive and delete act on the folder being viewed. Given, that folder; implied, the
    /// Inbox for a thread, or the only folder of a message.
    static func removalCopies(_ all: [EmailCopy], target: MailTarget, folderPath: String?) throws -> [EmailCopy] {
        if let folderPath {
            let inFolder = all.filter { $0.folderPath == folderPath }
            guard !inFolder.isEmpty else { throw TernError.notFound("\(target.label) has nothing in folder '\(folderPath)'") }
            return inFolder
        }
        switch target {
        case .thread:
            let inInbox = all.filter { $0.folderType == .inbox }
            guard !inInbox.isEmpty else {
                throw TernError.folderNeeded(target: target.label, folders: Self.folderPaths(all))
            }
            return inInbox
        case .message:
            let folders = Set(all.map(\.folderId))
            if folders.count == 1 { return all }
            let inInbox = all.filter { $0.folderType == .inbox }
            if !inInbox.isEmpty { return inInbox }
            throw TernError.folderNeeded(target: target.label, folders: Self.folderPaths(all))
        }
    }

    static func folderPaths(_ copies: [EmailCopy]) -> [String] {
        Array(Set(copies.map(\.folderPath))).sorted()
    }

    static func copies(of emailIds: [EmailID], db: Database) throws -> [EmailCopy] {
        guard !emailIds.isEmpty else { return [] }
        return try Row.fetchAll(
            db,
            sql: """
                SELECT ef.emailId, e.accountId, ef.folderId, f.path, f.folderType, ef.imapUID, ef.serverFlags, ef.modSeq
                FROM emailFolder ef JOIN email e ON e.id = ef.emailId JOIN folder f ON f.id = ef.folderId
                WHERE ef.emailId IN (\(databaseQuestionMarks(count: emailIds.count)))
                ORDER BY ef.emailId, f.path
                """, arguments: StatementArguments(emailIds)
        ).map { row in
            EmailCopy(
                emailId: row["emailId"], accountId: row["accountId"], folderId: row["folderId"], folderPath: row["path"],
                folderType: FolderType(rawValue: row["folderType"]) ?? .custom, uid: row["imapUID"], serverFlags: row["serverFlags"],
                modSeq: row["modSeq"])
        }
    }

    public func applyFlagChange(_ change: FlagChange, to scope: ActionScope, at date: Date) async throws {
        try await database.writer.write { db in
            let column = ServerFlags.column(for: change.flag)
            var threads: Set<ThreadID> = []
            for emailId in scope.emailIds {
                if let column { try db.execute(sql: "UPDATE email SET \(column) = ? WHERE id = ?", arguments: [change.adds, emailId]) }
                if let thread = try ThreadID.fetchOne(db, sql: "SELECT threadId FROM email WHERE id = ?", arguments: [emailId]) {
                    threads.insert(thread)
                }
            }
            for copy in scope.copies {
                // The newest intent wins over an older one still waiting (or failed) for this copy.
                try db.execute(
                    sql: """
                        DELETE FROM pendingOperation WHERE folderId = ? AND imapUID = ? AND flag = ? AND kind IN ('addFlag', 'removeFlag')
                        """, arguments: [copy.folderId, copy.uid, change.flag])
                guard ServerFlags.contains(copy.serverFlags, change.flag) != change.adds,
                    let stored = try Self.storedCopy(copy, db: db)
                else { continue }
                var operation = PendingOperation(
                    accountId: copy.accountId, kind: change.adds ? .addFlag : .removeFlag, flag: change.flag,
                    emailId: copy.emailId, folderId: copy.folderId, imapUID: copy.uid,
                    uidValidity: stored.uidValidity, serverFlags: copy.serverFlags, modSeq: copy.modSeq,
                    createdDate: date)
                try operation.insert(db)
            }
            for thread in threads { try SQLiteMessageStore.refresh(thread: thread, db: db) }
        }
    }

    public func applyRemoval(_ kind: PendingOperation.Kind, of copies: [EmailCopy], at date: Date, undo: UndoHold?) async throws {
        try await database.writer.write { db in
            var threads: Set<ThreadID> = []
            for copy in copies {
                guard let stored = try Self.storedCopy(copy, db: db) else { continue }
                try Self.removeCopy(folderId: copy.folderId, uid: copy.uid, db: db)
                var operation = PendingOperation(
                    accountId: copy.accountId, kind: kind, emailId: copy.emailId, folderId: copy.folderId,
                    imapUID: copy.uid, uidValidity: stored.uidValidity, serverFlags: copy.serverFlags,
                    modSeq: copy.modSeq, notBefore: undo?.until, createdDate: date, undoToken: undo?.token)
                try operation.insert(db)
                if kind == .delete { try db.execute(sql: "UPDATE email SET deletedDate = ? WHERE id = ?", arguments: [date, copy.emailId]) }
                if let thread = try ThreadID.fetchOne(db, sql: "SELECT threadId FROM email WHERE id = ?", arguments: [copy.emailId]) {
                    threads.insert(thread)
                }
            }
            for thread in threads { try SQLiteMessageStore.refresh(thread: thread, db: db) }
        }
    }

    public func applyTransfer(
        _ kind: PendingOperation.Kind, of copies: [EmailCopy], to target: FolderID, at date: Date, undo: UndoHold?, keyword: String?
    ) async throws {
        try await database.writer.write { db in
            var threads: Set<ThreadID> = []
            for copy in copies {
                guard let stored = try Self.storedCopy(copy, db: db) else { continue }
                if kind.removesCopy { try Self.removeCopy(folderId: copy.folderId, uid: copy.uid, db: db) }
                if let keyword {
                    // Pushed before the move (flag changes go first in a batch), so the keyword travels with it.
                    var mark = PendingOperation(
                        accountId: copy.accountId, kind: .addFlag, flag: keyword, emailId: copy.emailId, folderId: copy.folderId,
                        imapUID: copy.uid, uidValidity: stored.uidValidity, serverFlags: copy.serverFlags, modSeq: copy.modSeq,
                        notBefore: undo?.until, createdDate: date, undoToken: undo?.token)
                    try mark.insert(db)
                }
                // The move's `flag`: the keyword its new copy arrives with (recorded on it at `complete`).
                var operation = PendingOperation(
                    accountId: copy.accountId, kind: kind, flag: keyword, emailId: copy.emailId, folderId: copy.folderId,
                    imapUID: copy.uid, uidValidity: stored.uidValidity, serverFlags: copy.serverFlags,
                    modSeq: copy.modSeq, notBefore: undo?.until, createdDate: date, undoToken: undo?.token, targetFolderId: target)
                try operation.insert(db)
                if let thread = try ThreadID.fetchOne(db, sql: "SELECT threadId FROM email WHERE id = ?", arguments: [copy.emailId]) {
                    threads.insert(thread)
                }
            }
            for thread in threads { try SQLiteMessageStore.refresh(thread: thread, db: db) }
        }
    }

    public func undoRemoval(token: String, now: Date) async throws -> [ThreadID] {
        try await database.writer.write { db in
            // Only what is still inside its window and was never tried: nothing of it reached the server.
            let operations = try PendingOperation.fetchAll(
                db,
                sql: """
                    SELECT * FROM pendingOperation
                    WHERE undoToken = ? AND state = 'pending' AND attempts = 0
                        AND kind IN ('archive', 'delete', 'move', 'copy', 'addFlag', 'removeFlag')
                        AND notBefore > ?
                    """, arguments: [token, now])
            var threads: Set<ThreadID> = []
            for operation in operations {
                try Self.revert(operation, db: db)
                _ = try PendingOperation.deleteOne(db, key: operation.id)
                if let thread = try ThreadID.fetchOne(db, sql: "SELECT threadId FROM email WHERE id = ?", arguments: [operation.emailId]) {
                    threads.insert(thread)
                }
            }
            return threads.sorted()
        }
    }

    public func latestUndoableRemoval(now: Date) async throws -> UndoHold? {
        try await database.writer.read { db in try UndoHold.latest(in: "pendingOperation", db, now: now) }
    }

    /// The copy as this transaction sees it, with its folder's UIDVALIDITY: nil when it is gone since
    /// the scope was read (a sync removed it, or reset the folder, and its UID may be another
    /// message's now), so no change is queued against that UID.
    static func storedCopy(_ copy: EmailCopy, db: Database) throws -> StoredCopy? {
        try Row.fetchOne(
            db,
            sql: """
                SELECT f.uidValidity FROM emailFolder ef JOIN folder f ON f.id = ef.folderId
                WHERE ef.folderId = ? AND ef.imapUID = ? AND ef.emailId = ?
                """, arguments: [copy.folderId, copy.uid, copy.emailId]
        ).map { StoredCopy(uidValidity: $0["uidValidity"]) }
    }

    struct StoredCopy {
        var uidValidity: Int64?
    }

    /// Whether the operation's UID still belongs to its folder's current UIDVALIDITY.
    static func isCurrent(_ operation: PendingOperation, db: Database) throws -> Bool {
        guard let folderId = operation.folderId else { return true }
        let folder = try Row.fetchOne(db, sql: "SELECT uidValidity FROM folder WHERE id = ?", arguments: [folderId])
        return folder?["uidValidity"] as Int64? == operation.uidValidity
    }

    /// The copy leaves its folder; flag pushes aimed at it go with it.
    static func removeCopy(folderId: FolderID, uid: Int64, db: Database) throws {
        try db.execute(sql: "DELETE FROM emailFolder WHERE folderId = ? AND imapUID = ?", arguments: [folderId, uid])
        try db.execute(
            sql: """
                DELETE FROM pendingOperation WHERE folderId = ? AND imapUID = ? AND kind IN ('addFlag', 'removeFlag')
                """, arguments: [folderId, uid])
    }

    public func pendingOperations(accountId: Account.ID) async throws -> [PendingOperation] {
        try await database.writer.read { db in
            try PendingOperation.fetchAll(
                db, sql: "SELECT * FROM pendingOperation WHERE accountId = ? AND state = 'pending' ORDER BY id",
                arguments: [accountId])
        }
    }

    public func folders(accountId: Account.ID) async throws -> [Folder] {
        try await database.writer.read { db in try Folder.filter(Column("accountId") == accountId).order(Column("path")).fetchAll(db) }
    }

    public func sentMessage(emailId: EmailID) async throws -> OutgoingSubmission? {
        try await database.writer.read { db in try SQLiteOutboxStore.submission(emailId: emailId, db: db) }
    }

    public func complete(_ operation: PendingOperation, newUID: Int64?, targetFolderId: FolderID?) async throws {
        try await database.writer.write { db in
            guard let id = operation.id, try PendingOperation.exists(db, key: id) else { return }
            try db.execute(sql: "DELETE FROM pendingOperation WHERE id = ?", arguments: [id])
            switch operation.kind {
            case .addFlag, .removeFlag:
                guard let folderId = operation.folderId, let uid = operation.imapUID, let flag = operation.flag else { return }
                if let flags = try String.fetchOne(
                    db, sql: "SELECT serverFlags FROM emailFolder WHERE folderId = ? AND imapUID = ?",
                    arguments: [folderId, uid])
                {
                    try db.execute(
                        sql: "UPDATE emailFolder SET serverFlags = ? WHERE folderId = ? AND imapUID = ?",
                        arguments: [ServerFlags.setting(flags, flag, operation.kind == .addFlag), folderId, uid])
                }
            case .archive, .delete, .move, .copy:
                guard let email = try Email.fetchOne(db, key: operation.emailId) else { return }
                if let targetFolderId, let newUID, let target = try Folder.fetchOne(db, key: targetFolderId), target.folderType.isSyncable {
                    // FR-SYNC-10: the moved copy is where the server says (COPYUID), so Trash (or the
                    // folder moved or labelled to, issue 36) shows it before its next sync; a move's
                    // `flag` is the keyword it was given on the way (snooze's wake time).
                    let flags =
                        operation.kind == .move && operation.flag != nil
                        ? ServerFlags.setting(operation.serverFlags ?? "", operation.flag!, true) : operation.serverFlags ?? ""
                    try db.execute(
                        sql: """
                            INSERT INTO emailFolder (emailId, folderId, imapUID, serverFlags) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING
                            """, arguments: [email.id, targetFolderId, newUID, flags])
                } else if targetFolderId == nil, operation.kind == .delete {
                    // Deleted from Trash: permanent. Gone locally once no synced folder holds it.
                    let remaining = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM emailFolder WHERE emailId = ?", arguments: [email.id]) ?? 0
                    if remaining == 0 { try SQLiteMessageStore.delete(email, db: db) }
                }
                if let thread = email.threadId { try SQLiteMessageStore.refresh(thread: thread, db: db) }
            case .fileSentCopy:
                if let targetFolderId, let newUID {
                    try db.execute(
                        sql: """
                            INSERT INTO emailFolder (emailId, folderId, imapUID, serverFlags) VALUES (?, ?, ?, '\\Seen') ON CONFLICT DO NOTHING
                            """, arguments: [operation.emailId, targetFolderId, newUID])
                }
                // The server keeps the copy now; the local bytes were only needed until here.
                try db.execute(sql: "DELETE FROM outgoingMessage WHERE emailId = ?", arguments: [operation.emailId])
                if let thread = try ThreadID.fetchOne(db, sql: "SELECT threadId FROM email WHERE id = ?", arguments: [operation.emailId]) {
                    try SQLiteMessageStore.refresh(thread: thread, db: db)
                }
            }
        }
    }

    public func scheduleRetry(_ operationId: PendingChangeID, attempts: Int, notBefore: Date, error: String) async throws {
        try await database.writer.write { db in
            try db.execute(
                sql: "UPDATE pendingOperation SET attempts = ?, notBefore = ?, lastError = ? WHERE id = ?",
                arguments: [attempts, notBefore, error, operationId])
        }
    }

    public func fail(_ operation: PendingOperation, error: String, attempts: Int) async throws {
        try await database.writer.write { db in
            guard let id = operation.id, try PendingOperation.exists(db, key: id) else { return }
            try db.execute(
                sql: "UPDATE pendingOperation SET state = 'failed', attempts = ?, notBefore = NULL, lastError = ? WHERE id = ?",
                arguments: [attempts, error, id])
            try Self.revert(operation, db: db)
        }
    }

    /// The folder's UIDVALIDITY changed (its sync saw a new one): every change still waiting on it
    /// named its message by a UID that now means nothing, or another message. Each is cancelled as
    /// a push would have given it up (reverted, kept as failed with the reason), rather than
    /// re-mapped: the message may be gone, and the person sees what did not happen (docs/decisions.md).
    static func cancelStaleOperations(folderId: FolderID, db: Database) throws {
        let stale = try PendingOperation.fetchAll(
            db,
            sql: """
                SELECT p.* FROM pendingOperation p JOIN folder f ON f.id = p.folderId
                WHERE p.folderId = ? AND p.state = 'pending' AND p.uidValidity IS NOT f.uidValidity
                """, arguments: [folderId])
        for operation in stale {
            try db.execute(
                sql: "UPDATE pendingOperation SET state = 'failed', attempts = attempts + 1, notBefore = NULL, lastError = ? WHERE id = ?",
                arguments: [PendingOperation.folderResetNote, operation.id])
            try revert(operation, db: db)
        }
    }

    /// FR-SYNC-05: the local state goes back to the server's. A change whose folder was reset since
    /// (a new UIDVALIDITY) puts back no copy under its old UID, which may be another message's now:
    /// the folder's next sync brings the message back if the server still has it.
    static func revert(_ operation: PendingOperation, db: Database) throws {
        let current = try isCurrent(operation, db: db)
        switch operation.kind {
        case .addFlag, .removeFlag:
            guard let flag = operation.flag else { return }
            let stored =
                current
                ? try String.fetchOne(
                    db, sql: "SELECT serverFlags FROM emailFolder WHERE folderId = ? AND imapUID = ?",
                    arguments: [operation.folderId, operation.imapUID])
                : nil
            let serverFlags = stored ?? operation.serverFlags ?? ""
            if let column = ServerFlags.column(for: flag) {
                try db.execute(
                    sql: "UPDATE email SET \(column) = ? WHERE id = ?", arguments: [ServerFlags.contains(serverFlags, flag), operation.emailId])
            }
        case .copy:
            // Nothing changed locally before the server made the copy.
            break
        case .archive, .delete, .move:
            if operation.kind == .delete { try db.execute(sql: "UPDATE email SET deletedDate = NULL WHERE id = ?", arguments: [operation.emailId]) }
            guard current, let folderId = operation.folderId, let uid = operation.imapUID else { break }
            try db.execute(
                sql: """
                    INSERT INTO emailFolder (emailId, folderId, imapUID, modSeq, serverFlags) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                    """, arguments: [operation.emailId, folderId, uid, operation.modSeq, operation.serverFlags ?? ""])
        case .fileSentCopy:
            return
        }
        if let thread = try ThreadID.fetchOne(db, sql: "SELECT threadId FROM email WHERE id = ?", arguments: [operation.emailId]) {
            try SQLiteMessageStore.refresh(thread: thread, db: db)
        }
    }

    public func retry(_ operationId: PendingChangeID) async throws -> PendingOperation? {
        try await database.writer.write { db in
            guard var operation = try PendingOperation.fetchOne(db, key: operationId), operation.state == .failed else { return nil }
            // Its UID belongs to a UIDVALIDITY the folder no longer has: applied again, it would act on
            // whichever message holds that UID now.
            guard try Self.isCurrent(operation, db: db) else { throw TernError.invalidInput(PendingOperation.folderResetNote) }
            switch operation.kind {
            case .addFlag, .removeFlag:
                if let column = ServerFlags.column(for: operation.flag ?? "") {
                    try db.execute(sql: "UPDATE email SET \(column) = ? WHERE id = ?", arguments: [operation.kind == .addFlag, operation.emailId])
                }
            case .archive, .delete, .move:
                if let folderId = operation.folderId, let uid = operation.imapUID { try Self.removeCopy(folderId: folderId, uid: uid, db: db) }
                if operation.kind == .delete {
                    try db.execute(sql: "UPDATE email SET deletedDate = ? WHERE id = ?", arguments: [Date(), operation.emailId])
                }
            case .fileSentCopy, .copy:
                break
            }
            operation.state = .pending
            operation.attempts = 0
            operation.notBefore = nil
            operation.lastError = nil
            try operation.update(db)
            if let thread = try ThreadID.fetchOne(db, sql: "SELECT threadId FROM email WHERE id = ?", arguments: [operation.emailId]) {
                try SQLiteMessageStore.refresh(thread: thread, db: db)
            }
            return operation
        }
    }

    public func dismiss(_ operationId: PendingChangeID) async throws {
        try await database.writer.write { db in
            try db.execute(sql: "DELETE FROM pendingOperation WHERE id = ? AND state = 'failed'", arguments: [operationId])
        }
    }

    public func summaries(accountId: Account.ID?) async throws -> [PendingChangeSummary] {
        try await database.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT p.*, a.name AS accountName, e.subject, e.threadId, f.path FROM pendingOperation p
                    JOIN account a ON a.id = p.accountId JOIN email e ON e.id = p.emailId LEFT JOIN folder f ON f.id = p.folderId
                    WHERE (? IS NULL OR p.accountId = ?) ORDER BY p.id
                    """, arguments: [accountId, accountId]
            ).map { row in
                PendingChangeSummary(
                    id: row["id"], account: row["accountName"],
                    kind: PendingOperation.Kind(rawValue: row["kind"]) ?? .addFlag, flag: row["flag"],
                    emailId: row["emailId"], subject: row["subject"], folder: row["path"],
                    state: PendingOperation.State(rawValue: row["state"]) ?? .pending, attempts: row["attempts"],
                    notBefore: row["notBefore"], lastError: row["lastError"], threadId: row["threadId"])
            }
        }
    }
}

extension MailTarget {
    var label: String {
        switch self {
        case .thread(let id): "thread \(id)"
        case .message(let id): "message \(id)"
        }
    }
}

/// The space-separated flag list of `emailFolder.serverFlags`, compared without case (RFC 9051
/// flags are case-insensitive).
enum ServerFlags {
    /// The `email` column a pushed flag shows in: `\Seen` is read, `\Flagged` starred; a keyword
    /// (`$MDNSent`, issue 37) has none: its local record is elsewhere.
    static func column(for flag: String) -> String? {
        if flag.caseInsensitiveCompare("\\Seen") == .orderedSame { return "isRead" }
        if flag.caseInsensitiveCompare("\\Flagged") == .orderedSame { return "isStarred" }
        return nil
    }

    static func contains(_ flags: String, _ flag: String) -> Bool {
        flags.split(separator: " ").contains { $0.caseInsensitiveCompare(flag) == .orderedSame }
    }

    static func setting(_ flags: String, _ flag: String, _ present: Bool) -> String {
        var list = flags.split(separator: " ").map(String.init).filter { $0.caseInsensitiveCompare(flag) != .orderedSame }
        if present { list.append(flag) }
        return list.joined(separator: " ")
    }
}

/// Issue 36 Snooze: the wake keywords of the Snoozed folder's copies, and the wake itself.
extension SQLiteMailActionStore: SnoozeStore {
    public func snoozedMessages(folderId: FolderID) async throws -> [SnoozedMessage] {
        try await database.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT ef.emailId, e.accountId, ef.folderId, f.path, f.folderType, ef.imapUID, ef.serverFlags, ef.modSeq,
                        e.threadId, e.subject
                    FROM emailFolder ef JOIN email e ON e.id = ef.emailId JOIN folder f ON f.id = ef.folderId
                    WHERE ef.folderId = ? AND ef.serverFlags LIKE '%$SnoozedUntil%'
                        AND NOT EXISTS (
                            SELECT 1 FROM pendingOperation p WHERE p.folderId = ef.folderId AND p.imapUID = ef.imapUID AND p.state = 'pending')
                    """, arguments: [folderId]
            ).compactMap { row -> SnoozedMessage? in
                let flags: String = row["serverFlags"]
                guard let wake = SnoozeKeyword.wake(in: flags) else { return nil }
                let copy = EmailCopy(
                    emailId: row["emailId"], accountId: row["accountId"], folderId: row["folderId"], folderPath: row["path"],
                    folderType: FolderType(rawValue: row["folderType"]) ?? .custom, uid: row["imapUID"], serverFlags: flags,
                    modSeq: row["modSeq"])
                let keywords = flags.split(separator: " ").filter { SnoozeKeyword.wake(in: String($0)) != nil }
                return SnoozedMessage(
                    copy: copy, threadId: row["threadId"], subject: row["subject"], wake: wake, keyword: keywords.joined(separator: " "))
            }
        }
    }

    public func applyWake(_ messages: [SnoozedMessage], to inbox: FolderID, at date: Date) async throws {
        try await database.writer.write { db in
            var threads: Set<ThreadID> = []
            for message in messages {
                let copy = message.copy
                guard let stored = try Self.storedCopy(copy, db: db) else { continue }
                try Self.removeCopy(folderId: copy.folderId, uid: copy.uid, db: db)
                var removed = message.keyword.split(separator: " ").map(String.init)
                if ServerFlags.contains(copy.serverFlags, "\\Seen") { removed.append("\\Seen") }
                var arriving = copy.serverFlags
                for flag in removed { arriving = ServerFlags.setting(arriving, flag, false) }
                let woken = SnoozeKeyword.wokenKeyword(at: date)
                arriving = ServerFlags.setting(arriving, woken, true)
                // The flags go first (a batch stores before it moves): the copy arrives unread, without its
                // wake keyword, with the time it woke (what sorts it on top in every Tern, issue 36).
                for (flag, kind) in removed.map({ ($0, PendingOperation.Kind.removeFlag) }) + [(woken, .addFlag)] {
                    var operation = PendingOperation(
                        accountId: copy.accountId, kind: kind, flag: flag, emailId: copy.emailId, folderId: copy.folderId,
                        imapUID: copy.uid, uidValidity: stored.uidValidity, serverFlags: copy.serverFlags, modSeq: copy.modSeq, createdDate: date)
                    try operation.insert(db)
                }
                try db.execute(sql: "UPDATE email SET wokenDate = ? WHERE id = ?", arguments: [date.stored, copy.emailId])
                var move = PendingOperation(
                    accountId: copy.accountId, kind: .move, emailId: copy.emailId, folderId: copy.folderId, imapUID: copy.uid,
                    uidValidity: stored.uidValidity, serverFlags: arriving, modSeq: copy.modSeq, createdDate: date, targetFolderId: inbox)
                try move.insert(db)
                try db.execute(sql: "UPDATE email SET isRead = 0 WHERE id = ?", arguments: [copy.emailId])
                if let thread = message.threadId { threads.insert(thread) }
            }
            for thread in threads { try SQLiteMessageStore.refresh(thread: thread, db: db) }
        }
    }
}

extension UndoHold {
    /// The newest change of `table` (`pendingOperation`, `pendingFolderChange`: both keep `undoToken`,
    /// `state`, `attempts`, `notBefore`, `createdDate`) still inside its undo window: never tried, and
    /// its window not yet over at `now`. `tern undo` and the web Undo take the latest of them.
    static func latest(in table: String, _ db: Database, now: Date) throws -> UndoHold? {
        try Row.fetchOne(
            db,
            sql: """
                SELECT undoToken, notBefore FROM \(table)
                WHERE undoToken IS NOT NULL AND state = 'pending' AND attempts = 0 AND notBefore > ?
                ORDER BY createdDate DESC, id DESC LIMIT 1
                """, arguments: [now]
        ).map { UndoHold(token: $0["undoToken"], until: $0["notBefore"]) }
    }
}
