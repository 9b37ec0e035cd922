import Foundation
import GRDB
import TernCore

/// A `SearchQuery` as one parameterised statement (issue 36). Words, phrases, `from:`, `to:` and
/// `subject:` are FTS5 (the index has subject, sender and recipient columns); flags, dates, sizes,
/// folders and attachments are the email table's indexed columns. Every text of the person's is a
/// bound argument, inside FTS5 always a quoted string, so neither SQL nor FTS5 syntax can come of it.
///
/// Newest first, as `search` always listed: when the query has words to match, FTS5 walks its doclists
/// in rowid (arrival) order and the other conditions filter each row until the limit; without words,
/// the email table is walked from its newest row by the index the conditions choose. A date that all
/// of the query needs also bounds that walk's ids (`emailDateBlock`, issue 38), so mail that only old
/// messages match is not reached through every newer one.
struct SearchQueryCompiler {
    var now: Date
    var calendar: Calendar
    /// Issue 38: when FTS5 drives (the query has words), `filename:` is asked per match through the
    /// attachment table's `(emailId, …)` index: a walk that stops at the limit. Without words the emails are
    /// taken from the attachments whose names match, newest first, as before.
    var filenamePerEmail = false

    struct Statement {
        var sql: String
        var arguments: StatementArguments
    }

    /// The query lowered: FTS5 expressions and SQL conditions, combined.
    indirect enum Plan {
        case fts(String)
        case sql(String, [(any DatabaseValueConvertible)?])
        case and([Plan])
        case or([Plan])
        case not(Plan)
    }

    static let columns = """
        SELECT e.id, e.threadId, a.name AS account, e.subject, e.fromName, e.fromAddress,
            COALESCE(e.dateSent, e.dateReceived) AS date, e.snippet
        """

    /// The query split: one FTS5 expression for what FTS5 can answer (nil when nothing), SQL for the rest.
    struct Split {
        var match: String?
        var conditions: [String]
        var arguments: StatementArguments
        /// The partial index of a condition only a few emails meet (`is:starred`, `has:attachment`), the
        /// sparsest when both: each match of the words is looked up in it, and only the emails it lists
        /// are read (`statement`).
        var sparseIndex: String?
        /// The date conditions every hit meets, as bounds on its id (`idBounds`).
        var receivedBounds: [(isUpperBound: Bool, instant: StoredDate)] = []
    }

    /// The conditions of the flags whose partial indexes (v17) list the few emails that have them, the
    /// sparsest first (3% and 10% of mail in the benchmark's mailbox).
    static let sparseConditions: [(condition: String, index: String)] = [
        ("e.isStarred = 1", "email_starred"), ("e.hasAttachments = 1", "email_with_attachments")
    ]

    func split(_ query: SearchQuery) -> Split {
        var matches: [String] = []
        var exclusions: [String] = []
        var conditions: [String] = []
        var arguments = StatementArguments()
        var plainConditions: Set<String> = []
        var receivedBounds: [(isUpperBound: Bool, instant: StoredDate)] = []
        for part in Self.conjunction(lower(query)) {
            if case .sql(let sql, let values) = part, sql == Self.receivedBefore || sql == Self.receivedSince,
                let instant = values.first.flatMap({ $0 }) as? StoredDate
            {
                receivedBounds.append((sql == Self.receivedBefore, instant))
            }
            if let expression = Self.ftsExpression(part) {
                matches.append(expression)
            } else if case .not(let inner) = part, let expression = Self.ftsExpression(inner) {
                exclusions.append(expression)
            } else {
                if case .sql(let sql, _) = part { plainConditions.insert(sql) }
                conditions.append(Self.condition(part, &arguments))
            }
        }
        guard !matches.isEmpty else {
            for exclusion in exclusions {
                conditions.append("e.id NOT IN (SELECT rowid FROM searchIndex WHERE searchIndex MATCH ?)")
                arguments += [exclusion]
            }
            return Split(match: nil, conditions: conditions, arguments: arguments, receivedBounds: receivedBounds)
        }
        // Side by side, as the free words always were (`"quarterly" "budg"*`); FTS5 reads a space as AND
        // only between strings, so anything else is joined by AND.
        let strings = matches.allSatisfy(Self.isSingleString)
        var match = matches.map(Self.grouped).joined(separator: strings ? " " : " AND ")
        if !exclusions.isEmpty {
            if matches.count > 1 { match = "(\(match))" }
            match += exclusions.map { " NOT \(Self.grouped($0))" }.joined()
        }
        let sparseIndex = Self.sparseConditions.first { plainConditions.contains($0.condition) }?.index
        return Split(
            match: match, conditions: conditions, arguments: arguments, sparseIndex: sparseIndex, receivedBounds: receivedBounds)
    }

