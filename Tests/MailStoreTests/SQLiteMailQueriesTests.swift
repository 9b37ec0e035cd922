import Foundation
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
}
