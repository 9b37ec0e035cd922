import Foundation
import GRDB
import TernCore

/// `SyncStore` on the local database.
public struct SQLiteSyncStore: SyncStore, FolderChangeStore {
    let database: TernDatabase
    let messages: SQLiteMessageStore

    public init(database: TernDatabase) {
        self.database = database
        messages = SQLiteMessageStore(database: database)
    }

    public func folders(accountId: Account.ID) async throws -> [Folder] {
        try await database.writer.read { db in try Folder.filter(Column("accountId") == accountId).order(Column("path")).fetchAll(db) }
    }

    public func saveDiscoveredFolders(_ folders: [DiscoveredFolder], accountId: Account.ID, keepOrphans: Bool) async throws -> [Folder] {
        try await database.writer.write { db in
            var known = try Folder.filter(Column("accountId") == accountId).fetchAll(db)
            let listed = Set(folders.map(\.path))
            // A LIST without even the Inbox is a broken answer, not a server that lost every folder.
            var vanished = folders.isEmpty ? [] : known.filter { !listed.contains($0.path) }
            let knownPaths = Set(known.map(\.path))
            let arrivals = folders.filter { !knownPaths.contains($0.path) }
            for discovered in folders {
                if let index = known.firstIndex(where: { $0.path == discovered.path }) {
                    var folder = known[index]
                    let mailboxId = discovered.mailboxId ?? folder.mailboxId
                    if folder.folderType != discovered.folderType || folder.delimiter != discovered.delimiter || folder.mailboxId != mailboxId {
                        folder.folderType = discovered.folderType
                        folder.delimiter = discovered.delimiter
                        folder.mailboxId = mailboxId
                        try folder.update(db)
                        known[index] = folder
                    }
                } else if let index = Self.renamedFrom(discovered, vanished: vanished, arrivals: arrivals) {
                    // The same mailbox under its new name keeps its cursors and messages: its
                    // UIDVALIDITY is checked at the next SELECT like any folder's.
                    var folder = vanished.remove(at: index)
                    folder.path = discovered.path
                    folder.displayName = Folder.lastComponent(of: discovered.path, delimiter: discovered.delimiter)
                    folder.delimiter = discovered.delimiter
                    folder.folderType = discovered.folderType
                    folder.mailboxId = discovered.mailboxId ?? folder.mailboxId
                    try folder.update(db)
                } else {
                    var folder = Folder(
                        accountId: accountId, path: discovered.path, delimiter: discovered.delimiter,
                        folderType: discovered.folderType, mailboxId: discovered.mailboxId)
                    try folder.insert(db)
                }
            }
            for folder in vanished { try Self.removeFolder(folder, keepOrphans: keepOrphans, db: db) }
            return try Folder.filter(Column("accountId") == accountId).order(Column("path")).fetchAll(db)
        }
    }

    /// Issue 22: which vanished folder a newly listed one is, if any. The server's MAILBOXID says
    /// so for certain; without OBJECTID, a role (Sent, Trash, Archive…) that left one name and
    /// arrived at one other is the same folder. A renamed folder of the user's own is otherwise
    /// indistinguishable from a deletion and a creation: it is synced again under its new name.
    static func renamedFrom(_ discovered: DiscoveredFolder, vanished: [Folder], arrivals: [DiscoveredFolder]) -> Int? {
        if let id = discovered.mailboxId, let index = vanished.firstIndex(where: { $0.mailboxId == id }) { return index }
        guard discovered.mailboxId == nil, ![.custom, .container, .inbox].contains(discovered.folderType) else { return nil }
        let sameRole = vanished.indices.filter { vanished[$0].folderType == discovered.folderType }
        guard sameRole.count == 1, arrivals.filter({ $0.folderType == discovered.folderType }).count == 1 else { return nil }
        return sameRole[0]
    }

    /// A folder the server no longer lists: changes waiting to be pushed from it are undone (the
    /// server cannot take them; an archived copy comes back so that it is removed below like the
    /// others), its messages leave it, and those in no other folder go.
    static func removeFolder(_ folder: Folder, keepOrphans: Bool, db: Database) throws {
        guard let folderId = folder.id else { return }
        let waiting = try PendingOperation.fetchAll(
            db, sql: "SELECT * FROM pendingOperation WHERE folderId = ? AND state = 'pending'",
            arguments: [folderId])
        // The operations themselves go with the folder (ON DELETE CASCADE).
        for operation in waiting { try SQLiteMailActionStore.revert(operation, db: db) }
        let uids = try Int64.fetchAll(db, sql: "SELECT imapUID FROM emailFolder WHERE folderId = ?", arguments: [folderId])
        try remove(folderId: folderId, uids: uids, keepOrphans: keepOrphans, db: db)
        try db.execute(sql: "DELETE FROM folder WHERE id = ?", arguments: [folderId])
    }

