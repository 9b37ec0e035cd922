import Foundation
import GRDB
import TernCore
import Testing

@testable import MailStore

/// Issue 36: each search operator alone, with words, negated and in `OR`, against a planted set of
/// six messages whose answers are known; and the plan SQLite makes of each on a store.
struct SearchQueryCompilerTests {
    let database: TernDatabase
    let account = Fixtures.account()
    let queries: SQLiteMailQueries
    /// 2024-06-15 12:00 UTC: what `older_than:` counts back from.
    static let now = Date(timeIntervalSince1970: 1_718_452_800)
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    struct Planted {
        var subject: String
        var from: EmailAddress
        var to: [EmailAddress] = []
        var cc: [EmailAddress] = []
        var received: String
        var read = true
        var starred = false
        var folder: String
        var size: Int64
        var attachment: String?
        var body = ""
    }

    static let alice = EmailAddress(name: "Alice Arnold", address: "alice@example.com")
    static let bob = EmailAddress(name: "Bob Baker", address: "bob@example.com")
    static let carol = EmailAddress(name: "Carol Chen", address: "carol@example.com")
    static let dave = EmailAddress(name: "Dave Diaz", address: "dave@example.com")

    /// In this order, so the newest first (by arrival) is the reverse.
    static let planted: [Planted] = [
        Planted(
            subject: "Quarterly budget review", from: alice, to: [bob], cc: [carol], received: "2024-06-14T09:00:00Z", read: false,
            starred: true, folder: "INBOX", size: 5_000, attachment: "budget-2024.xlsx", body: "The numbers for the offsite."),
        Planted(subject: "Lunch plans", from: bob, to: [alice], received: "2024-05-01T12:00:00Z", folder: "INBOX", size: 300_000),
        Planted(
            subject: "Invoice 42", from: EmailAddress(name: "Shop Billing", address: "billing@shop.example"), to: [alice], cc: [dave],
            received: "2023-12-31T23:00:00Z", folder: "Receipts", size: 6_000_000, attachment: "invoice-42.pdf"),
        Planted(subject: "Budget draft", from: alice, to: [dave], received: "2024-06-10T08:00:00Z", folder: "Sent", size: 12_000),
        Planted(
            subject: "Old newsletter", from: EmailAddress(name: "News", address: "news@list.example"), received: "2022-01-01T10:00:00Z",
            read: false, folder: "Trash", size: 20_000),
        Planted(subject: "Archived budget notes", from: carol, to: [alice], received: "2024-03-03T10:00:00Z", folder: "Archive", size: 1_000)
    ]

    init() async throws {
        database = try TernDatabase.temporary()
        queries = SQLiteMailQueries(database: database)
        let folderTypes: [String: FolderType] = ["INBOX": .inbox, "Receipts": .custom, "Sent": .sent, "Trash": .trash, "Archive": .archive]
        let folders = try await database.writer.write { [account] db in
            try account.insert(db)
            var folders: [String: FolderID] = [:]
            for (path, type) in folderTypes {
                var folder = Folder(accountId: account.id, path: path, folderType: type)
                try folder.insert(db)
                folders[path] = folder.id
            }
            return folders
        }
        let store = SQLiteMessageStore(database: database)
        for (index, planted) in Self.planted.enumerated() {
            var email = Fixtures.email(accountId: account.id, messageId: "m\(index)@example.com")
            email.subject = planted.subject
            email.fromName = planted.from.name
            email.fromAddress = planted.from.address
            email.toAddresses = planted.to
            email.ccAddresses = planted.cc
            email.dateReceived = try Date(planted.received, strategy: .iso8601)
            email.dateSent = email.dateReceived
            email.sizeBytes = planted.size
            email.hasAttachments = planted.attachment != nil
            email.bodyPlain = planted.body
            let attachments = planted.attachment.map {
                [Attachment(emailId: EmailID(0), partId: "2", filename: $0, mimeType: "application/octet-stream", sizeBytes: 100)]
            }
            let flags: [String] = (planted.read ? ["\\Seen"] : []) + (planted.starred ? ["\\Flagged"] : [])
            let message = IncomingMessage(email: email, uid: Int64(index + 1), serverFlags: flags, attachments: attachments ?? [])
            try await store.store([message], folderId: folders[planted.folder]!)
        }
    }

