import Foundation
import GRDB
import TernCore

/// Writes what the sync engine fetched: dedup (FR-SYNC-01 step 6), folder associations, server
/// flags (FR-SYNC-05), threading (FR-SYNC-06) and thread metadata with the per-folder thread list,
/// all of a batch in one transaction, so a killed sync leaves either the whole batch or none of it.
public struct SQLiteMessageStore: Sendable {
    let database: TernDatabase

    public init(database: TernDatabase) { self.database = database }

    /// Stores a batch of one folder; `cursorUID` (the highest UID the batch completes) advances the
    /// folder's forward cursor in the same transaction.
    @discardableResult
    public func store(_ messages: [IncomingMessage], folderId: FolderID, cursorUID: Int64? = nil, backfillCursorUID: Int64? = nil)
        async throws -> StoredBatch
    {
        try await database.writer.write { db in
            var result = StoredBatch()
            var search = SearchIndexBatch(replacing: false)
            var contacts = ContactTally()
            for message in messages {
                try Self.store(message, folderId: folderId, db: db, result: &result, search: &search, contacts: &contacts)
            }
            for thread in result.threadsTouched.subtracting(result.threadsRemoved) { try Self.refresh(thread: thread, db: db) }
            try contacts.write(db)
            try search.write(db)
            if let cursorUID {
                try db.execute(
                    sql: "UPDATE folder SET forwardCursorUID = MAX(COALESCE(forwardCursorUID, 0), ?) WHERE id = ?",
                    arguments: [cursorUID, folderId])
            }
            if let backfillCursorUID {
                try db.execute(
                    sql: "UPDATE folder SET backfillCursorUID = MIN(COALESCE(backfillCursorUID, ?), ?) WHERE id = ?",
                    arguments: [backfillCursorUID, backfillCursorUID, folderId])
            }
            return result
        }
    }

