import Foundation
import GRDB
import GRDBSQLite
import TernCore
import Testing

@testable import MailStore

/// Issue 21: the text of one hostile message (an HTML body whose text came to 2 GB, past SQLite's
/// string limit) failed the batch that indexed it, on every sync until the message was deleted on
/// the server. A text too long is indexed in part; a row SQLite refuses never fails the batch.
struct SearchIndexBatchTests {
    let database: TernDatabase
    let account = Fixtures.account()
    let inbox: Folder
    let store: SQLiteMessageStore

    init() throws {
        database = try TernDatabase.temporary()
        var inbox = Folder(accountId: account.id, path: "INBOX", folderType: .inbox)
        try database.writer.write { [account] db in
            try account.insert(db)
            try inbox.insert(db)
        }
        self.inbox = inbox
        store = SQLiteMessageStore(database: database)
    }

    func message(_ uid: Int64, subject: String, text: String) -> IncomingMessage {
        var email = Fixtures.email(accountId: account.id, messageId: "m\(uid)@x", dedupKey: "key-\(uid)")
        email.subject = subject
        return IncomingMessage(email: email, uid: uid, searchText: text)
    }

    func search(_ query: String) async throws -> [String] {
        try await SQLiteMailQueries(database: database).search(query, account: nil, limit: 10).map(\.subject)
    }

    @Test func aTextPastTheIndexLimitIsIndexedInPart() async throws {
        let filler = String(repeating: "é", count: SearchIndexBatch.maximumContentBytes / 2) // two bytes each
        try await store.store([message(1, subject: "Long", text: "openingword " + filler + " closingword")], folderId: inbox.id!)
        let indexed = try await database.writer.read { db in try Int.fetchOne(db, sql: "SELECT length(CAST(content AS BLOB)) FROM searchIndex") }
        #expect(try #require(indexed) <= SearchIndexBatch.maximumContentBytes)
        #expect(try await search("openingword") == ["Long"])
        #expect(try await search("closingword").isEmpty)
    }