    func statement(_ query: SearchQuery, account: AccountName?, limit: Int) -> Statement {
        var split = split(query)
        if split.match != nil, !filenamePerEmail {
            var perEmail = self
            perEmail.filenamePerEmail = true
            split = perEmail.split(query)
        }
        let filters = (["(? IS NULL OR a.name = ?)"] + split.conditions).joined(separator: " AND ")
        guard let match = split.match else {
            let bounds = Self.idBounds(split.receivedBounds, column: "e.id")
            return Statement(
                sql: """
                    \(Self.columns)
                    FROM email e JOIN account a ON a.id = e.accountId
                    WHERE \(filters)\(bounds.sql)
                    ORDER BY e.id DESC
                    LIMIT ?
                    """,
                arguments: [account, account] + split.arguments + bounds.arguments + [limit])
        }
        // Issue 38: with a sparse flag, each match of the words is looked up in the flag's partial index, a
        // small one that stays in memory, and only the emails it lists are read from the table (whose rows
        // hold the flags after the bodies). Asking FTS5 about each flagged email instead (`MATCH ? AND
        // rowid = e.id`) merged a prefix term's whole doclist again for every email.
        let email = split.sparseIndex.map { "CROSS JOIN email e INDEXED BY \($0)" } ?? "JOIN email e"
        // On FTS5's rowid, so that FTS5 itself starts and stops its doclist walk there.
        let bounds = Self.idBounds(split.receivedBounds, column: "searchIndex.rowid")
        return Statement(
            sql: """
                \(Self.columns)
                FROM searchIndex \(email) ON e.id = searchIndex.rowid JOIN account a ON a.id = e.accountId
                WHERE searchIndex MATCH ?\(bounds.sql) AND \(filters)
                ORDER BY searchIndex.rowid DESC
                LIMIT ?
                """,
            arguments: [match] + bounds.arguments + [account, account] + split.arguments + [limit])
    }

    /// Issue 38: a received date every hit must meet, as a range of ids. An email received before X lies in
    /// a block whose oldest date is before X, so no id past the last such block can match (and none before
    /// the first block whose newest date is at or after X, for a lower bound). The date is still checked on
    /// each row: the range only skips what cannot match, so the answer is the same, and no block means no
    /// match at all (NULL). Each is a constant subquery SQLite runs once; `emailDateBlock` is walked from
    /// its last (or first) block.
    static func idBounds(_ bounds: [(isUpperBound: Bool, instant: StoredDate)], column: String) -> (
        sql: String, arguments: StatementArguments
    ) {
        var sql = ""
        var arguments = StatementArguments()
        let shift = SchemaMigrations.emailDateBlockShift
        for bound in bounds {
            if bound.isUpperBound {
                sql += " AND \(column) < ((SELECT MAX(block) FROM emailDateBlock WHERE oldest < ?) + 1) << \(shift)"
            } else {
                sql += " AND \(column) >= (SELECT MIN(block) FROM emailDateBlock WHERE newest >= ?) << \(shift)"
            }
            arguments += [bound.instant]
        }
        return (sql, arguments)
    }

    // MARK: Lowering

    func lower(_ query: SearchQuery) -> Plan {
        switch query {
        case .term(let term): lower(term)
        case .all(let parts): .and(parts.map(lower))
        case .any(let parts): .or(parts.map(lower))
        case .not(let part): .not(lower(part))
        }
    }

    func lower(_ term: SearchTerm) -> Plan {
        switch term {
        case .word(let word, let prefix): .fts(Self.quoted(word) + (prefix ? "*" : ""))
        case .phrase(let text): .fts(Self.quoted(text))
        case .from(let text): .fts("sender : " + Self.quoted(text))
        case .to(let text): .fts("recipients : " + Self.quoted(text))
        case .subject(let text): .fts("subject : " + Self.quoted(text))
        // The index's recipients column is To and Cc together: it finds the candidates, the Cc column decides.
        case .cc(let text):
            .and([.fts("recipients : " + Self.quoted(text)), .sql("e.ccAddresses LIKE ? ESCAPE '\\'", [Self.containing(text)])])
        case .filename(let text) where filenamePerEmail:
            .sql("EXISTS (SELECT 1 FROM attachment at WHERE at.emailId = e.id AND at.filename LIKE ? ESCAPE '\\')", [Self.containing(text)])
        case .filename(let text):
            .sql("e.id IN (SELECT at.emailId FROM attachment at WHERE at.filename LIKE ? ESCAPE '\\')", [Self.containing(text)])
        // Written as the partial indexes' conditions (`isRead = 0`), so that the planner may use them.
        case .hasAttachment: .sql("e.hasAttachments = 1", [])
        case .flag(.unread): .sql("e.isRead = 0", [])
        case .flag(.read): .sql("e.isRead = 1", [])
        case .flag(.starred): .sql("e.isStarred = 1", [])
        case .folder(.role(let role)):
            .sql(
                "EXISTS (SELECT 1 FROM emailFolder ef JOIN folder f ON f.id = ef.folderId WHERE ef.emailId = e.id AND f.folderType = ?)",
                [role.rawValue])
        case .folder(.path(let path)):
            .sql(
                "EXISTS (SELECT 1 FROM emailFolder ef JOIN folder f ON f.id = ef.folderId WHERE ef.emailId = e.id AND f.path = ? COLLATE NOCASE)",
                [path])
        case .folder(.archive): .sql(SQLiteMailQueries.archiveMembership, [])
        case .received(let bound): received(bound)
        case .size(.larger(let bytes)): .sql("e.sizeBytes > ?", [bytes])
        case .size(.smaller(let bytes)): .sql("e.sizeBytes < ?", [bytes])
        }
    }

