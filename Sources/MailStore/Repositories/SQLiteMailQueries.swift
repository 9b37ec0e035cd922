import Foundation
import GRDB
import TernCore

/// `MailQueries` on the local database: the thread list is one range scan of `threadFolder`.
public struct SQLiteMailQueries: MailQueries {
    let database: TernDatabase

    public init(database: TernDatabase) { self.database = database }

    public func folders(account: AccountName?) async throws -> [FolderSummary] {
        try await database.writer.read { db in
            try Row.fetchAll(db, sql: Self.folderListSQL, arguments: [account, account]).map { row in
                FolderSummary(
                    account: row["account"], path: row["path"], folderType: FolderType(rawValue: row["folderType"]) ?? .custom,
                    messageCount: row["messageCount"], unreadCount: row["unreadCount"], lastSyncDate: row["lastSyncDate"],
                    historyComplete: row["reachedServerHistoryBoundary"])
            }
        }
    }

    /// Issue 38: the counts are the ones `folderCount` keeps (v36), a row per folder, so the list costs the
    /// same at 1,000 and at 1,000,000 messages; counted here, they were a walk of every copy of each folder
    /// and of every unread email. A folder without a row has never held a copy.
    static let folderListSQL = """
        SELECT a.name AS account, f.path, f.folderType, f.lastSyncDate, f.reachedServerHistoryBoundary,
            COALESCE(c.messageCount, 0) AS messageCount, COALESCE(c.unreadCount, 0) AS unreadCount
        FROM folder f JOIN account a ON a.id = f.accountId LEFT JOIN folderCount c ON c.folderId = f.id
        WHERE (? IS NULL OR a.name = ?)
        ORDER BY a.name, f.path
        """