    public func messageCount(folderId: FolderID?) async throws -> Int {
        guard let folderId else { return 0 }
        return try await database.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT messageCount FROM folderCount WHERE folderId = ?", arguments: [folderId]) ?? 0
        }
    }

    public func renameFolder(accountId: Account.ID, from: String, to: String) async throws {
        try await database.writer.write { db in
            let folders = try Folder.filter(Column("accountId") == accountId).fetchAll(db)
            guard let renamed = folders.first(where: { $0.path == from }) else { return }
            // RFC 9051 section 6.3.6: the folders below it are renamed with it.
            let prefix = renamed.delimiter.map { from + $0 }
            for var folder in folders {
                if folder.path == from {
                    folder.path = to
                } else if let prefix, folder.path.hasPrefix(prefix) {
                    folder.path = to + folder.path.dropFirst(from.count)
                } else {
                    continue
                }
                folder.displayName = Folder.lastComponent(of: folder.path, delimiter: folder.delimiter)
                try folder.update(db)
            }
        }
    }

    public func updateFolderState(_ folder: Folder) async throws {
        try await database.writer.write { db in try folder.update(db) }
    }

    public func resetFolder(_ folderId: FolderID, uidValidity: Int64, keepOrphans: Bool) async throws {
        try await database.writer.write { db in
            let uids = try Int64.fetchAll(db, sql: "SELECT imapUID FROM emailFolder WHERE folderId = ?", arguments: [folderId])
            try db.execute(
                sql: """
                    UPDATE folder SET uidValidity = ?, uidNext = NULL, highestModSeq = NULL, forwardCursorUID = NULL,
                        backfillCursorUID = NULL, initialFastCompleted = 0, catchUpStatus = 'idle', reachedServerHistoryBoundary = 0
                    WHERE id = ?
                    """, arguments: [uidValidity, folderId])
            try SQLiteMailActionStore.cancelStaleOperations(folderId: folderId, db: db)
            try Self.remove(folderId: folderId, uids: uids, keepOrphans: keepOrphans, db: db)
        }
    }

    public func store(_ messages: [IncomingMessage], folderId: FolderID, cursorUID: Int64?, backfillCursorUID: Int64?) async throws -> StoredBatch {
        try await self.messages.store(messages, folderId: folderId, cursorUID: cursorUID, backfillCursorUID: backfillCursorUID)
    }

    public func localUIDs(folderId: FolderID) async throws -> [Int64] {
        try await database.writer.read { db in
            // A copy archived or deleted here whose move the server has not confirmed is still known:
            // it must not come back as new mail (FR-SYNC-10 optimistic archive). Only under the folder's
            // current UIDVALIDITY: an older one's UID may be a new message's now, which must be fetched.
            try Int64.fetchAll(
                db,
                sql: """
                    SELECT imapUID FROM emailFolder WHERE folderId = ?
                    UNION SELECT p.imapUID FROM pendingOperation p JOIN folder f ON f.id = p.folderId
                    WHERE p.folderId = ? AND p.kind IN ('archive', 'delete', 'move') AND p.state = 'pending' AND p.imapUID IS NOT NULL
                        AND p.uidValidity IS f.uidValidity
                    ORDER BY 1
                    """, arguments: [folderId, folderId])
        }
    }

    public func removeFromFolder(_ folderId: FolderID, uids: [Int64], keepOrphans: Bool) async throws {
        guard !uids.isEmpty else { return }
        try await database.writer.write { db in try Self.remove(folderId: folderId, uids: uids, keepOrphans: keepOrphans, db: db) }
    }

    /// Drops folder associations; emails left in no folder go (unless kept for the virtual Archive),
    /// their ids stop counting as stored for threading, and the threads they were in are refreshed.
    static func remove(folderId: FolderID, uids: [Int64], keepOrphans: Bool, db: Database) throws {
        var touchedThreads: Set<ThreadID> = []
        for chunk in stride(from: 0, to: uids.count, by: 500).map({ Array(uids[$0..<min($0 + 500, uids.count)]) }) {
            let placeholders = databaseQuestionMarks(count: chunk.count)
            let emailIds = try Int64.fetchAll(
                db, sql: "SELECT emailId FROM emailFolder WHERE folderId = ? AND imapUID IN (\(placeholders))",
                arguments: StatementArguments([folderId] + chunk))
            try db.execute(
                sql: "DELETE FROM emailFolder WHERE folderId = ? AND imapUID IN (\(placeholders))",
                arguments: StatementArguments([folderId] + chunk))
            for emailId in emailIds {
                guard let email = try Email.fetchOne(db, key: emailId) else { continue }
                if let thread = email.threadId { touchedThreads.insert(thread) }
                let remaining = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM emailFolder WHERE emailId = ?", arguments: [emailId]) ?? 0
                guard remaining == 0, !keepOrphans, email.sendState == .none else { continue }
                try SQLiteMessageStore.delete(email, db: db)
            }
        }
        for thread in touchedThreads { try SQLiteMessageStore.refresh(thread: thread, db: db) }
    }

    public func emailsNeedingBodies(folderId: FolderID, since: Date?, limit: Int) async throws -> [BodyRequest] {
        try await database.writer.read { db in
            // Issue 38: walked from `email_needing_bodies` (v28), newest first, stopping at the window's start:
            // through the folder's copies it read every email of the folder, on every sync of every folder
            // (0.6 s a folder at 128,000 messages).
            let statement = try db.cachedStatement(sql: since == nil ? Self.needingBodiesSQL : Self.needingBodiesSinceSQL)
            let arguments: StatementArguments = if let since { [since, folderId, limit] } else { [folderId, limit] }
            return try Row.fetchAll(statement, arguments: arguments).map {
                BodyRequest(emailId: $0["id"], uid: $0["imapUID"], bodyStructure: $0["bodyStructure"])
            }
        }
    }

    /// A folder's emails whose text the hydration policy still wants, newest first (`CROSS JOIN` keeps the
    /// walk on the partial index; `SchemaMigrationsTests` checks the plan).
    static let needingBodiesSQL = """
        SELECT e.id, ef.imapUID, e.bodyStructure FROM email e CROSS JOIN emailFolder ef ON ef.emailId = e.id
        WHERE e.bodiesFetched = 0 AND e.bodyStructure IS NOT NULL AND ef.folderId = ?
        ORDER BY e.dateReceived DESC LIMIT ?
        """

    /// The same from the newest back to `since` (the index's range ends there).
    static let needingBodiesSinceSQL = """
        SELECT e.id, ef.imapUID, e.bodyStructure FROM email e CROSS JOIN emailFolder ef ON ef.emailId = e.id
        WHERE e.bodiesFetched = 0 AND e.bodyStructure IS NOT NULL AND e.dateReceived >= ? AND ef.folderId = ?
        ORDER BY e.dateReceived DESC LIMIT ?
        """

    public func saveBodies(_ bodies: [FetchedBodies]) async throws {
        guard !bodies.isEmpty else { return }
        try await database.writer.write { db in
            var threads: Set<ThreadID> = []
            var search = SearchIndexBatch(replacing: true)
            for body in bodies {
                try db.cachedStatement(
                    sql: """
                        UPDATE email SET bodyPlain = ?, bodyHTML = ?, snippet = ?, bodyTruncated = ?, bodiesFetched = 1 WHERE id = ?
                        """
                ).execute(arguments: [body.plain, body.html, body.snippet, body.truncated, body.emailId])
                // Only what the index needs: decoding whole Emails here was a quarter of body hydration.
                guard
                    let row = try Row.fetchOne(
                        db.cachedStatement(
                            sql: """
                                SELECT id, threadId, subject, fromName, fromAddress, toAddresses, ccAddresses, bodyPlain, snippet FROM email WHERE id = ?
                                """), arguments: [body.emailId])
                else { continue }
                let decoder = JSONDecoder()
                let email = Email(
                    id: row["id"], accountId: AccountID(""), messageId: nil, dedupKey: "", subject: row["subject"], fromName: row["fromName"],
                    fromAddress: row["fromAddress"],
                    toAddresses: (try? decoder.decode([EmailAddress].self, from: Data((row["toAddresses"] as String).utf8))) ?? [],
                    ccAddresses: (try? decoder.decode([EmailAddress].self, from: Data((row["ccAddresses"] as String).utf8))) ?? [],
                    dateReceived: Date(timeIntervalSince1970: 0), snippet: row["snippet"], bodyPlain: row["bodyPlain"])
                search.add(email, text: body.searchText)
                if let thread = row["threadId"] as ThreadID? { threads.insert(thread) }
            }
            for thread in threads { try SQLiteMessageStore.refresh(thread: thread, db: db) }
            try search.write(db)
        }
    }

    public func missingBodies(threadId: ThreadID) async throws -> [FolderBodyRequest] {
        try await database.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT e.id, e.accountId, e.bodyStructure, ef.folderId, ef.imapUID, f.path FROM email e
                    JOIN emailFolder ef ON ef.id = (
                        SELECT ef2.id FROM emailFolder ef2 JOIN folder f2 ON f2.id = ef2.folderId
                        WHERE ef2.emailId = e.id ORDER BY f2.folderType = 'inbox' DESC, ef2.id LIMIT 1)
                    JOIN folder f ON f.id = ef.folderId
                    WHERE e.threadId = ? AND NOT e.bodiesFetched AND e.bodyStructure IS NOT NULL
                    """, arguments: [threadId]
            ).map { row in
                FolderBodyRequest(
                    accountId: row["accountId"], folderId: row["folderId"], folderPath: row["path"],
                    request: BodyRequest(emailId: row["id"], uid: row["imapUID"], bodyStructure: row["bodyStructure"]))
            }
        }
    }

    public func indexMissing(accountId: Account.ID) async throws -> Int {
        try await database.writer.write { db in
            // Issue 38: a state row is written with each email's batch and goes with its email, so an email
            // without one can only be newer than the last check (`searchIndexCoverage`); below it, only the
            // failed ones (`searchIndexState_unindexed`, walked first: `CROSS JOIN`) are retried. Counting
            // every email and every state row here took 135-213 ms of each sync at 1,000,000 messages.
            let checkedThrough = try Int64.fetchOne(db, sql: "SELECT checkedThroughEmailId FROM searchIndexCoverage") ?? 0
            let newest = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM email") ?? 0
            let unchecked = try Email.fetchAll(
                db,
                sql: """
                    SELECT e.* FROM email e LEFT JOIN searchIndexState s ON s.emailId = e.id
                    WHERE e.id > ? AND s.emailId IS NULL LIMIT ?
                    """, arguments: [checkedThrough, Self.indexRepairLimit])
            let failed = try Email.fetchAll(
                db,
                sql: """
                    SELECT e.* FROM searchIndexState s CROSS JOIN email e ON e.id = s.emailId
                    WHERE e.accountId = ? AND s.indexedDate IS NULL AND s.failureCount < ? LIMIT ?
                    """, arguments: [accountId, SearchIndexBatch.maximumAttempts, Self.indexRepairLimit])
            var search = SearchIndexBatch(replacing: true)
            for email in unchecked + failed { search.add(email) }
            try search.write(db)
            // Every email up to `newest` now has its row, unless the limit left some for the next sync.
            if unchecked.count < Self.indexRepairLimit, newest > checkedThrough {
                try db.execute(sql: "UPDATE searchIndexCoverage SET checkedThroughEmailId = ?", arguments: [newest])
            }
            return unchecked.count + failed.count
        }
    }

    /// Emails indexed again by one Indexing step at most, of each kind: the rest wait for the next sync.
    static let indexRepairLimit = 5_000

    /// Up to this many flag states, their stored rows are read by UID; beyond, the rows of the UID range they span.
    static let flagLookupByUIDLimit = 2_000

    public func applyServerFlags(_ states: [ServerFlagState], folderId: FolderID) async throws -> Int {
        try await database.writer.write { db in
            var changed = 0
            var touchedThreads: Set<ThreadID> = []
            // The stored flags of the messages named, not one query per message (every sync and IDLE event
            // comes here): by UID in chunks for a few (a QRESYNC resync of a 100,000-message folder names
            // the handful that changed), the folder in one read for many. Columns by position.
            var stored: [Int64: (emailId: EmailID, flags: String)] = [:]
            func read(_ rows: RowCursor) throws {
                while let row = try rows.next() { stored[row[0]] = (row[1], row[2]) }
            }
            if states.count <= Self.flagLookupByUIDLimit {
                for start in stride(from: 0, to: states.count, by: 500) {
                    let chunk = states[start..<min(start + 500, states.count)].map(\.uid)
                    try read(
                        Row.fetchCursor(
                            db,
                            sql: """
                                SELECT imapUID, emailId, serverFlags FROM emailFolder WHERE folderId = ? AND imapUID IN (\(databaseQuestionMarks(count: chunk.count)))
                                """, arguments: StatementArguments([folderId] + chunk)))
                }
            } else if let low = states.map(\.uid).min(), let high = states.map(\.uid).max() {
                // Issue 38: the range the states span, not the whole folder (a chunk of 50,000 of a million).
                try read(
                    Row.fetchCursor(
                        db.cachedStatement(
                            sql: "SELECT imapUID, emailId, serverFlags FROM emailFolder WHERE folderId = ? AND imapUID BETWEEN ? AND ?"),
                        arguments: [folderId, low, high]))
            }
            // Flags changed locally and not yet pushed (FR-SYNC-10), by email.
            var pushing: [EmailID: Set<String>] = [:]
            for row in try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT emailId, flag FROM pendingOperation WHERE state = 'pending' AND kind IN ('addFlag', 'removeFlag')
                            AND emailId IN (SELECT emailId FROM emailFolder WHERE folderId = ?)
                        """), arguments: [folderId])
            {
                pushing[row["emailId"], default: []].insert(row["flag"])
            }
            for state in states {
                let joined = state.flags.joined(separator: " ")
                guard let (emailId, before) = stored[state.uid], before != joined else { continue }
                try db.cachedStatement(sql: "UPDATE emailFolder SET serverFlags = ?, modSeq = COALESCE(?, modSeq) WHERE folderId = ? AND imapUID = ?")
                    .execute(arguments: [joined, state.modSeq, folderId, state.uid])
                guard let email = try Email.fetchOne(db, key: emailId) else { continue }
                var updated = IncomingMessage(email: email, uid: state.uid, serverFlags: state.flags).applyingServerFlags(to: email)
                for flag in pushing[emailId] ?? [] {
                    if ServerFlags.contains(before, flag) != ServerFlags.contains(joined, flag) {
                        // FR-SYNC-05: the server changed this flag meanwhile, and the server wins.
                        try db.execute(
                            sql: """
                                DELETE FROM pendingOperation WHERE emailId = ? AND flag = ? AND state = 'pending' AND kind IN ('addFlag', 'removeFlag')
                                """, arguments: [emailId, flag])
                    } else if flag == "\\Seen" {
                        updated.isRead = email.isRead
                    } else if flag == "\\Flagged" {
                        updated.isStarred = email.isStarred
                    }
                }
                if updated != email {
                    try updated.update(db)
                    changed += 1
                    if let thread = email.threadId { touchedThreads.insert(thread) }
                }
            }
            for thread in touchedThreads { try SQLiteMessageStore.refresh(thread: thread, db: db) }
            return changed
        }
    }
}

