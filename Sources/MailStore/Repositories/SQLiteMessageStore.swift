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
    public func store(_ messages: [IncomingMessage], folderId: Int64, cursorUID: Int64? = nil) async throws -> StoredBatch {
        try await database.writer.write { db in
            var result = StoredBatch()
            for message in messages { try Self.store(message, folderId: folderId, db: db, result: &result) }
            for thread in result.threadsTouched.subtracting(result.threadsRemoved) { try Self.refresh(thread: thread, db: db) }
            if let cursorUID {
                try db.execute(sql: "UPDATE folder SET forwardCursorUID = MAX(COALESCE(forwardCursorUID, 0), ?) WHERE id = ?",
                               arguments: [cursorUID, folderId])
            }
            return result
        }
    }

    static func store(_ message: IncomingMessage, folderId: Int64, db: Database, result: inout StoredBatch) throws {
        var incoming = message.applyingServerFlags(to: message.email)
        if let existing = try existingEmail(for: &incoming, db: db) {
            var updated = existing
            updated.isRead = incoming.isRead
            updated.isStarred = incoming.isStarred
            updated.isAnswered = incoming.isAnswered
            updated.isDraft = incoming.isDraft
            if updated != existing { try updated.update(db) }
            try associate(emailId: existing.id!, message: message, folderId: folderId, db: db)
            result.linked += 1
            if let thread = existing.threadId { result.threadsTouched.insert(thread) }
            return
        }
        incoming.threadId = nil
        try incoming.insert(db)
        let emailId = incoming.id!
        try associate(emailId: emailId, message: message, folderId: folderId, db: db)
        for var attachment in message.attachments {
            attachment.emailId = emailId
            try attachment.insert(db, onConflict: .ignore)
        }
        var nodes = SQLiteThreadNodes(db: db, accountId: incoming.accountId)
        let node = try ThreadLinker.add(ThreadingHeaders(incoming), to: &nodes)
        let thread = try nodes.thread(for: nodes.component(of: node), creatingFrom: incoming)
        try db.execute(sql: "UPDATE email SET threadId = ? WHERE id = ?", arguments: [thread, emailId])
        result.inserted += 1
        result.threadsTouched.insert(thread)
        result.threadsTouched.formUnion(nodes.threadsTouched)
        result.threadsRemoved.formUnion(nodes.threadsRemoved)
    }

    /// The stored Email this message is, by Message-ID then canonical key. A Message-ID already
    /// carried by a different message (another canonical key) is not an identity: `email.messageId`
    /// is cleared so the two stay apart (FR-SYNC-01 step 6's "duplicate Message-ID" case).
    static func existingEmail(for email: inout Email, db: Database) throws -> Email? {
        if let messageId = email.messageId,
           let byMessageId = try Email.filter(Column("accountId") == email.accountId && Column("messageId") == messageId).fetchOne(db) {
            if byMessageId.dedupKey == email.dedupKey { return byMessageId }
            email.messageId = nil
        }
        return try Email.filter(Column("accountId") == email.accountId && Column("dedupKey") == email.dedupKey).fetchOne(db)
    }

    static func associate(emailId: Int64, message: IncomingMessage, folderId: Int64, db: Database) throws {
        try db.execute(sql: """
            INSERT INTO emailFolder (emailId, folderId, imapUID, modSeq, serverFlags) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (folderId, imapUID) DO UPDATE SET emailId = excluded.emailId, modSeq = excluded.modSeq,
                serverFlags = excluded.serverFlags
            """, arguments: [emailId, folderId, message.uid, message.modSeq, message.serverFlags.joined(separator: " ")])
    }

    /// FR-SYNC-06 step 5, and the thread's rows in the per-folder thread list.
    static func refresh(thread: Int64, db: Database) throws {
        let messages = try Email.filter(Column("threadId") == thread).fetchAll(db)
        guard let metadata = ThreadMetadata(messages: messages) else {
            try db.execute(sql: "DELETE FROM thread WHERE id = ?", arguments: [thread])
            return
        }
        let participants = String(decoding: try JSONEncoder().encode(metadata.participants), as: UTF8.self)
        try db.execute(sql: """
            UPDATE thread SET subject = ?, normalizedSubject = ?, latestDate = ?, earliestDate = ?, messageCount = ?,
                unreadCount = ?, participants = ?, snippet = ?, hasAttachments = ?, isStarred = ?
            WHERE id = ?
            """, arguments: [metadata.subject, metadata.normalizedSubject, metadata.latestDate, metadata.earliestDate,
                             metadata.messageCount, metadata.unreadCount, participants, metadata.snippet, metadata.hasAttachments,
                             metadata.isStarred, thread])
        try db.execute(sql: "DELETE FROM threadFolder WHERE threadId = ?", arguments: [thread])
        try db.execute(sql: """
            INSERT INTO threadFolder (threadId, folderId, latestDate, messageCount, unreadCount)
            SELECT ?, ef.folderId, MAX(COALESCE(e.dateSent, e.dateReceived)), COUNT(*), SUM(NOT e.isRead)
            FROM emailFolder ef JOIN email e ON e.id = ef.emailId
            WHERE e.threadId = ?
            GROUP BY ef.folderId
            """, arguments: [thread, thread])
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
        try Int64.fetchOne(db, sql: "SELECT id FROM threadNode WHERE accountId = ? AND messageId = ?", arguments: [accountId, messageID])
    }

    mutating func createNode(for messageID: String?) throws -> Int64 {
        try db.execute(sql: "INSERT INTO threadNode (accountId, messageId, component) VALUES (?, ?, 0)", arguments: [accountId, messageID])
        let id = db.lastInsertedRowID
        try db.execute(sql: "UPDATE threadNode SET component = id WHERE id = ?", arguments: [id])
        return id
    }

    func isPresent(_ node: Int64) throws -> Bool { try flag("isPresent", of: node) }
    func hasParent(_ node: Int64) throws -> Bool { try flag("hasParent", of: node) }
    mutating func markPresent(_ node: Int64) throws { try db.execute(sql: "UPDATE threadNode SET isPresent = 1 WHERE id = ?", arguments: [node]) }
    mutating func markHasParent(_ node: Int64) throws { try db.execute(sql: "UPDATE threadNode SET hasParent = 1 WHERE id = ?", arguments: [node]) }

    private func flag(_ column: String, of node: Int64) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT \(column) FROM threadNode WHERE id = ?", arguments: [node]) ?? false
    }

    func component(of node: Int64) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT component FROM threadNode WHERE id = ?", arguments: [node]) ?? node
    }

    private func threadOf(component: Int64) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT id FROM thread WHERE component = ?", arguments: [component])
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
        try db.execute(sql: "UPDATE threadNode SET component = ? WHERE component = ?", arguments: [keep, absorb])
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
        try Row.fetchAll(db, sql: """
            SELECT component, earliestDate, latestDate FROM thread
            WHERE accountId = ? AND normalizedSubject = ? AND component IS NOT NULL
            """, arguments: [account, subject]).map { ($0["component"], $0["earliestDate"], $0["latestDate"]) }
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
