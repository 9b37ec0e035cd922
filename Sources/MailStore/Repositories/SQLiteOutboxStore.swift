import Foundation
import GRDB
import TernCore

/// `OutboxStore` on the local database: the Email row (`sendState` and friends) plus the exact
/// bytes in `outgoingMessage`. Every transition is one statement or one transaction.
public struct SQLiteOutboxStore: OutboxStore {
    let database: TernDatabase

    public init(database: TernDatabase) { self.database = database }

    public func enqueue(
        _ message: ComposedMessage, holdUntil: Date?, scheduledAt: Date? = nil, awaitingAttachments: Bool = false, at date: Date
    ) async throws -> EmailID {
        try await database.writer.write { db in
            var email = message.email
            email.id = nil
            email.threadId = nil
            email.sendState = .queued
            email.sendQueuedDate = date
            email.sendHoldUntil = holdUntil
            email.sendRetryCount = 0
            email.isRead = true
            email.createdDate = date
            try email.insert(db)
            var result = StoredBatch()
            try SQLiteMessageStore.thread(email, db: db, result: &result)
            for thread in result.threadsTouched.subtracting(result.threadsRemoved) { try SQLiteMessageStore.refresh(thread: thread, db: db) }
            var contacts = ContactTally()
            contacts.add(email)
            try contacts.write(db)
            var search = SearchIndexBatch(replacing: false)
            search.add(email)
            try search.write(db)
            let recipients = String(decoding: try JSONEncoder().encode(message.envelope.recipients), as: UTF8.self)
            try db.execute(
                sql: """
                    INSERT INTO outgoingMessage (emailId, rawMessage, envelopeSender, envelopeRecipients, awaitingAttachments)
                    VALUES (?, ?, ?, ?, ?)
                    """, arguments: [email.id, Data(message.raw), message.envelope.sender, recipients, awaitingAttachments])
            if let scheduledAt { try db.execute(sql: "UPDATE email SET sendScheduledAt = ? WHERE id = ?", arguments: [scheduledAt, email.id]) }
            return email.id!
        }
    }

    static let entryColumns = """
        id, accountId, messageId, subject, toAddresses, sendState, sendQueuedDate, sendNotBefore, sendHoldUntil, sendRetryCount,
        sendAttemptStartedDate, sendError, sendScheduledAt,
        COALESCE((SELECT awaitingAttachments FROM outgoingMessage WHERE outgoingMessage.emailId = email.id), 0) AS awaitingAttachments,
        COALESCE((SELECT waitingForServer FROM outgoingMessage WHERE outgoingMessage.emailId = email.id), 0) AS waitingForServer
        """

    static func entry(_ row: Row) -> OutboxEntry {
        let to = (try? JSONDecoder().decode([EmailAddress].self, from: Data((row["toAddresses"] as String).utf8))) ?? []
        return OutboxEntry(
            emailId: row["id"], accountId: row["accountId"], messageId: row["messageId"], subject: row["subject"], to: to,
            state: SendState(rawValue: row["sendState"]) ?? .failed, queuedDate: row["sendQueuedDate"],
            notBefore: row["sendNotBefore"], holdUntil: row["sendHoldUntil"], retryCount: row["sendRetryCount"],
            attemptStartedDate: row["sendAttemptStartedDate"], error: row["sendError"], awaitingAttachments: row["awaitingAttachments"],
            waitingForServer: row["waitingForServer"], scheduledAt: row["sendScheduledAt"])
    }