    func subjects(_ text: String) async throws -> [String] {
        let parsed = try SearchQueryParser().parse(text)
        guard let query = parsed.query else { return [] }
        return try await queries.search(query, account: nil, limit: 50, now: Self.now, calendar: Self.calendar).map(\.subject)
    }

    /// The planted subjects at these indexes, newest first.
    func expected(_ indexes: Int...) -> [String] { indexes.sorted(by: >).map { Self.planted[$0].subject } }

    @Test func wordsAndPhrasesAsBefore() async throws {
        #expect(try await subjects("budget") == expected(0, 3, 5))
        #expect(try await subjects("budg") == expected(0, 3, 5))
        #expect(try await subjects("\"budget review\"") == expected(0))
        #expect(try await subjects("\"review budget\"").isEmpty)
        #expect(try await subjects("offsite") == expected(0))
    }

    @Test func peopleAndSubject() async throws {
        #expect(try await subjects("from:alice") == expected(0, 3))
        #expect(try await subjects("from:alice@example.com") == expected(0, 3))
        #expect(try await subjects("from:\"Alice Arnold\"") == expected(0, 3))
        #expect(try await subjects("to:alice") == expected(1, 2, 5))
        // `to:` is any recipient, Cc included, as Gmail's; `cc:` only Cc.
        #expect(try await subjects("to:carol") == expected(0))
        #expect(try await subjects("cc:carol") == expected(0))
        #expect(try await subjects("cc:dave") == expected(2))
        #expect(try await subjects("to:dave") == expected(2, 3))
        #expect(try await subjects("subject:budget") == expected(0, 3, 5))
        #expect(try await subjects("subject:alice").isEmpty)
    }

    @Test func attachmentsAndFlags() async throws {
        #expect(try await subjects("has:attachment") == expected(0, 2))
        #expect(try await subjects("filename:pdf") == expected(2))
        #expect(try await subjects("filename:budget-2024") == expected(0))
        #expect(try await subjects("filename:%").isEmpty)
        #expect(try await subjects("is:unread") == expected(0, 4))
        #expect(try await subjects("is:read") == expected(1, 2, 3, 5))
        #expect(try await subjects("is:starred") == expected(0))
    }

    @Test func folders() async throws {
        #expect(try await subjects("in:inbox") == expected(0, 1))
        #expect(try await subjects("in:sent") == expected(3))
        #expect(try await subjects("in:trash") == expected(4))
        #expect(try await subjects("in:receipts") == expected(2))
        #expect(try await subjects("in:archive") == expected(5))
        #expect(try await subjects("in:nowhere").isEmpty)
    }

    @Test func datesAndSizes() async throws {
        #expect(try await subjects("before:2024-01-01") == expected(2, 4))
        #expect(try await subjects("after:2024-06-01") == expected(0, 3))
        #expect(try await subjects("after:2024/06/14") == expected(0))
        #expect(try await subjects("before:2024/06/14 after:2024-06-10") == expected(3))
        #expect(try await subjects("older_than:1y") == expected(4))
        #expect(try await subjects("newer_than:7d") == expected(0, 3))
        #expect(try await subjects("newer_than:2m") == expected(0, 1, 3))
        #expect(try await subjects("larger:1M") == expected(2))
        #expect(try await subjects("larger:200K") == expected(1, 2))
        #expect(try await subjects("smaller:10K") == expected(0, 5))
    }