    static func store(
        _ message: IncomingMessage, folderId: FolderID, db: Database, result: inout StoredBatch,
        search: inout SearchIndexBatch, contacts: inout ContactTally
    ) throws {
        var incoming = message.applyingServerFlags(to: message.email)
        if let existing = try existingEmail(for: &incoming, db: db) {
            let flags = [incoming.isRead, incoming.isStarred, incoming.isAnswered, incoming.isDraft]
            if flags != existing.flags {
                try db.cachedStatement(sql: "UPDATE email SET isRead = ?, isStarred = ?, isAnswered = ?, isDraft = ? WHERE id = ?")
                    .execute(arguments: [flags[0], flags[1], flags[2], flags[3], existing.id])
            }
            try associate(emailId: existing.id, message: message, folderId: folderId, db: db)
            result.linked += 1
            if let thread = existing.threadId { result.threadsTouched.insert(thread) }
            return
        }
        // Threaded first, so the row is written once with its thread.
        incoming.threadId = try link(incoming, db: db, result: &result)
        try insert(&incoming, db: db)
        let emailId = incoming.id!
        try associate(emailId: emailId, message: message, folderId: folderId, db: db)
        for attachment in message.attachments {
            try db.cachedStatement(
                sql: """
                    INSERT OR IGNORE INTO attachment (emailId, partId, filename, mimeType, sizeBytes, contentId, isInline, transferEncoding)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                emailId, attachment.partId, attachment.filename, attachment.mimeType, attachment.sizeBytes,
                attachment.contentId, attachment.isInline, attachment.transferEncoding
            ])
        }
        search.add(incoming, text: message.searchText)
        contacts.add(incoming)
        result.newMessages.append(
            NewMessage(
                emailId: emailId, from: EmailAddress(name: incoming.fromName, address: incoming.fromAddress),
                subject: incoming.subject, date: incoming.dateSent ?? incoming.dateReceived, threadId: incoming.threadId,
                isRead: incoming.isRead))
    }

    /// What every new Email gets, synced or composed here: its thread (FR-SYNC-06). Its search row
    /// and contacts are counted in the transaction's `SearchIndexBatch` and `ContactTally`.
    static func thread(_ email: Email, db: Database, result: inout StoredBatch) throws {
        let thread = try link(email, db: db, result: &result)
        try db.cachedStatement(sql: "UPDATE email SET threadId = ? WHERE id = ?").execute(arguments: [thread, email.id])
    }

    /// Links a new Email into the thread graph; returns its thread, created when it starts one.
    static func link(_ email: Email, db: Database, result: inout StoredBatch) throws -> ThreadID {
        var nodes = SQLiteThreadNodes(db: db, accountId: email.accountId)
        let node = try ThreadLinker.add(ThreadingHeaders(email), to: &nodes)
        let thread = try nodes.thread(for: nodes.component(of: node), creatingFrom: email)
        result.inserted += 1
        result.threadsTouched.insert(thread)
        result.threadsTouched.formUnion(nodes.threadsTouched)
        result.threadsRemoved.formUnion(nodes.threadsRemoved)
        return thread
    }

    /// Inserts a new Email with one cached statement: the Codable record path (encoding every
    /// property through a keyed container) was an eighth of a first sync.
    static func insert(_ email: inout Email, db: Database) throws {
        let json = AddressJSON.text
        try db.cachedStatement(
            sql: """
                INSERT INTO email (accountId, threadId, messageId, headerMessageId, dedupKey, inReplyTo, "references", subject, fromName,
                    fromAddress, toAddresses, ccAddresses, bccAddresses, replyTo, dateSent, dateReceived, snippet, bodyPlain, bodyHTML,
                    bodyTruncated, bodiesFetched, bodyStructure, sizeBytes, hasAttachments, isRead, isStarred, isAnswered, isDraft,
                    deletedDate, sendState, sendRetryCount, sendQueuedDate, sendNotBefore, sendHoldUntil, sendAttemptStartedDate,
                    sendError, createdDate, bulkMarkers, authenticationResults, deliveredTo, readReceiptTo, readReceiptState,
                    originalRecipient)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            email.accountId, email.threadId, email.messageId, email.headerMessageId, email.dedupKey, email.inReplyTo, email.references,
            email.subject, email.fromName, email.fromAddress, json(email.toAddresses), json(email.ccAddresses), json(email.bccAddresses),
            json(email.replyTo), email.dateSent.stored, email.dateReceived.stored, email.snippet, email.bodyPlain, email.bodyHTML,
            email.bodyTruncated,
            email.bodiesFetched, email.bodyStructure, email.sizeBytes, email.hasAttachments, email.isRead, email.isStarred,
            email.isAnswered, email.isDraft, email.deletedDate.stored, email.sendState.rawValue, email.sendRetryCount, email.sendQueuedDate.stored,
            email.sendNotBefore.stored, email.sendHoldUntil.stored, email.sendAttemptStartedDate.stored, email.sendError, email.createdDate.stored,
            email.bulkMarkers.rawValue, email.authenticationResults.map(AuthenticationResultsJSON.text), DeliveredToJSON.text(email.deliveredTo),
            json(email.readReceiptTo),
            email.readReceiptState?.rawValue, email.originalRecipient
        ])
        email.id = EmailID(db.lastInsertedRowID)
    }

    /// Removes an Email for good; its Message-ID stops counting as stored for threading. The caller
    /// refreshes its thread.
    static func delete(_ email: Email, db: Database) throws {
        if let id = ThreadingHeaders.ids(email.headerMessageId).first {
            try db.execute(sql: "UPDATE threadNode SET isPresent = 0 WHERE accountId = ? AND messageId = ?", arguments: [email.accountId, id])
        }
        try db.execute(sql: "DELETE FROM email WHERE id = ?", arguments: [email.id])
    }

    /// FR-COMP-04: at most 10,000 contacts per account; the least frequent, then the oldest, go first.
    static let contactLimit = 10_000

