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
        var id: Int64
        var subject: String
        var sender: String
        var recipients: String
        var content: String
    }

    private var rows: [Row] = []
    /// Where each email's row is: an email added twice (two copies of a message in one folder
    /// hydrated together) keeps one row, the last.
    private var positions: [Int64: Int] = [:]
    /// Rows that may already be indexed (bodies fetched later, repairs): their old entry goes first.
    private let replacing: Bool

    init(replacing: Bool) { self.replacing = replacing }

    var isEmpty: Bool { rows.isEmpty }

    /// Subject, sender, recipients and text (rowid = email id). The text is the plain body, else
    /// `text` (an HTML body's text), else the snippet until bodies are fetched.
    mutating func add(_ email: Email, text: String? = nil) {
        guard let id = email.id else { return }
        let recipients = (email.toAddresses + email.ccAddresses).map { [$0.name, $0.address].compactMap { $0 }.joined(separator: " ") }
        let row = Row(id: id, subject: email.subject, sender: [email.fromName, email.fromAddress].compactMap { $0 }.joined(separator: " "),
                      recipients: recipients.joined(separator: ", "), content: email.bodyPlain ?? text ?? email.snippet ?? "")
        if let position = positions[id] {
            rows[position] = row
        } else {
            positions[id] = rows.count
            rows.append(row)
        }
    }

    static let rowsPerStatement = 200

    func write(_ db: Database) throws {
        guard !rows.isEmpty else { return }
        let indexedDate = Date()
        for start in stride(from: 0, to: rows.count, by: Self.rowsPerStatement) {
            let chunk = rows[start..<min(start + Self.rowsPerStatement, rows.count)]
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
            for row in chunk {
                try db.cachedStatement(sql: "INSERT OR REPLACE INTO searchIndexState (emailId, indexedDate, failureCount) VALUES (?, ?, 0)")
                    .execute(arguments: [row.id, indexedDate.stored])
            }
        }
    }
}
