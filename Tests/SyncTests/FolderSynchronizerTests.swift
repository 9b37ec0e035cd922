import Foundation
import IMAP
import Sync
import TernCore
import TernTesting
import Testing

/// FR-SYNC-01 and FR-SYNC-02 of one folder, against the in-memory server: first sync, new mail,
/// deletions and flags by UID list and CHANGEDSINCE, by QRESYNC, a UIDVALIDITY reset, and a
/// connection cut mid-FETCH that the next sync resumes from the cursors (issue 33).
@Suite struct FolderSynchronizerTests {
    @Test func aFirstSyncStoresTheWindowAndSetsTheCursors() async throws {
        let fixture = try await SyncFixture()
        await fixture.server.deliver(SyncFixture.messages(40))
        let report = try await fixture.sync()
        #expect(try await fixture.storedUIDs() == Array(1...40))
        let inbox = try #require(try await fixture.folder())
        #expect(inbox.forwardCursorUID == 40 && inbox.backfillCursorUID == 1)
        #expect(inbox.catchUpStatus == .completed && inbox.initialFastCompleted)
        #expect(inbox.uidValidity == Int64(try #require(await fixture.server.uidValidity())))
        #expect(report.firstPageMilliseconds != nil)
        let folderReport = try #require(report.folders.first { $0.path == "INBOX" })
        #expect(folderReport.inserted == 40 && folderReport.error == nil)
    }

    @Test func theFirstPageIsTheNewestThirtyBeforeAnythingElse() async throws {
        let fixture = try await SyncFixture()
        await fixture.server.deliver(SyncFixture.messages(100))
        try await fixture.sync()
        let fetches = await fixture.server.commands(.fetch)
        // Stage B: the newest 30 (71:100), headers only, are the first FETCH of the sync.
        let first = try #require(fetches.first)
        #expect(first.detail.hasPrefix("71:100"), "\(fetches)")
        #expect(try await fixture.storedUIDs() == Array(1...100))
    }

    @Test func anIncrementalSyncFetchesOnlyTheNewMail() async throws {
        let fixture = try await SyncFixture()
        await fixture.server.deliver(SyncFixture.messages(10))
        try await fixture.sync()
        await fixture.server.deliver(SyncFixture.messages(3, from: 11))
        await fixture.server.clearLog()
        let report = try await fixture.sync()
        #expect(try await fixture.storedUIDs() == Array(1...13))
        let headerFetches = await fixture.server.commands(.fetch).filter { $0.detail.contains("bodyStructure") }
        #expect(headerFetches.map { $0.detail.prefix(5) } == ["11:13"], "\(headerFetches)")
        #expect(report.folders.first { $0.path == "INBOX" }?.newMessages.count == 3)
    }

    @Test func anUnchangedFolderIsNotSelectedAgain() async throws {
        let server = InMemoryIMAPServer(mailboxes: [("INBOX", []), ("Archive", ["\\Archive"])])
        let fixture = try await SyncFixture(server: server)
        await server.deliver(SyncFixture.messages(5))
        await server.deliver(SyncFixture.messages(2, from: 10), to: "Archive")
        try await fixture.sync()
        await server.clearLog()
        try await fixture.sync()
        // One pipelined STATUS said the Inbox is as the last sync left it (FR-SYNC-02): it is not
        // selected, searched or fetched. (Archive, still selected on that connection, is not asked
        // by STATUS, whose answer for it could be stale: RFC 9051 section 6.3.11.)
        let status = try #require(await server.commands(.status).first)
        #expect(status.detail.hasPrefix("[\"INBOX\"]"), "\(status)")
        #expect(await server.commands(.examine).filter { $0.mailbox == "INBOX" }.isEmpty)
        #expect(await server.commands(.fetch).isEmpty)
    }