    static func evictContacts(accountId: Account.ID, db: Database) throws {
        let count =
            try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM contactCacheEntry WHERE accountId = ?"), arguments: [accountId]) ?? 0
        guard count > contactLimit else { return }
        try db.execute(
            sql: """
                DELETE FROM contactCacheEntry WHERE id IN (
                    SELECT id FROM contactCacheEntry WHERE accountId = ? ORDER BY frequency ASC, lastSeenDate ASC LIMIT ?)
                """, arguments: [accountId, count - contactLimit])
    }

    /// What dedup needs of a stored Email, without decoding the whole row.
    struct StoredIdentity {
        var id: EmailID
        var dedupKey: String
        var threadId: ThreadID?
        var flags: [Bool]

        init(row: Row) {
            id = row["id"]
            dedupKey = row["dedupKey"]
            threadId = row["threadId"]
            flags = [row["isRead"], row["isStarred"], row["isAnswered"], row["isDraft"]]
        }
    }

    /// The stored Email this message is, by Message-ID then canonical key. A Message-ID already
    /// carried by a different message (another canonical key) is not an identity: `email.messageId`
    /// is cleared so the two stay apart (FR-SYNC-01 step 6's "duplicate Message-ID" case).
    static func existingEmail(for email: inout Email, db: Database) throws -> StoredIdentity? {
        // Both keys in one statement (each has its unique index): at most two rows.
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT id, dedupKey, threadId, isRead, isStarred, isAnswered, isDraft, messageId FROM email
                    WHERE accountId = ? AND (messageId = ? OR dedupKey = ?)
                    """), arguments: [email.accountId, email.messageId, email.dedupKey])
        guard !rows.isEmpty else { return nil }
        if let messageId = email.messageId, let row = rows.first(where: { $0["messageId"] == messageId }) {
            let byMessageId = StoredIdentity(row: row)
            if byMessageId.dedupKey == email.dedupKey { return byMessageId }
            email.messageId = nil
        }
        return rows.first { $0["dedupKey"] == email.dedupKey }.map(StoredIdentity.init)
    }

    static func associate(emailId: EmailID, message: IncomingMessage, folderId: FolderID, db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO emailFolder (emailId, folderId, imapUID, modSeq, serverFlags) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (folderId, imapUID) DO UPDATE SET emailId = excluded.emailId, modSeq = excluded.modSeq,
                    serverFlags = excluded.serverFlags
                """
        ).execute(arguments: [emailId, folderId, message.uid, message.modSeq, message.serverFlags.joined(separator: " ")])
        // Issue 36: woken from snooze by this Tern or another; its thread sorts at that time.
        if let woken = SnoozeKeyword.woken(in: message.serverFlags) {
            try db.cachedStatement(sql: "UPDATE email SET wokenDate = ? WHERE id = ? AND (wokenDate IS NULL OR wokenDate < ?)")
                .execute(arguments: [woken.stored, emailId, woken.stored])
        }
    }

    /// FR-SYNC-06 step 5, and the thread's rows in the per-folder thread list. A thread woken from
    /// snooze sorts at its wake time (issue 36: "on top"): the list walks the same index, by a date
    /// that counts the wake.
    static func refresh(thread: ThreadID, db: Database) throws {
        // Only the columns metadata needs: decoding whole Emails (bodies included) per batch was the
        // largest cost of a first sync.
        // Dates read as seconds computed by SQLite: parsing the stored text in Swift row by row was
        // a third of this function.
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT id, subject, fromName, fromAddress, \(StoredDate.secondsSQL("dateSent")), \(StoredDate.secondsSQL("dateReceived")),
                        snippet, isRead, isStarred, hasAttachments
                    FROM email WHERE threadId = ?
                    """), arguments: [thread])
        let messages = rows.map { row in
            Email(
                id: row[0], accountId: AccountID(""), messageId: nil, dedupKey: "", subject: row[1], fromName: row[2],
                fromAddress: row[3], dateSent: (row[4] as Double?).map(StoredDate.date(seconds:)),
                dateReceived: StoredDate.date(seconds: row[5] ?? 0), snippet: row[6],
                hasAttachments: row[9], isRead: row[7], isStarred: row[8], createdDate: Date(timeIntervalSince1970: 0))
        }
        guard let metadata = ThreadMetadata(messages: messages) else {
            try db.cachedStatement(sql: "DELETE FROM thread WHERE id = ?").execute(arguments: [thread])
            return
        }
        let participants = AddressJSON.text(metadata.participants)
        try db.cachedStatement(
            sql: """
                UPDATE thread SET subject = ?, normalizedSubject = ?, latestDate = ?, earliestDate = ?, messageCount = ?,
                    unreadCount = ?, participants = ?, snippet = ?, hasAttachments = ?, isStarred = ?
                WHERE id = ?
                """
        ).execute(arguments: [
            metadata.subject, metadata.normalizedSubject, metadata.latestDate.stored, metadata.earliestDate.stored,
            metadata.messageCount, metadata.unreadCount, participants, metadata.snippet, metadata.hasAttachments,
            metadata.isStarred, thread
        ])
        try db.cachedStatement(sql: "DELETE FROM threadFolder WHERE threadId = ?").execute(arguments: [thread])
        try db.cachedStatement(
            sql: """
                INSERT INTO threadFolder (threadId, folderId, latestDate, messageCount, unreadCount)
                SELECT ?, ef.folderId, MAX(MAX(COALESCE(e.dateSent, e.dateReceived), COALESCE(e.wokenDate, ''))), COUNT(*), SUM(NOT e.isRead)
                FROM emailFolder ef JOIN email e ON e.id = ef.emailId
                WHERE e.threadId = ?
                GROUP BY ef.folderId
                """
        ).execute(arguments: [thread, thread])
    }
}

/// `ThreadNodeStore` on the `threadNode` table, inside one write transaction. Made for one
/// message's `ThreadLinker.add`: the node rows it reads are kept for the rest of that call (a union
/// forgets their components), which halved the statements threading ran per message.
struct SQLiteThreadNodes: ThreadNodeStore {
    let db: Database
    let accountId: Account.ID
    private(set) var threadsTouched: Set<ThreadID> = []
    private(set) var threadsRemoved: Set<ThreadID> = []
    private let rows = NodeRows()

    /// Node rows read or written during one `ThreadLinker.add`; nil component: read it again.
    private final class NodeRows {
        var byId: [Int64: (isPresent: Bool, hasParent: Bool, component: Int64?)] = [:]
        /// Message-ID to node, for the ids of a References chain looked up twice (child, then ancestor).
        var byMessageId: [String: Int64] = [:]
    }

    init(db: Database, accountId: Account.ID) {
        self.db = db
        self.accountId = accountId
    }

    func existingNode(for messageID: String) throws -> Int64? {
        if let known = rows.byMessageId[messageID] { return known }
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT id, isPresent, hasParent, component FROM threadNode WHERE accountId = ? AND messageId = ?
                        """), arguments: [accountId, messageID])
        else { return nil }
        let id: Int64 = row[0]
        rows.byId[id] = (row[1], row[2], row[3])
        rows.byMessageId[messageID] = id
        return id
    }

    mutating func createNode(for messageID: String?) throws -> Int64 { try insertNode(messageID, present: false) }
    mutating func createPresentNode(for messageID: String?) throws -> Int64 { try insertNode(messageID, present: true) }

    private func insertNode(_ messageID: String?, present: Bool) throws -> Int64 {
        // A node starts as its own component: the id AUTOINCREMENT is about to give it, checked after.
        let row = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    INSERT INTO threadNode (accountId, messageId, isPresent, component)
                    VALUES (?, ?, ?, COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'threadNode'), 0) + 1)
                    RETURNING id, component
                    """), arguments: [accountId, messageID, present])!
        let (id, component): (Int64, Int64) = (row[0], row[1])
        if component != id {
            try db.cachedStatement(sql: "UPDATE threadNode SET component = id WHERE id = ?").execute(arguments: [id])
        }
        rows.byId[id] = (present, false, id)
        if let messageID { rows.byMessageId[messageID] = id }
        return id
    }

    func isPresent(_ node: Int64) throws -> Bool { try row(node).isPresent }
    func hasParent(_ node: Int64) throws -> Bool { try row(node).hasParent }

    mutating func markPresent(_ node: Int64) throws {
        try db.cachedStatement(sql: "UPDATE threadNode SET isPresent = 1 WHERE id = ?").execute(arguments: [node])
        rows.byId[node]?.isPresent = true
    }

    mutating func markHasParent(_ node: Int64) throws {
        try db.cachedStatement(sql: "UPDATE threadNode SET hasParent = 1 WHERE id = ?").execute(arguments: [node])
        rows.byId[node]?.hasParent = true
    }

    private func row(_ node: Int64) throws -> (isPresent: Bool, hasParent: Bool, component: Int64?) {
        if let known = rows.byId[node] { return known }
        let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT isPresent, hasParent, component FROM threadNode WHERE id = ?"),
            arguments: [node])
        let value: (isPresent: Bool, hasParent: Bool, component: Int64?) = (row?[0] ?? false, row?[1] ?? false, row?[2] ?? node)
        rows.byId[node] = value
        return value
    }

    func component(of node: Int64) throws -> Int64 {
        if let component = try row(node).component { return component }
        let component = try Int64.fetchOne(db.cachedStatement(sql: "SELECT component FROM threadNode WHERE id = ?"), arguments: [node]) ?? node
        rows.byId[node]?.component = component
        return component
    }

    private func threadOf(component: Int64) throws -> ThreadID? {
        try ThreadID.fetchOne(db.cachedStatement(sql: "SELECT id FROM thread WHERE component = ?"), arguments: [component])
    }

    /// Keeps the component with the older thread; the other's messages and nodes move to it.
    @discardableResult
    mutating func union(_ a: Int64, _ b: Int64) throws -> Int64 {
        guard a != b else { return a }
        let (threadA, threadB) = (try threadOf(component: a), try threadOf(component: b))
        let keepA: Bool =
            switch (threadA, threadB) {
            case (let x?, let y?): x < y
            case (nil, _?): false
            default: true
            }
        let (keep, absorb) = keepA ? (a, b) : (b, a)
        let (keptThread, absorbedThread) = keepA ? (threadA, threadB) : (threadB, threadA)
        try db.cachedStatement(sql: "UPDATE threadNode SET component = ? WHERE component = ?").execute(arguments: [keep, absorb])
        for id in rows.byId.keys { rows.byId[id]?.component = nil }
        switch (keptThread, absorbedThread) {
        case (let kept?, let absorbed?):
            try db.execute(sql: "UPDATE email SET threadId = ? WHERE threadId = ?", arguments: [kept, absorbed])
            try db.execute(sql: "DELETE FROM thread WHERE id = ?", arguments: [absorbed])
            threadsTouched.insert(kept)
            threadsRemoved.insert(absorbed)
        case (nil, let absorbed?):
            try db.execute(sql: "UPDATE thread SET component = ? WHERE id = ?", arguments: [keep, absorbed])
        default:
            break
        }
        return keep
    }

    func subjectCandidates(account: AccountID, subject: String) throws -> [(component: Int64, earliest: Date, latest: Date)] {
        try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT component, earliestDate, latestDate FROM thread
                    WHERE accountId = ? AND normalizedSubject = ? AND component IS NOT NULL
                    """), arguments: [account, subject]
        ).map { ($0["component"], $0["earliestDate"], $0["latestDate"]) }
    }

    /// The thread row of a component, created for its first stored message.
    mutating func thread(for component: Int64, creatingFrom email: Email) throws -> ThreadID {
        if let existing = try threadOf(component: component) { return existing }
        let date = email.dateSent ?? email.dateReceived
        try db.cachedStatement(
            sql: """
                INSERT INTO thread (accountId, subject, normalizedSubject, latestDate, earliestDate, component) VALUES (?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [accountId, email.subject, SubjectNormalizer.normalize(email.subject), date.stored, date.stored, component])
        return ThreadID(db.lastInsertedRowID)
    }
}
