import Foundation
import GRDB
import TernCore

/// `DraftStore` on the `draft` table (v11). A save is one short write: the autosave's cost is the
/// JSON of the composer's fields and one row.
public struct SQLiteDraftStore: DraftStore {
    let database: TernDatabase

    public init(database: TernDatabase) { self.database = database }

    static let columns = """
        id, accountId, messageId, content, revision, createdDate, updatedDate, syncState, syncAttempts, syncNotBefore, syncError,
        serverMailbox, serverUID, serverUIDValidity, changedOnServer, heldEmailId
        """

    public func save(id: Draft.ID?, accountId: Account.ID, messageId: String, content: ComposeDraft, at date: Date) async throws
        -> DraftSave
    {
        let json = try Self.encode(content)
        return try await database.writer.write { db in
            guard let id else {
                try db.execute(
                    sql: """
                        INSERT INTO draft (accountId, messageId, content, createdDate, updatedDate)
                        VALUES (?, ?, ?, ?, ?)
                        """, arguments: [accountId, messageId, json, date.stored, date.stored])
                return DraftSave(draftId: DraftID(db.lastInsertedRowID), revision: 1, changed: true, savedDate: date)
            }
            guard let row = try Row.fetchOne(db, sql: "SELECT content, revision, updatedDate FROM draft WHERE id = ?", arguments: [id]) else {
                throw TernError.notFound("draft \(id)")
            }
            let revision: Int = row["revision"]
            if row["content"] as String == json {
                return DraftSave(draftId: id, revision: revision, changed: false, savedDate: row["updatedDate"])
            }
            try db.execute(
                sql: """
                    UPDATE draft SET content = ?, revision = revision + 1, updatedDate = ?, changedOnServer = 0,
                        syncState = CASE syncState WHEN 'removing' THEN 'removing' ELSE 'pending' END, syncAttempts = 0, syncNotBefore = NULL
                    WHERE id = ?
                    """, arguments: [json, date.stored, id])
            return DraftSave(draftId: id, revision: revision + 1, changed: true, savedDate: date)
        }
    }