    @Test func aRowSQLiteRefusesDoesNotFailTheBatch() async throws {
        // SQLite's length limit lowered on the one writer connection, so that a text of 20 KB is
        // past it as 2 GB is past the default one.
        try await database.writer.write { db in _ = sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_LENGTH, 10_000) }
        let refused = message(1, subject: "Bomb", text: "needle " + String(repeating: "x ", count: 10_000))
        let fine = message(2, subject: "Fine", text: "ordinary words")
        try await store.store([refused, fine], folderId: inbox.id!)
        #expect(try await search("ordinary") == ["Fine"])
        // Indexed without its text: still found by its subject.
        #expect(try await search("bomb") == ["Bomb"])
        #expect(try await search("needle").isEmpty)
        let noted = try await database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT lastError FROM searchIndexState s JOIN email e ON e.id = s.emailId WHERE e.subject = 'Bomb'")
        }
        #expect(noted?.hasPrefix("text not indexed") == true)
    }

    /// `count` messages "SUBJECT n" whose text holds the word "WORDn".
    func numbered(_ count: Int, subject: String, word: String) -> [IncomingMessage] {
        (1...count).map { uid in
            var email = Fixtures.email(accountId: account.id, messageId: "\(subject)\(uid)@x", dedupKey: "\(subject)-\(uid)")
            email.subject = "\(subject) \(uid)"
            email.bodyPlain = "The \(word)\(uid) figures."
            return IncomingMessage(email: email, uid: Int64(uid), searchText: "The \(word)\(uid) figures.")
        }
    }

    /// Issue 20, FR-SYNC-04 Indexing: messages whose search entry is missing (an indexing that
    /// failed or was interrupted) are indexed again from what is stored by the sync's Indexing step
    /// and found afterwards; the others are left alone.
    @Test func missingEntriesAreIndexedAgainAndFound() async throws {
        try await store.store(numbered(3, subject: "Repair", word: "quarterly"), folderId: inbox.id!)
        // Two entries lost, as a killed indexing leaves them.
        try await database.writer.write { db in
            let lost = "SELECT id FROM email WHERE subject IN ('Repair 1', 'Repair 2')"
            try db.execute(sql: "DELETE FROM searchIndex WHERE rowid IN (\(lost))")
            try db.execute(sql: "DELETE FROM searchIndexState WHERE emailId IN (\(lost))")
        }
        let queries = SQLiteMailQueries(database: database)
        #expect(try await queries.search("quarterly1", account: nil, limit: 10).isEmpty)
        let sync = SQLiteSyncStore(database: database)
        #expect(try await sync.indexMissing(accountId: account.id) == 2)
        for uid in 1...3 {
            #expect(try await queries.search("quarterly\(uid)", account: nil, limit: 10).map(\.subject) == ["Repair \(uid)"])
        }
        #expect(try await sync.indexMissing(accountId: account.id) == 0, "nothing left to repair")
    }

    /// Issue 38: with a state row for every email, only the rows that failed are read (not every email), and
    /// they are indexed again; a row failed too often is left.
    @Test func failedEntriesAreIndexedAgainWithoutReadingEveryEmail() async throws {
        try await store.store(numbered(4, subject: "Failed", word: "annual"), folderId: inbox.id!)
        try await database.writer.write { db in
            try db.execute(sql: "DELETE FROM searchIndex WHERE rowid IN (SELECT id FROM email WHERE subject IN ('Failed 1', 'Failed 2'))")
            let failed = "UPDATE searchIndexState SET indexedDate = NULL, failureCount = ? WHERE emailId = (SELECT id FROM email WHERE subject = ?)"
            try db.execute(sql: failed, arguments: [1, "Failed 1"])
            try db.execute(sql: failed, arguments: [SearchIndexBatch.maximumAttempts, "Failed 2"])
        }
        let sync = SQLiteSyncStore(database: database)
        #expect(try await sync.indexMissing(accountId: account.id) == 1)
        let queries = SQLiteMailQueries(database: database)
        #expect(try await queries.search("annual1", account: nil, limit: 10).map(\.subject) == ["Failed 1"])
        #expect(try await queries.search("annual2", account: nil, limit: 10).isEmpty, "given up after the last attempt")
        let plan = try await database.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    EXPLAIN QUERY PLAN SELECT e.* FROM searchIndexState s CROSS JOIN email e ON e.id = s.emailId
                    WHERE e.accountId = 'a' AND s.indexedDate IS NULL AND s.failureCount < 5 LIMIT 5000
                    """
            ).map { $0["detail"] as String }.joined(separator: "; ")
        }
        #expect(plan.contains("searchIndexState_unindexed"), "\(plan)")
    }

    /// Issue 38: each Indexing step looks for emails without a state row only above the last email it
    /// checked, by the primary key, so a sync of a store of a million emails does not walk them all; an
    /// email stored after the check without its row is still found and indexed.
    @Test func emailsWithoutStateRowsAreLookedForOnlyAboveTheLastCheck() async throws {
        try await store.store(numbered(3, subject: "Early", word: "weekly"), folderId: inbox.id!)
        let sync = SQLiteSyncStore(database: database)
        #expect(try await sync.indexMissing(accountId: account.id) == 0)
        let checked = try await database.writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT checkedThroughEmailId FROM searchIndexCoverage")
        }
        let newest = try await database.writer.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM email") }
        #expect(checked == newest)
        // Stored after the check by a path that wrote no state row (as a killed indexing leaves it).
        try await store.store(numbered(2, subject: "Late", word: "monthly"), folderId: inbox.id!)
        try await database.writer.write { db in
            let late = "SELECT id FROM email WHERE subject LIKE 'Late%'"
            try db.execute(sql: "DELETE FROM searchIndex WHERE rowid IN (\(late))")
            try db.execute(sql: "DELETE FROM searchIndexState WHERE emailId IN (\(late))")
        }
        #expect(try await sync.indexMissing(accountId: account.id) == 2)
        let queries = SQLiteMailQueries(database: database)
        #expect(try await queries.search("monthly2", account: nil, limit: 10).map(\.subject) == ["Late 2"])
        #expect(try await sync.indexMissing(accountId: account.id) == 0, "nothing left to repair")
        let plan = try await database.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    EXPLAIN QUERY PLAN SELECT e.* FROM email e LEFT JOIN searchIndexState s ON s.emailId = e.id
                    WHERE e.id > 5 AND s.emailId IS NULL LIMIT 5000
                    """
            ).map { $0["detail"] as String }.joined(separator: "; ")
        }
        #expect(plan.contains("INTEGER PRIMARY KEY (rowid>?)"), "\(plan)")
    }
}