/// `AttachmentStore` on the local database.
public struct SQLiteAttachmentStore: AttachmentStore {
    let database: TernDatabase

    public init(database: TernDatabase) { self.database = database }

    public func location(ofAttachment id: AttachmentID) async throws -> AttachmentLocation? {
        try await database.writer.read { db in
            // Where its message is on the server, found as the original message is (issue 36).
            guard let attachment = try Attachment.fetchOne(db, key: id),
                let message = try SQLiteOriginalMessageStore.location(attachment.emailId, db: db)
            else { return nil }
            return AttachmentLocation(attachment: attachment, accountId: message.accountId, folderPath: message.folderPath, uid: message.uid)
        }
    }

    public func markDownloaded(_ id: AttachmentID, path: String, at date: Date) async throws {
        try await database.writer.write { db in
            try db.execute(sql: "UPDATE attachment SET isDownloaded = 1, localPath = ?, lastAccessDate = ? WHERE id = ?", arguments: [path, date, id])
        }
    }

    public func downloaded(accountId: Account.ID) async throws -> [Attachment] {
        try await database.writer.read { db in
            try Attachment.fetchAll(
                db,
                sql: """
                    SELECT a.* FROM attachment a JOIN email e ON e.id = a.emailId
                    WHERE e.accountId = ? AND a.isDownloaded ORDER BY a.lastAccessDate ASC
                    """, arguments: [accountId])
        }
    }

    public func markEvicted(_ id: AttachmentID) async throws {
        try await database.writer.write { db in
            try db.execute(sql: "UPDATE attachment SET isDownloaded = 0, localPath = NULL WHERE id = ?", arguments: [id])
        }
    }
}