    @Test func withoutQuickResyncDeletionsAndFlagsComeFromTheUIDListAndChangedSince() async throws {
        let server = InMemoryIMAPServer(capabilities: ["IMAP4REV1", "IDLE", "UIDPLUS", "MOVE", "CONDSTORE"])
        let fixture = try await SyncFixture(server: server)
        await server.deliver(SyncFixture.messages(5))
        try await fixture.sync()
        let known = try #require(try await fixture.folder()?.highestModSeq)
        await server.expunge(uids: [2, 4])
        await server.setFlags(["\\Seen"], uid: 1)
        await server.clearLog()
        let report = try await fixture.sync()
        #expect(try await fixture.storedUIDs() == [1, 3, 5])
        #expect(try await fixture.readUIDs() == [1])
        let inbox = try #require(report.folders.first { $0.path == "INBOX" })
        #expect(inbox.removed == 2 && inbox.flagChanges == 1)
        let log = await server.log.map(\.description)
        #expect(log.contains { $0.hasPrefix("SEARCH INBOX all") }, "\(log)")
        #expect(log.contains { $0.hasPrefix("FETCH") && $0.contains("CHANGEDSINCE \(known)") }, "\(log)")
    }

    @Test func aFirstSyncAsksAgainOnlyForTheFlagsOfWhatAnEarlierSelectFetched() async throws {
        // Issue 38: the history's flags came with its headers, after this SELECT; only the bootstrap's
        // (stage C: 301:600, under an earlier SELECT) are asked again, not the whole folder.
        let fixture = try await SyncFixture()
        await fixture.server.deliver(SyncFixture.messages(600, daysAgo: 10))
        try await fixture.sync()
        let flagFetches = await fixture.server.commands(.fetch).map(\.detail).filter { $0.hasSuffix("[IMAP.FetchItem.flags]") }
        #expect(flagFetches == ["301:600 [IMAP.FetchItem.flags]"], "\(flagFetches)")
        #expect(try await fixture.storedUIDs() == Array(1...600))
        // A flag another client changes after the first sync is still read by the next (CHANGEDSINCE).
        await fixture.server.setFlags(["\\Seen"], uid: 7)
        let report = try await fixture.sync()
        #expect(report.folders.first { $0.path == "INBOX" }?.flagChanges == 1)
        #expect(try await fixture.readUIDs() == [7])
    }

    @Test func withoutCondstoreEveryStoredMessagesFlagsAreRead() async throws {
        let server = InMemoryIMAPServer(capabilities: ["IMAP4REV1", "UIDPLUS"])
        let fixture = try await SyncFixture(server: server)
        await server.deliver(SyncFixture.messages(4))
        try await fixture.sync()
        await server.setFlags(["\\Flagged"], uid: 3)
        await server.clearLog()
        let report = try await fixture.sync()
        #expect(report.folders.first { $0.path == "INBOX" }?.flagChanges == 1)
        // No mod-sequences: no STATUS shortcut, and the flags of all four are fetched.
        #expect(await server.commands(.status).isEmpty)
        let flagFetches = await server.commands(.fetch).map(\.detail)
        #expect(flagFetches == ["1:4 [IMAP.FetchItem.flags]"], "\(flagFetches)")
    }

    @Test func withQuickResyncTheSelectSaysWhatVanishedAndChanged() async throws {
        let fixture = try await SyncFixture()
        await fixture.server.deliver(SyncFixture.messages(5))
        try await fixture.sync()
        let inboxBefore = try #require(try await fixture.folder())
        await fixture.server.expunge(uids: [2, 4])
        await fixture.server.setFlags(["\\Seen"], uid: 1)
        await fixture.server.clearLog()
        let report = try await fixture.sync()
        #expect(try await fixture.storedUIDs() == [1, 3, 5])
        #expect(try await fixture.readUIDs() == [1])
        let inbox = try #require(report.folders.first { $0.path == "INBOX" })
        #expect(inbox.removed == 2 && inbox.flagChanges == 1 && inbox.serverMessages == 3)
        let examines = await fixture.server.commands(.examine).filter { $0.mailbox == "INBOX" }
        #expect(examines.map(\.detail) == ["(QRESYNC (\(inboxBefore.uidValidity!) \(inboxBefore.highestModSeq!)))"])
        // Neither the UID list nor the flags were asked for: the SELECT said it all.
        #expect(await fixture.server.commands(.search).isEmpty)
        #expect(await fixture.server.commands(.fetch).isEmpty)
        #expect(try await fixture.folder()?.serverMessageCount == 3)
    }