    func received(_ bound: SearchDateBound) -> Plan {
        let (instant, isUpperBound) = bound.instant(now: now, calendar: calendar)
        return .sql(isUpperBound ? Self.receivedBefore : Self.receivedSince, [instant.stored])
    }

    static let receivedBefore = "e.dateReceived < ?"
    static let receivedSince = "e.dateReceived >= ?"

    // MARK: FTS5

    /// The parts that must all match, nested ANDs flattened.
    static func conjunction(_ plan: Plan) -> [Plan] {
        if case .and(let parts) = plan { return parts.flatMap(conjunction) }
        return [plan]
    }

    /// The plan as one FTS5 expression, or nil when part of it is SQL. An AND may hold negated
    /// parts (`a NOT b`) as long as one part is positive: FTS5's NOT is binary.
    static func ftsExpression(_ plan: Plan) -> String? {
        switch plan {
        case .fts(let expression): return expression
        case .sql: return nil
        case .not: return nil
        case .or(let parts):
            var expressions: [String] = []
            for part in parts {
                guard let expression = ftsExpression(part) else { return nil }
                expressions.append(grouped(expression))
            }
            return expressions.joined(separator: " OR ")
        case .and(let parts):
            var positive: [String] = []
            var negative: [String] = []
            for part in conjunction(.and(parts)) {
                if let expression = ftsExpression(part) {
                    positive.append(grouped(expression))
                } else if case .not(let inner) = part, let expression = ftsExpression(inner) {
                    negative.append(grouped(expression))
                } else {
                    return nil
                }
            }
            guard !positive.isEmpty else { return nil }
            let both = positive.joined(separator: " AND ")
            return negative.isEmpty ? both : "(\(both))" + negative.map { " NOT \($0)" }.joined()
        }
    }

    /// An FTS5 expression safe to place beside others: a lone string as it is, anything else in parentheses.
    static func grouped(_ expression: String) -> String {
        isSingleString(expression) ? expression : "(\(expression))"
    }

    /// `"…"` or `"…"*`, with no unquoted text.
    static func isSingleString(_ expression: String) -> Bool {
        var body = Substring(expression)
        if body.hasSuffix("*") { body = body.dropLast() }
        guard body.count >= 2, body.first == "\"", body.last == "\"" else { return false }
        let inner = body.dropFirst().dropLast()
        return inner.replacingOccurrences(of: "\"\"", with: "").contains("\"") == false
    }

    /// A person's text as an FTS5 string: only text, whatever it holds (`AND`, `-`, `:`, quotes).
    static func quoted(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// A LIKE pattern for text anywhere in the value, its `%`, `_` and `\` taken literally.
    static func containing(_ text: String) -> String {
        var pattern = "%"
        for character in text {
            if character == "%" || character == "_" || character == "\\" { pattern.append("\\") }
            pattern.append(character)
        }
        return pattern + "%"
    }

    // MARK: SQL

    /// The plan as an SQL condition on `e`; its arguments appended in order.
    static func condition(_ plan: Plan, _ arguments: inout StatementArguments) -> String {
        if let expression = ftsExpression(plan) {
            arguments += [expression]
            return "e.id IN (SELECT rowid FROM searchIndex WHERE searchIndex MATCH ?)"
        }
        switch plan {
        case .fts(let expression):
            arguments += [expression]
            return "e.id IN (SELECT rowid FROM searchIndex WHERE searchIndex MATCH ?)"
        case .sql(let sql, let values):
            arguments += StatementArguments(values)
            return "(\(sql))"
        case .and(let parts): return "(" + parts.map { condition($0, &arguments) }.joined(separator: " AND ") + ")"
        case .or(let parts): return "(" + parts.map { condition($0, &arguments) }.joined(separator: " OR ") + ")"
        case .not(let part): return "NOT " + condition(part, &arguments)
        }
    }
}
