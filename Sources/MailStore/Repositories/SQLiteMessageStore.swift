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
    public func store(_ messages: [IncomingMessage], folderId: Int64, cursorUID: Int64? = nil, backfillCursorUID: Int64? = nil)
        async throws -> StoredBatch {
        try await database.writer.write { db in
            var result = StoredBatch()
            for message in messages { try Self.store(message, folderId: folderId, db: db, result: &result) }
            for thread in result.threadsTouched.subtracting(result.threadsRemoved) { try Self.refresh(thread: thread, db: db) }
            if result.inserted > 0, let accountId = messages.first?.email.accountId { try Self.evictContacts(accountId: accountId, db: db) }
            if let cursorUID {
                try db.execute(sql: "UPDATE folder SET forwardCursorUID = MAX(COALESCE(forwardCursorUID, 0), ?) WHERE id = ?",
                               arguments: [cursorUID, folderId])
            }
            if let backfillCursorUID {
                try db.execute(sql: "UPDATE folder SET backfillCursorUID = MIN(COALESCE(backfillCursorUID, ?), ?) WHERE id = ?",
                               arguments: [backfillCursorUID, backfillCursorUID, folderId])
            }
            return result
        }
    }

    static func store(_ message: IncomingMessage, folderId: Int64, db: Database, result: inout StoredBatch) throws {
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
        incoming.threadId = nil
        try insert(&incoming, db: db)
        let emailId = incoming.id!
        try associate(emailId: emailId, message: message, folderId: folderId, db: db)
        for var attachment in message.attachments {
            attachment.emailId = emailId
            try attachment.insert(db, onConflict: .ignore)
        }
        try indexAndThread(incoming, db: db, result: &result)
        result.newMessages.append(NewMessage(emailId: emailId, from: EmailAddress(name: incoming.fromName, address: incoming.fromAddress),
                                             subject: incoming.subject, date: incoming.dateSent ?? incoming.dateReceived))
    }

    /// What every new Email gets, synced or composed here: its search row, its contacts, its thread.
    static func indexAndThread(_ email: Email, db: Database, result: inout StoredBatch) throws {
        try index(email, db: db)
        try rememberContacts(of: email, db: db)
        var nodes = SQLiteThreadNodes(db: db, accountId: email.accountId)
        let node = try ThreadLinker.add(ThreadingHeaders(email), to: &nodes)
        let thread = try nodes.thread(for: nodes.component(of: node), creatingFrom: email)
        try db.cachedStatement(sql: "UPDATE email SET threadId = ? WHERE id = ?").execute(arguments: [thread, email.id])
        result.inserted += 1
        result.threadsTouched.insert(thread)
        result.threadsTouched.formUnion(nodes.threadsTouched)
        result.threadsRemoved.formUnion(nodes.threadsRemoved)
    }

    /// Inserts a new Email with one cached statement: the Codable record path (encoding every
    /// property through a keyed container) was an eighth of a first sync.
    static func insert(_ email: inout Email, db: Database) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        func json(_ addresses: [EmailAddress]) -> String {
            guard !addresses.isEmpty else { return "[]" }
            return (try? encoder.encode(addresses)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        }
        try db.cachedStatement(sql: """
            INSERT INTO email (accountId, threadId, messageId, headerMessageId, dedupKey, inReplyTo, "references", subject, fromName,
                fromAddress, toAddresses, ccAddresses, bccAddresses, replyTo, dateSent, dateReceived, snippet, bodyPlain, bodyHTML,
                bodyTruncated, bodiesFetched, bodyStructure, sizeBytes, hasAttachments, isRead, isStarred, isAnswered, isDraft,
                deletedDate, sendState, sendRetryCount, sendQueuedDate, sendNotBefore, sendHoldUntil, sendAttemptStartedDate,
                sendError, createdDate)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                email.accountId, email.threadId, email.messageId, email.headerMessageId, email.dedupKey, email.inReplyTo, email.references,
                email.subject, email.fromName, email.fromAddress, json(email.toAddresses), json(email.ccAddresses), json(email.bccAddresses),
                json(email.replyTo), email.dateSent, email.dateReceived, email.snippet, email.bodyPlain, email.bodyHTML, email.bodyTruncated,
                email.bodiesFetched, email.bodyStructure, email.sizeBytes, email.hasAttachments, email.isRead, email.isStarred,
                email.isAnswered, email.isDraft, email.deletedDate, email.sendState.rawValue, email.sendRetryCount, email.sendQueuedDate,
                email.sendNotBefore, email.sendHoldUntil, email.sendAttemptStartedDate, email.sendError, email.createdDate,
            ])
        email.id = db.lastInsertedRowID
    }

    /// Removes an Email for good; its Message-ID stops counting as stored for threading. The caller
    /// refreshes its thread.
    static func delete(_ email: Email, db: Database) throws {
        if let id = ThreadingHeaders.ids(email.headerMessageId).first {
            try db.execute(sql: "UPDATE threadNode SET isPresent = 0 WHERE accountId = ? AND messageId = ?", arguments: [email.accountId, id])
        }
        try db.execute(sql: "DELETE FROM email WHERE id = ?", arguments: [email.id])
    }

    /// FR-SYNC-04 Indexing: subject, sender, recipients and text into FTS5 (rowid = email id). The
    /// text is the plain body, or the snippet until bodies are fetched.
    static func index(_ email: Email, text: String? = nil, db: Database) throws {
        let recipients = (email.toAddresses + email.ccAddresses).map { [$0.name, $0.address].compactMap { $0 }.joined(separator: " ") }
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO searchIndex (rowid, subject, sender, recipients, content) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [email.id, email.subject, [email.fromName, email.fromAddress].compactMap { $0 }.joined(separator: " "),
                                 recipients.joined(separator: ", "), email.bodyPlain ?? text ?? email.snippet ?? ""])
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO searchIndexState (emailId, indexedDate, failureCount) VALUES (?, ?, 0)")
            .execute(arguments: [email.id, Date()])
    }

    /// FR-COMP-04: From, To and Cc of every newly synced email, counted per account.
    static func rememberContacts(of email: Email, db: Database) throws {
        let seen = email.dateSent ?? email.dateReceived
        var addresses = email.toAddresses + email.ccAddresses
        if !email.fromAddress.isEmpty { addresses.append(EmailAddress(name: email.fromName, address: email.fromAddress)) }
        for address in addresses where address.address.contains("@") {
            try db.cachedStatement(sql: """
                INSERT INTO contactCacheEntry (id, accountId, emailAddress, displayName, lastSeenDate, frequency) VALUES (?, ?, ?, ?, ?, 1)
                ON CONFLICT (accountId, emailAddress) DO UPDATE SET
                    frequency = frequency + 1,
                    displayName = CASE WHEN excluded.displayName IS NOT NULL AND excluded.lastSeenDate >= lastSeenDate
                                       THEN excluded.displayName ELSE displayName END,
                    lastSeenDate = MAX(lastSeenDate, excluded.lastSeenDate)
                """).execute(arguments: [UUID().uuidString.lowercased(), email.accountId, address.address.lowercased(), address.name, seen])
        }
    }

    /// FR-COMP-04: at most 10,000 contacts per account; the least frequent, then the oldest, go first.
    static let contactLimit = 10_000

    static func evictContacts(accountId: Account.ID, db: Database) throws {
        let count = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM contactCacheEntry WHERE accountId = ?"), arguments: [accountId]) ?? 0
        guard count > contactLimit else { return }
        try db.execute(sql: """
            DELETE FROM contactCacheEntry WHERE id IN (
                SELECT id FROM contactCacheEntry WHERE accountId = ? ORDER BY frequency ASC, lastSeenDate ASC LIMIT ?)
            """, arguments: [accountId, count - contactLimit])
    }

    /// What dedup needs of a stored Email, without decoding the whole row.
    struct StoredIdentity {
        var id: Int64
        var dedupKey: String
        var threadId: Int64?
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
        let columns = "id, dedupKey, threadId, isRead, isStarred, isAnswered, isDraft"
        if let messageId = email.messageId,
           let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT \(columns) FROM email WHERE accountId = ? AND messageId = ?"),
                                      arguments: [email.accountId, messageId]) {
            let byMessageId = StoredIdentity(row: row)
            if byMessageId.dedupKey == email.dedupKey { return byMessageId }
            email.messageId = nil
        }
        return try Row.fetchOne(db.cachedStatement(sql: "SELECT \(columns) FROM email WHERE accountId = ? AND dedupKey = ?"),
                                arguments: [email.accountId, email.dedupKey]).map(StoredIdentity.init)
    }

    static func associate(emailId: Int64, message: IncomingMessage, folderId: Int64, db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO emailFolder (emailId, folderId, imapUID, modSeq, serverFlags) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (folderId, imapUID) DO UPDATE SET emailId = excluded.emailId, modSeq = excluded.modSeq,
                serverFlags = excluded.serverFlags
            """).execute(arguments: [emailId, folderId, message.uid, message.modSeq, message.serverFlags.joined(separator: " ")])
    }

    /// FR-SYNC-06 step 5, and the thread's rows in the per-folder thread list.
    static func refresh(thread: Int64, db: Database) throws {
        // Only the columns metadata needs: decoding whole Emails (bodies included) per batch was the
        // largest cost of a first sync.
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT id, subject, fromName, fromAddress, dateSent, dateReceived, snippet, isRead, isStarred, hasAttachments
            FROM email WHERE threadId = ?
            """), arguments: [thread])
        let messages = rows.map { row in
            Email(id: row["id"], accountId: "", messageId: nil, dedupKey: "", subject: row["subject"], fromName: row["fromName"],
                  fromAddress: row["fromAddress"], dateSent: row["dateSent"], dateReceived: row["dateReceived"], snippet: row["snippet"],
                  hasAttachments: row["hasAttachments"], isRead: row["isRead"], isStarred: row["isStarred"], createdDate: Date(timeIntervalSince1970: 0))
        }
        guard let metadata = ThreadMetadata(messages: messages) else {
            try db.cachedStatement(sql: "DELETE FROM thread WHERE id = ?").execute(arguments: [thread])
            return
        }
        let participants = String(decoding: try JSONEncoder().encode(metadata.participants), as: UTF8.self)
        try db.cachedStatement(sql: """
            UPDATE thread SET subject = ?, normalizedSubject = ?, latestDate = ?, earliestDate = ?, messageCount = ?,
                unreadCount = ?, participants = ?, snippet = ?, hasAttachments = ?, isStarred = ?
            WHERE id = ?
            """).execute(arguments: [metadata.subject, metadata.normalizedSubject, metadata.latestDate, metadata.earliestDate,
                                     metadata.messageCount, metadata.unreadCount, participants, metadata.snippet, metadata.hasAttachments,
                                     metadata.isStarred, thread])
        try db.cachedStatement(sql: "DELETE FROM threadFolder WHERE threadId = ?").execute(arguments: [thread])
        try db.cachedStatement(sql: """
            INSERT INTO threadFolder (threadId, folderId, latestDate, messageCount, unreadCount)
            SELECT ?, ef.folderId, MAX(COALESCE(e.dateSent, e.dateReceived)), COUNT(*), SUM(NOT e.isRead)
            FROM emailFolder ef JOIN email e ON e.id = ef.emailId
            WHERE e.threadId = ?
            GROUP BY ef.folderId
            """).execute(arguments: [thread, thread])
    }
}

/// `ThreadNodeStore` on the `threadNode` table, inside one write transaction.
struct SQLiteThreadNodes: ThreadNodeStore {
    let db: Database
    let accountId: Account.ID
    private(set) var threadsTouched: Set<Int64> = []
    private(set) var threadsRemoved: Set<Int64> = []

    init(db: Database, accountId: Account.ID) {
        self.db = db
        self.accountId = accountId
    }

    func existingNode(for messageID: String) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM threadNode WHERE accountId = ? AND messageId = ?"), arguments: [accountId, messageID])
    }

    mutating func createNode(for messageID: String?) throws -> Int64 {
        try db.cachedStatement(sql: "INSERT INTO threadNode (accountId, messageId, component) VALUES (?, ?, 0)").execute(arguments: [accountId, messageID])
        let id = db.lastInsertedRowID
        try db.cachedStatement(sql: "UPDATE threadNode SET component = id WHERE id = ?").execute(arguments: [id])
        return id
    }

    func isPresent(_ node: Int64) throws -> Bool { try flag("isPresent", of: node) }
    func hasParent(_ node: Int64) throws -> Bool { try flag("hasParent", of: node) }
    mutating func markPresent(_ node: Int64) throws { try db.cachedStatement(sql: "UPDATE threadNode SET isPresent = 1 WHERE id = ?").execute(arguments: [node]) }
    mutating func markHasParent(_ node: Int64) throws { try db.cachedStatement(sql: "UPDATE threadNode SET hasParent = 1 WHERE id = ?").execute(arguments: [node]) }

    private func flag(_ column: String, of node: Int64) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT \(column) FROM threadNode WHERE id = ?"), arguments: [node]) ?? false
    }

    func component(of node: Int64) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT component FROM threadNode WHERE id = ?"), arguments: [node]) ?? node
    }

    private func threadOf(component: Int64) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM thread WHERE component = ?"), arguments: [component])
    }

    /// Keeps the component with the older thread; the other's messages and nodes move to it.
    @discardableResult
    mutating func union(_ a: Int64, _ b: Int64) throws -> Int64 {
        guard a != b else { return a }
        let (threadA, threadB) = (try threadOf(component: a), try threadOf(component: b))
        let keepA: Bool = switch (threadA, threadB) {
        case (let x?, let y?): x < y
        case (nil, _?): false
        default: true
        }
        let (keep, absorb) = keepA ? (a, b) : (b, a)
        let (keptThread, absorbedThread) = keepA ? (threadA, threadB) : (threadB, threadA)
        try db.cachedStatement(sql: "UPDATE threadNode SET component = ? WHERE component = ?").execute(arguments: [keep, absorb])
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

    func subjectCandidates(account: String, subject: String) throws -> [(component: Int64, earliest: Date, latest: Date)] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT component, earliestDate, latestDate FROM thread
            WHERE accountId = ? AND normalizedSubject = ? AND component IS NOT NULL
            """), arguments: [account, subject]).map { ($0["component"], $0["earliestDate"], $0["latestDate"]) }
    }

    /// The thread row of a component, created for its first stored message.
    mutating func thread(for component: Int64, creatingFrom email: Email) throws -> Int64 {
        if let existing = try threadOf(component: component) { return existing }
        let date = email.dateSent ?? email.dateReceived
        var thread = MailThread(accountId: accountId, subject: email.subject, normalizedSubject: SubjectNormalizer.normalize(email.subject),
                                latestDate: date, earliestDate: date)
        try thread.insert(db)
        try db.execute(sql: "UPDATE thread SET component = ? WHERE id = ?", arguments: [component, thread.id!])
        return thread.id!
    }
}