    public func draft(id: Draft.ID) async throws -> Draft? {
        try await database.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.columns) FROM draft WHERE id = ?", arguments: [id]).map(Self.draft)
        }
    }

    public func draft(holding emailId: EmailID) async throws -> Draft? {
        try await database.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.columns) FROM draft WHERE heldEmailId = ?", arguments: [emailId]).map(Self.draft)
        }
    }

    public func drafts(accountId: Account.ID?) async throws -> [Draft] {
        try await database.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.columns) FROM draft
                    WHERE syncState != 'removing' AND heldEmailId IS NULL AND (?1 IS NULL OR accountId = ?1)
                    ORDER BY updatedDate DESC, id DESC
                    """, arguments: [accountId]
            ).map(Self.draft)
        }
    }

    public func serverOnlyDrafts(accountId: Account.ID?) async throws -> [DraftSummary] {
        try await database.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT e.id, e.accountId, e.subject, e.toAddresses, e.snippet, e.dateReceived FROM email e
                    JOIN emailFolder ef ON ef.emailId = e.id
                    JOIN folder f ON f.id = ef.folderId AND f.folderType = 'drafts'
                    WHERE (?1 IS NULL OR e.accountId = ?1) AND e.deletedDate IS NULL
                      AND NOT EXISTS (SELECT 1 FROM draft d WHERE d.accountId = e.accountId
                                      AND d.messageId IN (e.headerMessageId, e.messageId))
                    ORDER BY e.dateReceived DESC
                    """, arguments: [accountId]
            ).map { row in
                DraftSummary(
                    origin: .server, id: row["id"], accountId: row["accountId"], subject: row["subject"],
                    to: (try? JSONDecoder().decode([EmailAddress].self, from: Data((row["toAddresses"] as String).utf8))) ?? [],
                    snippet: row["snippet"] ?? "",
                    updatedDate: row["dateReceived"] ?? Date(timeIntervalSince1970: 0), sync: .synced)
            }
        }
    }

    public func serverDraft(emailId: EmailID) async throws -> (original: OriginalMessage, copy: DraftServerCopy)? {
        try await database.writer.read { db in
            guard let email = try Email.fetchOne(db, key: emailId),
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT f.path, f.uidValidity, ef.imapUID FROM emailFolder ef JOIN folder f ON f.id = ef.folderId
                        WHERE ef.emailId = ? AND f.folderType = 'drafts' ORDER BY ef.imapUID DESC LIMIT 1
                        """, arguments: [emailId])
            else { return nil }
            let attachments = try Attachment.filter(Column("emailId") == emailId).order(Column("partId")).fetchAll(db)
            return (
                OriginalMessage(email: email, attachments: attachments),
                DraftServerCopy(mailbox: row["path"], uid: row["imapUID"], uidValidity: row["uidValidity"] ?? 0)
            )
        }
    }

    public func adopt(accountId: Account.ID, messageId: String, content: ComposeDraft, copy: DraftServerCopy, at date: Date) async throws -> Draft.ID
    {
        let json = try Self.encode(content)
        return try await database.writer.write { db in
            if let existing = try DraftID.fetchOne(
                db, sql: "SELECT id FROM draft WHERE accountId = ? AND messageId = ?",
                arguments: [accountId, messageId])
            {
                return existing
            }
            try db.execute(
                sql: """
                    INSERT INTO draft (accountId, messageId, content, createdDate, updatedDate, syncState,
                                       serverMailbox, serverUID, serverUIDValidity)
                    VALUES (?, ?, ?, ?, ?, 'synced', ?, ?, ?)
                    """, arguments: [accountId, messageId, json, date.stored, date.stored, copy.mailbox, copy.uid, copy.uidValidity])
            return DraftID(db.lastInsertedRowID)
        }
    }

    public func remove(id: Draft.ID) async throws {
        try await database.writer.write { db in
            // Nothing on the server (never uploaded, and no upload can be under way without a copy to replace): gone now.
            try db.execute(
                sql: "DELETE FROM draft WHERE id = ? AND serverUID IS NULL AND syncState = 'pending' AND syncAttempts = 0 AND heldEmailId IS NULL",
                arguments: [id])
            try db.execute(
                sql: "UPDATE draft SET syncState = 'removing', syncAttempts = 0, syncNotBefore = NULL, syncError = NULL WHERE id = ?",
                arguments: [id])
        }
    }

    public func due(accountId: Account.ID, at date: Date, ignoreBackoff: Bool) async throws -> [Draft] {
        try await database.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.columns) FROM draft
                    WHERE accountId = ? AND syncState IN ('pending', 'removing') AND (? OR syncNotBefore IS NULL OR syncNotBefore <= ?)
                        AND NOT (syncState = 'pending' AND heldEmailId IS NOT NULL)
                    ORDER BY id
                    """, arguments: [accountId, ignoreBackoff, date.stored]
            ).map(Self.draft)
        }
    }

    public func synced(accountId: Account.ID) async throws -> [Draft] {
        try await database.writer.read { db in
            try Row.fetchAll(
                db, sql: "SELECT \(Self.columns) FROM draft WHERE accountId = ? AND syncState = 'synced' AND serverUID IS NOT NULL ORDER BY id",
                arguments: [accountId]
            ).map(Self.draft)
        }
    }

    public func recordUploaded(id: Draft.ID, revision: Int, copy: DraftServerCopy) async throws {
        try await database.writer.write { db in
            try db.execute(
                sql: """
                    UPDATE draft SET serverMailbox = ?, serverUID = ?, serverUIDValidity = ?, syncAttempts = 0, syncNotBefore = NULL, syncError = NULL,
                        syncState = CASE WHEN syncState = 'pending' AND revision = ? THEN 'synced' ELSE syncState END
                    WHERE id = ?
                    """, arguments: [copy.mailbox, copy.uid, copy.uidValidity, revision, id])
        }
    }

    public func replaceFromServer(id: Draft.ID, content: ComposeDraft, copy: DraftServerCopy, at date: Date) async throws {
        let json = try Self.encode(content)
        try await database.writer.write { db in
            try db.execute(
                sql: """
                    UPDATE draft SET content = ?, revision = revision + 1, updatedDate = ?, syncState = 'synced', syncAttempts = 0,
                        syncNotBefore = NULL, syncError = NULL, serverMailbox = ?, serverUID = ?, serverUIDValidity = ?, changedOnServer = 1
                    WHERE id = ?
                    """, arguments: [json, date.stored, copy.mailbox, copy.uid, copy.uidValidity, id])
        }
    }

    public func delete(id: Draft.ID) async throws {
        try await database.writer.write { db in
            // A draft in its undo window stays: its held message still needs it should its owner die.
            try db.execute(sql: "DELETE FROM draft WHERE id = ? AND (heldEmailId IS NULL OR syncState = 'removing')", arguments: [id])
        }
    }

    public func recordSyncFailure(id: Draft.ID, error: String, attempts: Int, notBefore: Date) async throws {
        try await database.writer.write { db in
            try db.execute(
                sql: "UPDATE draft SET syncAttempts = ?, syncNotBefore = ?, syncError = ? WHERE id = ?",
                arguments: [attempts, notBefore.stored, error, id])
        }
    }

    public func clearChangedOnServer(id: Draft.ID) async throws {
        try await database.writer.write { db in try db.execute(sql: "UPDATE draft SET changedOnServer = 0 WHERE id = ?", arguments: [id]) }
    }

    public func setHeld(id: Draft.ID, emailId: EmailID?) async throws {
        try await database.writer.write { db in
            try db.execute(sql: "UPDATE draft SET heldEmailId = ? WHERE id = ?", arguments: [emailId, id])
        }
    }

    public func returnOrphanToDraft(emailId: EmailID) async throws -> Bool {
        try await database.writer.write { db in
            guard let draftId = try DraftID.fetchOne(db, sql: "SELECT id FROM draft WHERE heldEmailId = ?", arguments: [emailId]) else {
                return false
            }
            if let email = try Email.fetchOne(db, key: emailId) {
                try SQLiteMessageStore.delete(email, db: db)
                if let thread = email.threadId { try SQLiteMessageStore.refresh(thread: thread, db: db) }
            }
            // Pending again, so the next pass makes sure the server's Drafts has it (it may have been killed before the upload).
            try db.execute(
                sql: """
                    UPDATE draft SET heldEmailId = NULL, syncState = 'pending', syncAttempts = 0, syncNotBefore = NULL WHERE id = ?
                    """, arguments: [draftId])
            return true
        }
    }

    static func encode(_ content: ComposeDraft) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(content), as: UTF8.self)
    }

    static func draft(_ row: Row) throws -> Draft {
        let content = try JSONDecoder().decode(ComposeDraft.self, from: Data((row["content"] as String).utf8))
        let uid: Int64? = row["serverUID"]
        let copy = uid.map { DraftServerCopy(mailbox: row["serverMailbox"] ?? "", uid: $0, uidValidity: row["serverUIDValidity"] ?? 0) }
        return Draft(
            id: row["id"], accountId: row["accountId"], messageId: row["messageId"], content: content, revision: row["revision"],
            createdDate: row["createdDate"], updatedDate: row["updatedDate"],
            sync: DraftSyncStatus(
                state: DraftSyncStatus.State(rawValue: row["syncState"]) ?? .pending, attempts: row["syncAttempts"],
                notBefore: row["syncNotBefore"], lastError: row["syncError"]),
            serverCopy: copy, changedOnServer: row["changedOnServer"], heldEmailId: row["heldEmailId"])
    }
}
