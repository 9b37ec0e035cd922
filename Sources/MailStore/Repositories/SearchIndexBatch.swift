import Foundation
import GRDB
import TernCore

/// FR-SYNC-04 Indexing: the search rows of one write transaction, written together at its end with
/// one statement per 200 rows.
///
/// Why not row by row: every statement that writes an FTS5 table inside a transaction opens a
/// statement savepoint, and FTS5 (before SQLite 3.44, which Debian ships) flushes its pending terms
/// into a new index segment at each savepoint, also at the savepoints of later statements on other
/// tables. Written one row at a time among the batch's other writes, a batch of 250 messages made
/// 250 one-row segments and their merges: a third of a first sync's store time.
struct SearchIndexBatch {
    private struct Row {
        var id: EmailID
        var subject: String
        var sender: String
        var recipients: String
        var content: String
    }

    private var rows: [Row] = []
    /// Where each email's row is: an email added twice (two copies of a message in one folder
    /// hydrated together) keeps one row, the last.
    private var positions: [EmailID: Int] = [:]
    /// Rows that may already be indexed (bodies fetched later, repairs): their old entry goes first.
    private let replacing: Bool

    init(replacing: Bool) { self.replacing = replacing }

    var isEmpty: Bool { rows.isEmpty }

    /// The most of an email's text the index takes, in UTF-8 bytes: a longer body is indexed in
    /// part (its start), as an HTML body's text is (`HTMLTextExtractor.maximumTextBytes`).
    static let maximumContentBytes = 4 * 1024 * 1024

    /// Subject, sender, recipients and text (rowid = email id). The text is the plain body, else
    /// `text` (an HTML body's text), else the snippet until bodies are fetched.
    mutating func add(_ email: Email, text: String? = nil) {
        guard let id = email.id else { return }
        let recipients = (email.toAddresses + email.ccAddresses).map { [$0.name, $0.address].compactMap { $0 }.joined(separator: " ") }
        let content = Self.prefix(email.bodyPlain ?? text ?? email.snippet ?? "", bytes: Self.maximumContentBytes)
        let row = Row(
            id: id, subject: email.subject, sender: [email.fromName, email.fromAddress].compactMap { $0 }.joined(separator: " "),
            recipients: recipients.joined(separator: ", "), content: content)
        if let position = positions[id] {
            rows[position] = row
        } else {
            positions[id] = rows.count
            rows.append(row)
        }
    }

    /// `text` cut to at most `bytes` UTF-8 bytes, before the character the limit falls in.
    static func prefix(_ text: String, bytes limit: Int) -> String {
        let utf8 = text.utf8
        guard utf8.count > limit else { return text }
        var end = utf8.index(utf8.startIndex, offsetBy: limit)
        while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
        return String(decoding: utf8[..<end], as: UTF8.self)
    }

    static let rowsPerStatement = 200
    /// A row refused this many times is no longer retried.
    static let maximumAttempts = 5

    /// Writes the rows, 200 to a statement. A row SQLite refuses (a value past its length limit,
    /// say) would fail its statement, the transaction and with it the sync batch, on every sync
    /// until the message left the server (issue 21): that statement's rows then go in one at a
    /// time, a refused row without its text, and a row refused even so is noted in
    /// `searchIndexState` for `indexMissing` to retry. An error that ended the transaction (disk
    /// full, I/O) is thrown as before.
    func write(_ db: Database) throws {
        guard !rows.isEmpty else { return }
        let indexedDate = Date()
        for start in stride(from: 0, to: rows.count, by: Self.rowsPerStatement) {
            let chunk = rows[start..<min(start + Self.rowsPerStatement, rows.count)]
            do {
                try insert(chunk, db)
            } catch let error as DatabaseError where db.isInsideTransaction {
                for row in chunk { try insertAlone(row, db, after: error, indexedDate: indexedDate) }
                continue
            }
            for row in chunk {
                try db.cachedStatement(sql: "INSERT OR REPLACE INTO searchIndexState (emailId, indexedDate, failureCount) VALUES (?, ?, 0)")
                    .execute(arguments: [row.id, indexedDate.stored])
            }
        }
    }

    private func insert(_ chunk: ArraySlice<Row>, _ db: Database) throws {
        var arguments = StatementArguments()
        if replacing {
            arguments = StatementArguments(chunk.map(\.id))
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            try db.execute(sql: "DELETE FROM searchIndex WHERE rowid IN (\(marks))", arguments: arguments)
            arguments = StatementArguments()
        }
        for row in chunk { arguments += [row.id, row.subject, row.sender, row.recipients, row.content] }
        let values = Array(repeating: "(?, ?, ?, ?, ?)", count: chunk.count).joined(separator: ", ")
        try db.cachedStatement(sql: "INSERT INTO searchIndex (rowid, subject, sender, recipients, content) VALUES \(values)")
            .execute(arguments: arguments)
    }

    /// One row of a statement SQLite refused: whole, else without its text (found by subject and
    /// names), else noted as failed.
    private func insertAlone(_ row: Row, _ db: Database, after chunkError: DatabaseError, indexedDate: Date) throws {
        var withoutText = row
        withoutText.content = ""
        var lastError: DatabaseError?
        for attempt in [row, withoutText] {
            do {
                try insert([attempt], db)
                try db.cachedStatement(
                    sql: "INSERT OR REPLACE INTO searchIndexState (emailId, indexedDate, failureCount, lastError) VALUES (?, ?, 0, ?)"
                )
                .execute(arguments: [row.id, indexedDate.stored, lastError.map { "text not indexed: \($0.message ?? "\($0.resultCode)")" }])
                return
            } catch let error as DatabaseError where db.isInsideTransaction {
                lastError = error
            }
        }
        try db.execute(
            sql: """
                INSERT INTO searchIndexState (emailId, indexedDate, failureCount, lastError) VALUES (?, NULL, 1, ?)
                ON CONFLICT(emailId) DO UPDATE SET indexedDate = NULL, failureCount = failureCount + 1, lastError = excluded.lastError
                """, arguments: [row.id, (lastError ?? chunkError).message ?? "\((lastError ?? chunkError).resultCode)"])
    }
}
