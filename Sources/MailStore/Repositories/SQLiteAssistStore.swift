import Foundation
import GRDB
import TernCore

/// Issue 19's reads and the summary cache on `thread` (`aiSummary`, `aiSummaryDate`, v12 `aiSummaryKey`).
public struct SQLiteAssistStore: AssistStore {
    let database: TernDatabase

    public init(database: TernDatabase) { self.database = database }

    public func assistSource(threadId: ThreadID, maxMessages: Int) async throws -> AssistSource? {
        try await database.writer.read { db in
            guard let thread = try MailThread.fetchOne(db, key: threadId),
                let account = try Account.fetchOne(db, key: thread.accountId)
            else { return nil }
            let ids = try EmailID.fetchAll(db, sql: "SELECT id FROM email WHERE threadId = ?", arguments: [threadId])
            let emails = try Email.fetchAll(
                db,
                sql: """
                    SELECT * FROM (SELECT * FROM email WHERE threadId = ? ORDER BY COALESCE(dateSent, dateReceived) DESC, id DESC LIMIT ?)
                    ORDER BY COALESCE(dateSent, dateReceived), id
                    """, arguments: [threadId, maxMessages])
            let messages = emails.map { email in
                AssistSource.Message(
                    emailId: email.id ?? 0, from: EmailAddress(name: email.fromName, address: email.fromAddress), to: email.toAddresses,
                    cc: email.ccAddresses, date: email.displayDate, subject: email.subject, bodyPlain: email.bodyPlain, bodyHTML: email.bodyHTML,
                    snippet: email.snippet, bulkMarkers: email.bulkMarkers)
            }
            return AssistSource(
                threadId: threadId, subject: thread.subject, messages: messages, allEmailIds: ids,
                userAddresses: account.ownAddresses)
        }
    }

    public func threadEmailIds(threadId: ThreadID) async throws -> [EmailID] {
        try await database.writer.read { db in
            try EmailID.fetchAll(db, sql: "SELECT id FROM email WHERE threadId = ?", arguments: [threadId])
        }
    }

    public func cachedSummary(threadId: ThreadID) async throws -> CachedThreadSummary? {
        try await database.writer.read { db in
            guard
                let row = try Row.fetchOne(db, sql: "SELECT aiSummary, aiSummaryDate, aiSummaryKey FROM thread WHERE id = ?", arguments: [threadId]),
                let text: String = row["aiSummary"], let date: Date = row["aiSummaryDate"], let key: String = row["aiSummaryKey"]
            else { return nil }
            return CachedThreadSummary(text: text, date: date, key: key)
        }
    }

    public func threadId(ofEmail emailId: EmailID) async throws -> ThreadID? {
        try await database.writer.read { db in
            try ThreadID.fetchOne(db, sql: "SELECT threadId FROM email WHERE id = ?", arguments: [emailId])
        }
    }

    public func saveSummary(_ summary: CachedThreadSummary?, threadId: ThreadID) async throws {
        try await database.writer.write { db in
            try db.execute(
                sql: "UPDATE thread SET aiSummary = ?, aiSummaryDate = ?, aiSummaryKey = ? WHERE id = ?",
                arguments: [summary?.text, summary?.date, summary?.key, threadId])
        }
    }
}
