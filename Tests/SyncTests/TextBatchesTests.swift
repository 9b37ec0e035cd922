import Foundation
import IMAP
import MIME
import TernCore
import TernTesting
import Testing

@testable import Sync

/// Issue 38: the texts of a batch are fetched and stored in runs bounded by their bytes as well as
/// their number, each run with the cursor it completes: the rule alone, then a sync of large
/// messages against the in-memory server, and a cut in the middle of a batch's texts.
@Suite struct TextBatchesTests {
    @Test func runsAreBoundedByCountAndBytes() {
        #expect(TextBatches.runs([], count: 3, bytes: 10) == [])
        #expect(TextBatches.runs([1, 1, 1, 1, 1, 1, 1], count: 3, bytes: 100) == [0..<3, 3..<6, 6..<7])
        #expect(TextBatches.runs([4, 4, 4, 4, 1], count: 10, bytes: 10) == [0..<2, 2..<5])
        // A run may reach the bound exactly; a message without text counts for nothing.
        #expect(TextBatches.runs([5, 5, 0, 0, 5], count: 10, bytes: 10) == [0..<4, 4..<5])
    }

    @Test func aMessageLargerThanTheBoundIsARunOfItsOwn() {
        #expect(TextBatches.runs([1, 50, 1], count: 10, bytes: 10) == [0..<1, 1..<2, 2..<3])
        #expect(TextBatches.runs([50, 50], count: 10, bytes: 10) == [0..<1, 1..<2])
        #expect(TextBatches.runs([Int.max, 1], count: 10, bytes: Int.max) == [0..<1, 1..<2])
    }

    @Test func runsMoveTheCursorOneWayAndTheLastCoversTheWholeSlice() {
        // UIDs 10...15, 14 not answered; 11, 12 and 13 have 6 bytes of text each.
        var batch = HeaderBatch()
        for uid: Int64 in [10, 11, 12, 13, 15] {
            if [11, 12, 13].contains(uid) {
                let part = MIMEPart(partId: "1", contentType: "text/plain", parameters: [:], sizeBytes: 6)
                batch.planned[batch.messages.count] = PlannedBody(uid: uid, structure: part, plan: BodyPlanner.plan(part))
            }
            batch.messages.append(IncomingMessage(email: Self.email, uid: uid, modSeq: nil, serverFlags: [], attachments: []))
            batch.structures.append(nil)
        }
        let slice: ArraySlice<Int64> = [10, 11, 12, 13, 14, 15]
        #expect(
            batch.runs(cursor: .forward, slice: slice, bytes: 12) == [
                .init(indices: [0, 1, 2], bound: 12, isLast: false), .init(indices: [3, 4], bound: 15, isLast: true)
            ])
        #expect(
            batch.runs(cursor: .backfill, slice: slice, bytes: 12) == [
                .init(indices: [2, 3, 4], bound: 12, isLast: false), .init(indices: [0, 1], bound: 10, isLast: true)
            ])
        #expect(HeaderBatch().runs(cursor: .backfill, slice: slice) == [.init(indices: [], bound: 10, isLast: true)])
    }

    @Test func largeTextsAreFetchedInRunsBoundedByTheirBytes() async throws {
        let fixture = try await SyncFixture(hydration: .all)
        let size = TextBatches.maximumBytes * 2 / 5
        try await Self.deliverHistory(to: fixture.server, Self.large(5, bytes: size) + Self.large(1, bytes: TextBatches.maximumBytes * 2, from: 6))
        let report = try await fixture.sync()
        #expect(report.folders.first { $0.path == "INBOX" }?.error == nil)
        #expect(try await fixture.storedUIDs() == Array(1...506))
        // The history below the bootstrap's 300 (UIDs 1-206) in one header FETCH, its texts newest first: the small ones
        // together, the huge one alone, then two of the others to a run (before: all 206 in one).
        let fetches = await fixture.server.commands(.fetch).map { String($0.detail.prefix { $0 != " " }) }
        let history = try #require(fetches.firstIndex(of: "1:206"))
        #expect(Array(fetches[(history + 1)...].prefix(5)) == ["7:206", "6", "4:5", "2:3", "1"], "\(fetches)")
        let stored = try await fixture.database.writer.read { db in
            try Int.fetchAll(db, sql: "SELECT length(bodyPlain) FROM email WHERE subject LIKE 'Large%' ORDER BY subject")
        }
        #expect(stored == [size, size, size, size, size, TextBatches.maximumBytes * 2])
    }

    @Test func aCutInTheMiddleOfABatchsTextsLeavesTheRunsBeforeItStored() async throws {
        let history = Self.large(6, bytes: TextBatches.maximumBytes / 2)
        // Where the second run's texts (UIDs 4 and 5, after the small ones with 6) are asked, from a sync of the same mail.
        let reference = try await SyncFixture(hydration: .all)
        try await Self.deliverHistory(to: reference.server, history)
        try await reference.sync()
        let cut = try #require(await reference.server.commands(.fetch).firstIndex { $0.detail.hasPrefix("4:5 ") })

        let fixture = try await SyncFixture(hydration: .all)
        try await Self.deliverHistory(to: fixture.server, history)
        await fixture.server.inject(.dropMidFetch(afterMessages: 1), skipping: cut)
        let first = try await fixture.sync()
        #expect(first.folders.first { $0.path == "INBOX" }?.error?.contains("connection was lost") == true, "\(first)")
        #expect(try await fixture.storedUIDs() == Array(6...506))
        #expect(try await fixture.folder()?.backfillCursorUID == 6)
        await fixture.server.clearLog()
        try await fixture.sync()
        #expect(try await fixture.storedUIDs() == Array(1...506))
        #expect(try await fixture.emailCount() == 506)
        // Only what the cut lost is asked again: nothing stored before it.
        let headers = await fixture.server.commands(.fetch).filter { $0.detail.contains("bodyStructure") }
        #expect(headers.map { $0.detail.prefix { $0 != " " } } == ["1:5"], "\(headers)")
    }

    /// `history` (UIDs from 1), then the 500 newer messages a first sync bootstraps (`BootstrapBudget.cap`, headers
    /// only), so that `history` comes in the catch-up with its texts.
    static func deliverHistory(to server: InMemoryIMAPServer, _ history: [InMemoryMessage]) async throws {
        await server.deliver(history)
        await server.deliver(SyncFixture.messages(BootstrapBudget.cap, from: history.count + 1))
    }

    static let email = Email(
        accountId: AccountID("work"), messageId: nil, dedupKey: "", subject: "", fromName: nil, fromAddress: "",
        toAddresses: [], ccAddresses: [], dateReceived: Date(timeIntervalSince1970: 0))

    /// `count` messages of `bytes` bytes of plain text each, numbered from `from`, subject "Large N".
    static func large(_ count: Int, bytes: Int, from first: Int = 1) -> [InMemoryMessage] {
        (first..<first + count).map { number in
            InMemoryMessage.text(
                subject: "Large \(number)", body: String(repeating: "a", count: bytes), messageId: "<large\(number)@tern.test>",
                date: Date().addingTimeInterval(-3 * 86_400 + Double(number)))
        }
    }
}
