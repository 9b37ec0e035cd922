import Foundation
import GRDB
import TernCore
import Testing

@testable import MailStore

/// Issue 38: date operators bound the walk by id through `emailDateBlock` (v34). Ids and dates need not
/// agree (old mail synced late has high ids), so each answer is checked against the emails' own dates.
struct SearchDateRangeTests {
    let database: TernDatabase
    let queries: SQLiteMailQueries
    static let count = 3_000
    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    /// 2024-06-15 12:00 UTC, after every planted date.
    static let now = Date(timeIntervalSince1970: 1_718_452_800)
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// The email with this id: received in an order of its own (a permutation of hours), every tenth
    /// starred, every third about "budget".
    static func received(_ id: Int64) -> Date { start.addingTimeInterval(Double((id * 7_919) % Int64(count)) * 3_600) }
    static func isBudget(_ id: Int64) -> Bool { id % 3 == 0 }

    init() async throws {
        database = try TernDatabase.temporary()
        queries = SQLiteMailQueries(database: database)
        let account = Fixtures.account()
        try await database.writer.write { db in
            try account.insert(db)
            for id in Int64(1)...Int64(Self.count) {
                try db.execute(
                    sql: """
                        INSERT INTO email (id, accountId, dedupKey, subject, dateReceived, isStarred, createdDate)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """, arguments: [id, account.id, "k\(id)", "m\(id)", Self.received(id), id % 10 == 0, Self.start])
                try db.execute(
                    sql: "INSERT INTO searchIndex (rowid, subject, sender, recipients, content) VALUES (?, ?, '', '', ?)",
                    arguments: [id, "m\(id)", Self.isBudget(id) ? "budget" : "other"])
            }
        }
    }

    func ids(_ text: String, limit: Int = 50) async throws -> [Int64] {
        let query = try #require(try SearchQueryParser().parse(text).query)
        return try await queries.search(query, account: nil, limit: limit, now: Self.now, calendar: Self.calendar).map { $0.emailId.rawValue }
    }

    /// The answer from the dates themselves, newest id first.
    func expected(limit: Int = 50, _ matches: (Int64) -> Bool) -> [Int64] {
        Array((Int64(1)...Int64(Self.count)).reversed().filter(matches).prefix(limit))
    }

    static func day(_ text: String) throws -> Date { try Date(text + "T00:00:00Z", strategy: .iso8601) }

    @Test func datesWithWordsFlagsAndAloneAnswerAsTheDatesSay() async throws {
        // 3,000 hours from 2023-11-14: a bound early, in the middle and late in the range.
        for day in ["2023-11-20", "2024-01-10", "2024-03-15"] {
            let bound = try Self.day(day)
            #expect(try await ids("budget before:\(day)") == expected { Self.isBudget($0) && Self.received($0) < bound })
            #expect(try await ids("budget after:\(day)") == expected { Self.isBudget($0) && Self.received($0) >= bound })
            #expect(try await ids("budget is:starred before:\(day)") == expected { Self.isBudget($0) && $0 % 10 == 0 && Self.received($0) < bound })
            #expect(try await ids("after:\(day)", limit: 5_000) == expected(limit: 5_000) { Self.received($0) >= bound })
            #expect(try await ids("before:\(day)", limit: 5_000) == expected(limit: 5_000) { Self.received($0) < bound })
        }
        #expect(try await ids("budget before:2020-01-01").isEmpty)
        #expect(try await ids("budget after:2030-01-01").isEmpty)
    }

    /// The blocks' bounds hold every email's date after inserts, a date changed and a deletion.
    @Test func blocksBoundEveryEmailsDate() async throws {
        try await database.writer.write { db in
            try db.execute(sql: "UPDATE email SET dateReceived = ? WHERE id = 2000", arguments: [Date(timeIntervalSince1970: 1_500_000_000)])
            try db.execute(sql: "DELETE FROM email WHERE id = 1500")
        }
        let outside = try await database.writer.read { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM email e LEFT JOIN emailDateBlock b ON b.block = e.id >> \(SchemaMigrations.emailDateBlockShift)
                    WHERE b.block IS NULL OR e.dateReceived < b.oldest OR e.dateReceived > b.newest
                    """)
        }
        #expect(outside == 0)
        #expect(try await ids("before:2018-01-01") == [2000])
    }

    /// `before:` beside words starts FTS5's walk at the block bound (a rowid constraint FTS5 takes itself).
    @Test func aDateBoundsTheFTSWalk() async throws {
        let compiler = SearchQueryCompiler(now: Self.now, calendar: Self.calendar)
        let query = try #require(try SearchQueryParser().parse("budget before:2024-01-10").query)
        let statement = compiler.statement(query, account: nil, limit: 50)
        let plan = try await database.writer.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: statement.arguments).map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("SCAN searchIndex VIRTUAL TABLE") && $0.contains("<") }, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
    }

    /// v34 fills the blocks of the emails stored before it.
    @Test func emailsFromBeforeV30HaveTheirBlocks() async throws {
        let home = Fixtures.temporaryHome()
        try FileManager.default.createDirectory(at: home.url, withIntermediateDirectories: true)
        let account = Fixtures.account()
        do {
            let queue = try DatabaseQueue(path: home.databaseURL.path)
            try SchemaMigrations.migrator.migrate(queue, upTo: "v29-scheduled-send-index")
            try await queue.write { [account] db in
                try Fixtures.insertAsOfV1(account, db)
                for (id, day) in [(Int64(5), "2024-01-02"), (Int64(3_000), "2022-05-06")] {
                    try db.execute(
                        sql: "INSERT INTO email (id, accountId, dedupKey, dateReceived, createdDate) VALUES (?, ?, ?, ?, ?)",
                        arguments: [id, account.id, "k\(id)", try Self.day(day), Self.start])
                    try db.execute(sql: "INSERT INTO searchIndex (rowid, content) VALUES (?, 'budget')", arguments: [id])
                }
            }
            try queue.close()
        }
        let database = try TernDatabase(home: home)
        let blocks = try await database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM emailDateBlock") }
        #expect(blocks == 2)
        let query = try #require(try SearchQueryParser().parse("budget before:2023-01-01").query)
        let hits = try await SQLiteMailQueries(database: database).search(query, account: nil, limit: 50, now: Self.now, calendar: Self.calendar)
        #expect(hits.map(\.emailId.rawValue) == [3_000])
    }
}
