import Foundation
import GRDB
import TernCore
import Testing

@testable import MailStore

/// The read side's small answers, checked against what the folder list says.
struct SQLiteMailQueriesTests {
    /// FR-SYNC-01 step 5: the list's end asks one folder whether its history is complete, with one
    /// indexed read instead of counting every folder of the account.
    @Test func aFoldersHistoryIsCompleteOnceItsBoundaryIsReached() async throws {
        let database = try TernDatabase.temporary()
        let account = Fixtures.account(name: "work")
        try await SQLiteAccountRepository(database: database).insert(account)
        let sync = SQLiteSyncStore(database: database)
        let folders = try await sync.saveDiscoveredFolders(
            [
                DiscoveredFolder(path: "INBOX", delimiter: "/", folderType: .inbox),
                DiscoveredFolder(path: "Archive", delimiter: "/", folderType: .custom)
            ], accountId: account.id, keepOrphans: false)
        var archive = try #require(folders.first { $0.path == "Archive" })
        archive.reachedServerHistoryBoundary = true
        try await sync.updateFolderState(archive)

        let queries = SQLiteMailQueries(database: database)
        #expect(try await queries.historyComplete(account: "work", folder: "Archive"))
        #expect(try await !queries.historyComplete(account: "work", folder: "INBOX"))
        #expect(try await !queries.historyComplete(account: "work", folder: "Gone"))
        #expect(try await !queries.historyComplete(account: "home", folder: "Archive"))
        for folder in try await queries.folders(account: "work") {
            #expect(try await queries.historyComplete(account: "work", folder: folder.path) == folder.historyComplete)
        }
    }

    /// Two accounts' Inboxes and Archives, with messages on the given days (dates tie across accounts) and
    /// every third unread.
    static func twoAccounts() async throws -> (TernDatabase, SQLiteMailQueries) {
        let database = try TernDatabase.temporary()
        let store = SQLiteMessageStore(database: database)
        for (name, offset) in [("work", 0.0), ("home", 0.5)] {
            let account = Fixtures.account(name: AccountName(name))
            try await SQLiteAccountRepository(database: database).insert(account)
            let folders = try await SQLiteSyncStore(database: database).saveDiscoveredFolders(
                [
                    DiscoveredFolder(path: "INBOX", delimiter: "/", folderType: .inbox),
                    DiscoveredFolder(path: "Archive", delimiter: "/", folderType: .custom)
                ], accountId: account.id, keepOrphans: false)
            for (folder, count) in zip(folders.sorted { $0.path > $1.path }, [12, 5]) {
                let messages = (1...count).map { index in
                    var email = Fixtures.email(accountId: account.id, messageId: "<\(name)-\(folder.path)-\(index)@x>")
                    email.subject = "\(name) \(folder.path) \(index)"
                    // Pairs of messages share a day, and the two accounts' days tie every other one.
                    email.dateSent = Date(timeIntervalSince1970: 1_700_000_000 + (Double(index / 2) + (index % 4 == 0 ? 0 : offset)) * 86_400)
                    return IncomingMessage(email: email, uid: Int64(index), serverFlags: index % 3 == 0 ? [] : ["\\Seen"])
                }
                try await store.store(messages, folderId: folder.id!, cursorUID: Int64(count))
            }
        }
        return (database, SQLiteMailQueries(database: database))
    }

    /// Issue 38: the unified Inbox is each account's Inbox walked newest first and merged, in the order the
    /// whole list has (latest date, then thread id, both descending), page by page with the cursor.
    @Test func theUnifiedInboxMergesEachInboxNewestFirstAndPagesWithTheCursor() async throws {
        let (_, queries) = try await Self.twoAccounts()
        let whole = try await queries.threads(account: nil, folder: nil, before: nil, limit: 100)
        #expect(whole.count == 24)
        #expect(Set(whole.map(\.account)) == ["work", "home"])
        let ordered = whole.sorted { ($0.latestDate, $0.id.rawValue) > ($1.latestDate, $1.id.rawValue) }
        #expect(whole.map(\.id) == ordered.map(\.id))
        var paged: [ThreadSummary] = []
        var cursor: ThreadListCursor?
        while true {
            let page = try await queries.threads(account: nil, folder: nil, before: cursor, limit: 5)
            paged += page
            guard page.count == 5, let last = page.last else { break }
            cursor = ThreadListCursor(after: last)
        }
        #expect(paged.map(\.id) == whole.map(\.id))
        let work = try await queries.threads(account: "work", folder: "Archive", before: nil, limit: 3)
        #expect(work.map(\.subject) == ["work Archive 5", "work Archive 4", "work Archive 3"])
    }

    /// Issue 38: every copy counts, and the unread ones (the counts `folderCount` keeps, `FolderCountTests`).
    @Test func folderCountsCountEveryCopyAndTheUnreadOnes() async throws {
        let (_, queries) = try await Self.twoAccounts()
        let folders = try await queries.folders(account: nil)
        #expect(
            folders.map { "\($0.account) \($0.path) \($0.messageCount) \($0.unreadCount)" }.sorted() == [
                "home Archive 5 1", "home INBOX 12 4", "work Archive 5 1", "work INBOX 12 4"
            ])
    }

    /// Issue 38: at 1,000,000 messages a plan that scans or sorts a folder's rows is seconds, not milliseconds.
    /// (The folder list's counts are read from `folderCount`: `FolderCountTests.theFolderListReadsNoCopies`.)
    @Test func theThreadListWalksItsIndexWithoutSorting() async throws {
        let (database, _) = try await Self.twoAccounts()
        let plans = try await database.writer.read { db in
            try [SQLiteMailQueries.threadListSQL, SQLiteMailQueries.threadListAfterCursorSQL].map { sql in
                let arguments = StatementArguments(Array(repeating: 1, count: sql.count { $0 == "?" }))
                return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
                    .joined(separator: "; ")
            }
        }
        for plan in plans {
            #expect(plan.contains("threadFolder_by_folder_date") && !plan.contains("TEMP B-TREE"), "\(plan)")
        }
    }
}
