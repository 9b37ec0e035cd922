import Foundation
import GRDB
import TernCore

/// `MailQueries` on the local database: the thread list is one range scan of `threadFolder`.
public struct SQLiteMailQueries: MailQueries {
    let database: TernDatabase

    public init(database: TernDatabase) { self.database = database }

    public func folders(account: String?) async throws -> [FolderSummary] {
        try await database.writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT a.name AS account, f.path, f.folderType, f.lastSyncDate,
                    (SELECT COUNT(*) FROM emailFolder ef WHERE ef.folderId = f.id) AS messageCount,
                    (SELECT COUNT(*) FROM emailFolder ef JOIN email e ON e.id = ef.emailId WHERE ef.folderId = f.id AND NOT e.isRead) AS unreadCount
                FROM folder f JOIN account a ON a.id = f.accountId
                WHERE (? IS NULL OR a.name = ?)
                ORDER BY a.name, f.path
                """, arguments: [account, account]).map { row in
                FolderSummary(account: row["account"], path: row["path"], folderType: FolderType(rawValue: row["folderType"]) ?? .custom,
                              messageCount: row["messageCount"], unreadCount: row["unreadCount"], lastSyncDate: row["lastSyncDate"])
            }
        }
    }

    public func threads(account: String?, folder: String?, limit: Int) async throws -> [ThreadSummary] {
        try await database.writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT t.id, a.name AS account, t.subject, tf.latestDate, tf.messageCount, tf.unreadCount, t.participants, t.snippet
                FROM threadFolder tf
                JOIN folder f ON f.id = tf.folderId
                JOIN thread t ON t.id = tf.threadId
                JOIN account a ON a.id = t.accountId
                WHERE (? IS NULL OR a.name = ?) AND (CASE WHEN ? IS NULL THEN f.folderType = 'inbox' ELSE f.path = ? END)
                ORDER BY tf.latestDate DESC
                LIMIT ?
                """, arguments: [account, account, folder, folder, limit]).map { row in
                let participants = (try? JSONDecoder().decode([EmailAddress].self, from: Data((row["participants"] as String? ?? "[]").utf8))) ?? []
                return ThreadSummary(id: row["id"], account: row["account"], subject: row["subject"], latestDate: row["latestDate"],
                                     messageCount: row["messageCount"], unreadCount: row["unreadCount"], participants: participants,
                                     snippet: row["snippet"])
            }
        }
    }
}
