import Foundation
import GRDB
import TernCore

/// Issue 36: where a message's original is on the server (`emailFolder`), and the person's
/// unsubscribes per list (`listUnsubscription`, v22).
public struct SQLiteOriginalMessageStore: MessageSourceStore, ListUnsubscribeStore {
    let database: TernDatabase

    public init(database: TernDatabase) { self.database = database }

    public func sourceLocation(of emailId: EmailID) async throws -> MessageSourceLocation? {
        try await database.writer.read { db in try Self.location(emailId, db: db) }
    }

    /// One folder holding the message on the server, the Inbox first (also where its attachments are fetched from).
    static func location(_ emailId: EmailID, db: Database) throws -> MessageSourceLocation? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT e.accountId, f.path, ef.imapUID FROM email e
                    JOIN emailFolder ef ON ef.emailId = e.id JOIN folder f ON f.id = ef.folderId
                    WHERE e.id = ? ORDER BY f.folderType = 'inbox' DESC, ef.id LIMIT 1
                    """, arguments: [emailId])
        else { return nil }
        return MessageSourceLocation(emailId: emailId, accountId: row["accountId"], folderPath: row["path"], uid: row["imapUID"])
    }

    public func sourceLocations(account name: AccountName?, folderPath: String) async throws -> MessageSourceFolder {
        try await database.writer.read { db in
            let isInbox = folderPath.caseInsensitiveCompare("INBOX") == .orderedSame
            let folders = try Row.fetchAll(
                db,
                sql: """
                    SELECT f.id, f.accountId, f.path, a.name FROM folder f JOIN account a ON a.id = f.accountId
                    WHERE (f.path = ? OR (? AND f.folderType = 'inbox')) AND (? IS NULL OR a.name = ?)
                    ORDER BY a.name
                    """, arguments: [folderPath, isInbox, name?.rawValue, name?.rawValue])
            guard let folder = folders.first else { throw TernError.notFound("folder \(folderPath)") }
            if folders.count > 1 { throw TernError.accountNeeded(available: folders.map { AccountName(rawValue: $0["name"]) }) }
            let accountId: Account.ID = folder["accountId"]
            let path: String = folder["path"]
            let locations = try Row.fetchAll(
                db, sql: "SELECT emailId, imapUID FROM emailFolder WHERE folderId = ? ORDER BY imapUID", arguments: [folder["id"] as Int64]
            ).map { MessageSourceLocation(emailId: $0["emailId"], accountId: accountId, folderPath: path, uid: $0["imapUID"]) }
            return MessageSourceFolder(accountId: accountId, path: path, locations: locations)
        }
    }

    public func unsubscribeSubject(_ emailId: EmailID) async throws -> (location: MessageSourceLocation, declaresList: Bool)? {
        try await database.writer.read { db in
            guard let markers = try Int.fetchOne(db, sql: "SELECT bulkMarkers FROM email WHERE id = ?", arguments: [emailId]),
                let location = try Self.location(emailId, db: db)
            else { return nil }
            return (location, BulkMailMarkers(rawValue: markers).contains(.listUnsubscribe))
        }
    }

    public func unsubscribeRecord(accountId: Account.ID, listKey: String) async throws -> UnsubscribeRecord? {
        try await database.writer.read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM listUnsubscription WHERE accountId = ? AND listKey = ?", arguments: [accountId, listKey])
            else { return nil }
            return UnsubscribeRecord(
                accountId: row["accountId"], listKey: row["listKey"], method: row["method"], target: row["target"],
                outcome: UnsubscribeOutcome(rawValue: row["outcome"]) ?? .failed, detail: row["detail"], date: row["date"])
        }
    }

    public func saveUnsubscribeRecord(_ record: UnsubscribeRecord) async throws {
        try await database.writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO listUnsubscription (accountId, listKey, method, target, outcome, detail, date) VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (accountId, listKey) DO UPDATE SET
                        method = excluded.method, target = excluded.target, outcome = excluded.outcome, detail = excluded.detail,
                        date = excluded.date
                    """,
                arguments: [
                    record.accountId, record.listKey, record.method, record.target, record.outcome.rawValue, record.detail, record.date
                ])
        }
    }
}
