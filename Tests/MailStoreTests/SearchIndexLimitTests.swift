import Foundation
import GRDB
import GRDBSQLite
import Testing
import TernCore
@testable import MailStore

/// Issue 21: the text of one hostile message (an HTML body whose text came to 2 GB, past SQLite's
/// string limit) failed the batch that indexed it, on every sync until the message was deleted on
/// the server. A text too long is indexed in part; a row SQLite refuses never fails the batch.
struct SearchIndexLimitTests {
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
        let filler = String(repeating: "é", count: SearchIndexBatch.maximumContentBytes / 2)  // two bytes each
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
}