    @Test func aNewUIDValidityResetsTheFolder() async throws {
        let fixture = try await SyncFixture()
        await fixture.server.deliver(SyncFixture.messages(4))
        try await fixture.sync()
        await fixture.server.expunge(uids: [1])
        await fixture.server.resetUIDValidity(to: 999)
        let report = try await fixture.sync()
        let inbox = try #require(report.folders.first { $0.path == "INBOX" })
        #expect(inbox.uidValidityReset)
        // Messages 2 to 4 are now UIDs 1 to 3 under UIDVALIDITY 999; nothing is stored twice.
        #expect(try await fixture.storedUIDs() == [1, 2, 3])
        #expect(try await fixture.folder()?.uidValidity == 999)
        #expect(try await fixture.emailCount() == 3)
    }

    @Test func aConnectionCutMidFetchIsReportedAndTheNextSyncResumes() async throws {
        let fixture = try await SyncFixture()
        await fixture.server.deliver(SyncFixture.messages(600, daysAgo: 10))
        // The first page (30) gets through; the next batch is cut after 10 of its messages.
        await fixture.server.inject(.dropMidFetch(afterMessages: 10), skipping: 1)
        let first = try await fixture.sync()
        let failed = try #require(first.folders.first { $0.path == "INBOX" })
        #expect(failed.error?.contains("connection was lost") == true, "\(failed)")
        let afterCut = try await fixture.storedUIDs()
        #expect(afterCut == Array(571...600), "only the first page was stored: \(afterCut.count)")
        let second = try await fixture.sync()
        // The cut connection was closed and never handed out again: the second sync had a new one.
        #expect(await fixture.pool.connectionsOpened == 2)
        #expect(await fixture.server.openConnections.count == 1)
        #expect(second.folders.first { $0.path == "INBOX" }?.error == nil)
        #expect(try await fixture.storedUIDs() == Array(1...600))
        #expect(try await fixture.emailCount() == 600)
        let inbox = try #require(try await fixture.folder())
        #expect(inbox.forwardCursorUID == 600 && inbox.backfillCursorUID == 1 && inbox.catchUpStatus == .completed)
    }

    @Test func aFolderTheServerRefusesIsReportedWhileTheOthersSync() async throws {
        let server = InMemoryIMAPServer(mailboxes: [("INBOX", []), ("Archive", ["\\Archive"])])
        let fixture = try await SyncFixture(server: server)
        await server.deliver(SyncFixture.messages(3))
        await server.deliver(SyncFixture.messages(2, from: 10), to: "Archive")
        await server.inject(.refuse(.examine, text: "Archive is locked"), skipping: 1)
        let report = try await fixture.sync()
        #expect(report.folders.first { $0.path == "Archive" }?.error == "Archive is locked")
        #expect(try await fixture.storedUIDs() == [1, 2, 3])
        try await fixture.sync()
        #expect(try await fixture.storedUIDs("Archive") == [1, 2])
    }

    @Test func threeLostConnectionsInOneSyncEndTheSync() async throws {
        let server = InMemoryIMAPServer(mailboxes: [("INBOX", []), ("A", []), ("B", []), ("C", [])])
        let fixture = try await SyncFixture(server: server)
        for name in ["INBOX", "A", "B", "C"] { await server.deliver(SyncFixture.messages(2), to: name) }
        await server.inject(.timeout(.examine), times: 3)
        await #expect(throws: IMAPError.self) { try await fixture.sync() }
    }

    @Test func olderMailIsPagedBelowTheBackfillCursor() async throws {
        let fixture = try await SyncFixture()
        // Outside the 90-day window: not synced, but paged in on demand (FR-SYNC-01 step 5).
        await fixture.server.deliver(SyncFixture.messages(3, daysAgo: 200))
        await fixture.server.deliver(SyncFixture.messages(2, from: 4))
        try await fixture.sync()
        #expect(try await fixture.storedUIDs() == [4, 5])
        let result = try await fixture.synchronizer.loadOlder(account: fixture.account, folderPath: "INBOX")
        #expect(result == .reachedBoundary(serverHistory: false))
    }

    @Test func bodiesAreFetchedWithTheirBatchUnderTheHydrationPolicy() async throws {
        let fixture = try await SyncFixture(hydration: .all)
        await fixture.server.deliver(SyncFixture.messages(3))
        let report = try await fixture.sync()
        #expect(report.folders.first { $0.path == "INBOX" }.map(\.bodiesFetched) ?? 0 >= 3)
        let bodies = try await fixture.database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT bodyPlain FROM email WHERE bodyPlain IS NOT NULL ORDER BY bodyPlain")
        }
        #expect(bodies == ["Body 1", "Body 2", "Body 3"])
    }
}