    public func pending(accountId: Account.ID) async throws -> [OutboxEntry] {
        try await database.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.entryColumns) FROM email WHERE accountId = ? AND sendState IN ('queued', 'sending')
                    ORDER BY sendQueuedDate, id
                    """, arguments: [accountId]
            ).map(Self.entry)
        }
    }

    public func outbox(accountId: Account.ID?) async throws -> [OutboxEntry] {
        try await database.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.entryColumns) FROM email WHERE (? IS NULL OR accountId = ?) AND sendState IN ('queued', 'sending', 'failed')
                    ORDER BY sendQueuedDate, id
                    """, arguments: [accountId, accountId]
            ).map(Self.entry)
        }
    }

    /// Along `email_scheduled_send` (v29): the few queued Send later messages, not the store. Asked by every
    /// command and at `tern serve`'s start, so its date is a `StoredDate`: GRDB's own Date argument would make
    /// an ICU date formatter first (issue 38).
    public func dueScheduled(at date: Date) async throws -> [OutboxEntry] {
        try await database.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.entryColumns) FROM email
                    WHERE sendScheduledAt IS NOT NULL AND sendState = 'queued' AND sendScheduledAt <= ?
                    ORDER BY sendScheduledAt, id
                    """, arguments: [date.stored]
            ).map(Self.entry)
        }
    }

    public func earliestScheduled() async throws -> Date? {
        try await database.writer.read { db in
            try Date.fetchOne(
                db, sql: "SELECT MIN(sendScheduledAt) FROM email WHERE sendScheduledAt IS NOT NULL AND sendState = 'queued'")
        }
    }

    public func entry(emailId: EmailID) async throws -> OutboxEntry? {
        try await database.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.entryColumns) FROM email WHERE id = ? AND sendState != 'none'", arguments: [emailId]).map(
                Self.entry)
        }
    }

    public func completeAttachments(_ emailId: EmailID, with message: ComposedMessage) async throws {
        let recipients = String(decoding: try JSONEncoder().encode(message.envelope.recipients), as: UTF8.self)
        try await database.writer.write { db in
            try db.execute(
                sql: """
                    UPDATE outgoingMessage SET rawMessage = ?, envelopeSender = ?, envelopeRecipients = ?, awaitingAttachments = 0
                    WHERE emailId = ?
                    """, arguments: [Data(message.raw), message.envelope.sender, recipients, emailId])
            try db.execute(sql: "UPDATE email SET sizeBytes = ? WHERE id = ?", arguments: [message.raw.count, emailId])
        }
    }

    public func submission(emailId: EmailID) async throws -> OutgoingSubmission? {
        try await database.writer.read { db in try Self.submission(emailId: emailId, db: db) }
    }

    static func submission(emailId: EmailID, db: Database) throws -> OutgoingSubmission? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT o.rawMessage, o.envelopeSender, o.envelopeRecipients, e.headerMessageId, e.dateSent, e.createdDate
                    FROM outgoingMessage o JOIN email e ON e.id = o.emailId WHERE o.emailId = ?
                    """, arguments: [emailId])
        else { return nil }
        let recipients = try JSONDecoder().decode([String].self, from: Data((row["envelopeRecipients"] as String).utf8))
        let raw: Data = row["rawMessage"]
        return OutgoingSubmission(
            emailId: emailId, messageId: row["headerMessageId"] ?? "", raw: [UInt8](raw),
            envelope: MessageEnvelope(sender: row["envelopeSender"], recipients: recipients),
            date: row["dateSent"] ?? row["createdDate"])
    }

    public func markSending(_ emailId: EmailID) async throws {
        try await database.writer.write { db in
            try db.execute(sql: "UPDATE email SET sendState = 'sending', sendAttemptStartedDate = NULL WHERE id = ?", arguments: [emailId])
        }
    }

    public func markAttemptStarted(_ emailId: EmailID, at date: Date) async throws {
        try await database.writer.write { db in
            try db.execute(sql: "UPDATE email SET sendAttemptStartedDate = ? WHERE id = ?", arguments: [date, emailId])
        }
    }

    public func markSent(_ emailId: EmailID, reply: String, note: String?, fileSentCopy: Bool, at date: Date) async throws {
        try await database.writer.write { db in
            try db.execute(
                sql: """
                    UPDATE email SET sendState = 'sent', sendAttemptStartedDate = NULL, sendNotBefore = NULL, sendHoldUntil = NULL,
                        sendError = ? WHERE id = ?
                    """, arguments: [note, emailId])
            try db.execute(sql: "UPDATE outgoingMessage SET serverReply = ?, sentDate = ? WHERE emailId = ?", arguments: [reply, date, emailId])
            try Self.removeDraft(sending: emailId, db: db)
            guard fileSentCopy, let accountId = try AccountID.fetchOne(db, sql: "SELECT accountId FROM email WHERE id = ?", arguments: [emailId])
            else { return }
            var operation = PendingOperation(accountId: accountId, kind: .fileSentCopy, emailId: emailId, createdDate: date)
            try operation.insert(db)
        }
    }

    public func scheduleRetry(_ emailId: EmailID, retryCount: Int, notBefore: Date, error: String, waitingForServer: Bool = false) async throws {
        try await database.writer.write { db in
            try db.execute(
                sql: """
                    UPDATE email SET sendState = 'queued', sendRetryCount = ?, sendNotBefore = ?, sendError = ?, sendAttemptStartedDate = NULL
                    WHERE id = ?
                    """, arguments: [retryCount, notBefore, error, emailId])
            try db.execute(sql: "UPDATE outgoingMessage SET waitingForServer = ? WHERE emailId = ?", arguments: [waitingForServer, emailId])
        }
    }

    public func markDeliveryUncertain(_ emailId: EmailID, retryCount: Int, notBefore: Date, error: String, at date: Date) async throws {
        try await database.writer.write { db in
            try db.execute(
                sql: """
                    UPDATE email SET sendState = 'sending', sendRetryCount = ?, sendNotBefore = ?, sendError = ?,
                        sendAttemptStartedDate = COALESCE(sendAttemptStartedDate, ?)
                    WHERE id = ?
                    """, arguments: [retryCount, notBefore, error, date, emailId])
        }
    }

    public func markFailed(_ emailId: EmailID, error: String) async throws {
        try await database.writer.write { db in
            try db.execute(
                sql: """
                    UPDATE email SET sendState = 'failed', sendError = ?, sendNotBefore = NULL, sendAttemptStartedDate = NULL WHERE id = ?
                    """, arguments: [error, emailId])
        }
    }

    public func requeue(_ emailId: EmailID, at date: Date) async throws {
        try await database.writer.write { db in
            try db.execute(
                sql: """
                    UPDATE email SET sendState = 'queued', sendRetryCount = 0, sendNotBefore = NULL, sendQueuedDate = ?, sendError = NULL,
                        sendAttemptStartedDate = NULL, sendHoldUntil = NULL, sendScheduledAt = NULL
                    WHERE id = ? AND sendState IN ('queued', 'failed')
                    """, arguments: [date, emailId])
        }
    }

    public func discard(_ emailId: EmailID) async throws {
        try await database.writer.write { db in
            guard let email = try Email.fetchOne(db, key: emailId) else { return }
            if email.sendHoldUntil == nil { try Self.removeDraft(sending: emailId, db: db) }
            try SQLiteMessageStore.delete(email, db: db)
            if let thread = email.threadId { try SQLiteMessageStore.refresh(thread: thread, db: db) }
        }
    }

    /// The draft a message was sent from stays linked to it until the message is sent or discarded
    /// (issue 34); then it is marked for removal, which the drafts pass finishes (the server's copy,
    /// the row, the draft's files); a draft marked so is never listed again.
    static func removeDraft(sending emailId: EmailID, db: Database) throws {
        try db.execute(
            sql: """
                UPDATE draft SET syncState = 'removing', syncAttempts = 0, syncNotBefore = NULL, syncError = NULL
                WHERE heldEmailId = ?
                """, arguments: [emailId])
    }

    public func setHold(_ emailId: EmailID, until date: Date?) async throws {
        try await database.writer.write { db in
            try db.execute(sql: "UPDATE email SET sendHoldUntil = ? WHERE id = ? AND sendState = 'queued'", arguments: [date, emailId])
        }
    }
}