    @Test func combinedWithWordsNegationAndOr() async throws {
        #expect(try await subjects("budget from:alice") == expected(0, 3))
        #expect(try await subjects("budget -from:alice") == expected(5))
        #expect(try await subjects("budget is:unread") == expected(0))
        #expect(try await subjects("budget OR lunch") == expected(0, 1, 3, 5))
        #expect(try await subjects("from:bob OR from:carol") == expected(1, 5))
        #expect(try await subjects("budget -(in:inbox OR in:sent)") == expected(5))
        #expect(try await subjects("(from:alice OR from:bob) -budget") == expected(1))
        #expect(try await subjects("-is:read") == expected(0, 4))
        #expect(try await subjects("-budget is:unread") == expected(4))
        #expect(try await subjects("invoice has:attachment larger:1M") == expected(2))
        #expect(try await subjects("budget in:archive") == expected(5))
        #expect(try await subjects("is:starred OR in:sent") == expected(0, 3))
        #expect(try await subjects("budget OR is:starred newer_than:7d") == expected(0, 3))
        #expect(try await subjects("-from:alice -is:unread") == expected(1, 2, 5))
        #expect(try await subjects("budget -budget").isEmpty)
    }

    @Test func theAccountStillNarrows() async throws {
        let query = try #require(try SearchQueryParser().parse("budget").query)
        #expect(try await queries.search(query, account: "elsewhere", limit: 10, now: Self.now, calendar: Self.calendar).isEmpty)
        #expect(try await queries.search(query, account: account.name, limit: 10, now: Self.now, calendar: Self.calendar).count == 3)
    }

    @Test func hostileTextIsOnlyText() async throws {
        for text in ["\"; DROP TABLE email; --", "from:\"a\" OR \"b", "subject:NEAR(", "a AND OR", "* ^ :", "from:*", "in:'; --", "\"\""] {
            _ = try? await subjects(text)
        }
        #expect(try await subjects("budget").count == 3)
        // FTS5's own syntax in a person's words is text: `NOT` is the start of "notes".
        #expect(try await subjects("NOT") == expected(5))
        #expect(try await subjects("subject:\"budget\" NEAR").isEmpty)
    }

    /// FR-SYNC-04's free words compile to the FTS5 query they always did.
    @Test func freeWordsKeepTheirFTSQuery() throws {
        let compiler = SearchQueryCompiler(now: Self.now, calendar: Self.calendar)
        let query = try #require(try SearchQueryParser().parse("quarterly budg").query)
        #expect(compiler.split(query).match == #""quarterly" "budg"*"#)
        let negated = try #require(try SearchQueryParser().parse("(from:alice OR from:bob) -budget").query)
        #expect(compiler.split(negated).match == #"((sender : "alice") OR (sender : "bob")) NOT "budget"*"#)
    }

    /// Flags and attachments walk their partial index, the FTS5 operators the FTS index; none sorts.
    @Test func everyOperatorUsesAnIndex() async throws {
        let compiler = SearchQueryCompiler(now: Self.now, calendar: Self.calendar)
        let operators = [
            "is:unread", "is:starred", "has:attachment", "before:2024-01-01", "after:2024-01-01", "newer_than:7d", "older_than:1y",
            "larger:1M", "smaller:10K", "from:alice", "to:alice", "cc:carol", "subject:budget", "filename:pdf", "in:inbox", "in:receipts",
            "in:archive", "budget", "budget is:starred", "budget has:attachment newer_than:7d"
        ]
        for text in operators {
            let query = try #require(try SearchQueryParser().parse(text).query)
            let statement = compiler.statement(query, account: nil, limit: 50)
            let plan = try await database.writer.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: statement.arguments).map { $0["detail"] as String }
            }
            let scansEmail = plan.contains { $0.hasPrefix("SCAN e") && !$0.contains("INDEX") }
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(text) sorts: \(plan)")
            // A sparse flag beside words walks the flag's partial index and asks FTS5 about each email.
            if text.hasPrefix("budget "),
                let flag = text.contains("starred") ? "email_starred" : text.contains("attachment") ? "email_with_attachments" : nil
            {
                #expect(plan.contains { $0.contains(flag) }, "\(text): \(plan)")
            }
            // Folders, dates and sizes walk the email table newest first and stop at the limit (docs/decisions.md).
            let walksToTheLimit = ["in:", "before:", "after:", "newer_than:", "older_than:", "larger:", "smaller:"]
            if !walksToTheLimit.contains(where: text.hasPrefix) {
                #expect(!scansEmail, "\(text) scans the email table: \(plan)")
            }
        }
    }
}