    public func historyComplete(account: AccountName, folder: String) async throws -> Bool {
        try await database.writer.read { db in
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT f.reachedServerHistoryBoundary FROM folder f JOIN account a ON a.id = f.accountId
                    WHERE a.name = ? AND f.path = ?
                    """, arguments: [account, folder]) ?? false
        }
    }

    public func threads(account: AccountName?, folder: String?, before: ThreadListCursor?, limit: Int) async throws -> [ThreadSummary] {
        try await database.writer.read { db in
            // Issue 38: each folder's threads are walked newest first along its own range of
            // `threadFolder_by_folder_date`, at most `limit` of them, and merged here. One statement over
            // every Inbox scanned and sorted all their rows (half a million at 1,000,000 messages).
            let folderIds = try FolderID.fetchAll(
                db,
                sql: """
                    SELECT f.id FROM folder f JOIN account a ON a.id = f.accountId
                    WHERE (? IS NULL OR a.name = ?) AND (CASE WHEN ? IS NULL THEN f.folderType = 'inbox' ELSE f.path = ? END)
                    """, arguments: [account, account, folder, folder])
            var rows: [Row] = []
            for folderId in folderIds {
                let statement = try db.cachedStatement(sql: before == nil ? Self.threadListSQL : Self.threadListAfterCursorSQL)
                let arguments: StatementArguments =
                    if let before { [folderId, before.latestDate, before.threadId, limit] } else { [folderId, limit] }
                rows += try Row.fetchAll(statement, arguments: arguments)
            }
            if folderIds.count > 1 {
                rows.sort { a, b in
                    let (dateA, dateB): (Date, Date) = (a["latestDate"], b["latestDate"])
                    return dateA != dateB ? dateA > dateB : (a["id"] as Int64) > (b["id"] as Int64)
                }
            }
            return rows.prefix(limit).map(Self.summary)
        }
    }

    /// One folder's page of the thread list, newest first: a walk of `threadFolder_by_folder_date` that
    /// stops at the limit (no sort; `SQLiteMailQueriesTests` checks the plan).
    static let threadListSQL = """
        SELECT t.id, a.name AS account, t.subject, tf.latestDate, tf.messageCount, tf.unreadCount, t.participants, t.snippet
        FROM threadFolder tf
        JOIN thread t ON t.id = tf.threadId
        JOIN account a ON a.id = t.accountId
        WHERE tf.folderId = ?
        ORDER BY tf.latestDate DESC, tf.threadId DESC
        LIMIT ?
        """

    /// The page after a cursor: the same walk, begun at the cursor's place in the index.
    static let threadListAfterCursorSQL = """
        SELECT t.id, a.name AS account, t.subject, tf.latestDate, tf.messageCount, tf.unreadCount, t.participants, t.snippet
        FROM threadFolder tf
        JOIN thread t ON t.id = tf.threadId
        JOIN account a ON a.id = t.accountId
        WHERE tf.folderId = ? AND (tf.latestDate, tf.threadId) < (?, ?)
        ORDER BY tf.latestDate DESC, tf.threadId DESC
        LIMIT ?
        """

    /// The four arguments of a `before` condition (all NULL without a cursor).
    static func cursorArguments(_ cursor: ThreadListCursor?) -> StatementArguments {
        [cursor?.latestDate, cursor?.latestDate, cursor?.latestDate, cursor?.threadId]
    }

    /// FR-SYNC-10: an email of the Archive view (and of `in:archive`), as a condition on `e`.
    static let archiveMembership = """
        e.deletedDate IS NULL AND e.sendState IN ('none', 'sent')
        AND NOT EXISTS (SELECT 1 FROM emailFolder ef JOIN folder f ON f.id = ef.folderId
                        WHERE ef.emailId = e.id AND f.folderType <> 'archive')
        AND NOT EXISTS (SELECT 1 FROM pendingOperation p WHERE p.emailId = e.id AND p.kind = 'fileSentCopy')
        """

    public func threads(in view: VirtualMailbox, account: AccountName?, before: ThreadListCursor?, limit: Int) async throws -> [ThreadSummary] {
        let membership =
            switch view {
            case .archive: Self.archiveMembership
            case .outbox: "e.sendState IN ('queued', 'sending', 'failed')"
            }
        return try await database.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT t.id, a.name AS account, t.subject, MAX(COALESCE(e.dateSent, e.dateReceived)) AS latestDate,
                        COUNT(*) AS messageCount, SUM(NOT e.isRead) AS unreadCount, t.participants, t.snippet
                    FROM email e
                    JOIN thread t ON t.id = e.threadId
                    JOIN account a ON a.id = t.accountId
                    WHERE (? IS NULL OR a.name = ?) AND \(membership)
                    GROUP BY t.id
                    HAVING (? IS NULL OR latestDate < ? OR (latestDate = ? AND t.id < ?))
                    ORDER BY latestDate DESC, t.id DESC
                    LIMIT ?
                    """, arguments: [account, account] + Self.cursorArguments(before) + [limit]
            ).map(Self.summary)
        }
    }

    static func summary(_ row: Row) -> ThreadSummary {
        let participants = (try? JSONDecoder().decode([EmailAddress].self, from: Data((row["participants"] as String? ?? "[]").utf8))) ?? []
        return ThreadSummary(
            id: row["id"], account: row["account"], subject: row["subject"], latestDate: row["latestDate"],
            messageCount: row["messageCount"], unreadCount: row["unreadCount"], participants: participants,
            snippet: row["snippet"])
    }

    public func thread(id: ThreadID) async throws -> [ThreadMessage]? {
        guard let outline = try await threadOutline(id: id) else { return nil }
        return try await threadMessages(ids: outline.entries.map(\.emailId))
    }

    public func threadOutline(id: ThreadID) async throws -> ThreadOutline? {
        try await database.writer.read { db in
            guard let subject = try String.fetchOne(db, sql: "SELECT subject FROM thread WHERE id = ?", arguments: [id]) else { return nil }
            let entries = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, COALESCE(dateSent, dateReceived) AS date, isRead FROM email WHERE threadId = ? ORDER BY date, id
                    """, arguments: [id]
            ).map { ThreadOutline.Entry(emailId: $0["id"], date: $0["date"], isRead: $0["isRead"]) }
            return ThreadOutline(threadId: id, subject: subject, entries: entries)
        }
    }

    public func threadMessages(ids: [EmailID]) async throws -> [ThreadMessage] {
        guard !ids.isEmpty else { return [] }
        return try await database.writer.read { db in
            let emails = try Email.filter(ids.contains(Column("id"))).fetchAll(db)
                .sorted { ($0.displayDate, $0.id ?? 0) < ($1.displayDate, $1.id ?? 0) }
            let accountIds = Set(emails.map(\.accountId))
            let authservIds = try Account.filter(accountIds.contains(Column("id"))).fetchAll(db)
                .reduce(into: [Account.ID: String]()) { ids, account in ids[account.id] = account.verifyingAuthservId }
            return try emails.map { email in
                let folders = try String.fetchAll(
                    db,
                    sql: """
                        SELECT f.path FROM emailFolder ef JOIN folder f ON f.id = ef.folderId WHERE ef.emailId = ? ORDER BY f.path
                        """, arguments: [email.id])
                let attachments = try Attachment.filter(Column("emailId") == email.id).order(Column("partId")).fetchAll(db).map {
                    AttachmentSummary(
                        id: $0.id ?? 0, filename: $0.filename, mimeType: $0.mimeType, sizeBytes: $0.sizeBytes, isDownloaded: $0.isDownloaded,
                        contentId: $0.contentId, isInline: $0.isInline)
                }
                var message = ThreadMessage(
                    emailId: email.id ?? 0, subject: email.subject, from: EmailAddress(name: email.fromName, address: email.fromAddress),
                    to: email.toAddresses, cc: email.ccAddresses, date: email.displayDate, isRead: email.isRead,
                    isStarred: email.isStarred, bodyPlain: email.bodyPlain, bodyHTML: email.bodyHTML,
                    bodiesFetched: email.bodiesFetched, folders: folders, attachments: attachments)
                message.sendState = email.sendState
                message.sendError = email.sendError
                if email.sendState == .queued {
                    message.scheduledAt = try Date.fetchOne(db, sql: "SELECT sendScheduledAt FROM email WHERE id = ?", arguments: [email.id])
                }
                message.messageId = email.headerMessageId
                message.snippet = email.snippet
                message.bodyTruncated = email.bodyTruncated
                message.senderAuthentication = SenderAuthentication(
                    headers: email.authenticationResults, authservId: authservIds[email.accountId],
                    fromAddress: email.fromAddress)
                message.authenticationChecks = AuthenticationChecks(
                    headers: email.authenticationResults, authservId: authservIds[email.accountId])
                message.readReceiptTo = email.readReceiptTo
                message.readReceiptState = email.readReceiptState
                message.bulkMarkers = email.bulkMarkers
                if !email.readReceiptTo.isEmpty {
                    message.receiptFlaggedOnServer = try SQLiteReadReceiptStore.flaggedSent(email.id ?? 0, db: db)
                }
                return message
            }
        }
    }

    public func search(_ query: SearchQuery, account: AccountName?, limit: Int, now: Date, calendar: Calendar) async throws -> [SearchHit] {
        let statement = SearchQueryCompiler(now: now, calendar: calendar).statement(query, account: account, limit: limit)
        return try await database.writer.read { db in
            try Row.fetchAll(db, sql: statement.sql, arguments: statement.arguments).map { row in
                SearchHit(
                    emailId: row["id"], threadId: row["threadId"], account: row["account"], subject: row["subject"],
                    from: EmailAddress(name: row["fromName"], address: row["fromAddress"]), date: row["date"], snippet: row["snippet"])
            }
        }
    }
}
