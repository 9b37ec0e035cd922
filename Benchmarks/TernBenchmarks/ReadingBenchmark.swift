import Foundation
import MailStore
import TernCore
@_spi(Tooling) import TernRuntime

/// `tern-bench thread-open`: NFR-ED-01/02 through the use case a front end calls. A scratch store
/// holds a 5-message thread with HTML bodies (a newsletter-sized one among them) and a 500-message
/// thread; each iteration opens the 5-message thread with every message rendered, and the first page
/// of the 500-message one.
public enum ReadingBenchmark {
    public struct Report: Sendable, Encodable {
        public var iterations: Int
        public var fiveMessageP50Milliseconds: Double
        public var fiveMessageP99Milliseconds: Double
        public var largeThreadFirstPageP50Milliseconds: Double
        public var largeThreadFirstPageP99Milliseconds: Double
        /// Resident memory added by opening the 500-message thread's first page `iterations` times.
        public var largeThreadMemoryAboveBaselineMegabytes: Double
    }

    public static func run(iterations: Int) async throws -> Report {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-bench-thread-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let home = TernHome(url: directory)
        let services = try TernServices(home: home, database: TernDatabase(home: home), environment: [:])
        let (small, large) = try await populate(services.database)
        let options = OpenThreadUseCase.Options(markRead: false, expandAll: true, fetchMissingBodies: false)
        let firstPage = OpenThreadUseCase.Options(markRead: false, fetchMissingBodies: false)
        for _ in 0..<5 { _ = try await services.openThread(threadId: small, options: options) } // warm-up
        let clock = ContinuousClock()
        var smallTimes: [Double] = []
        for _ in 0..<iterations {
            let start = clock.now
            guard case .opened(let conversation, _) = try await services.openThread(threadId: small, options: options),
                conversation.messages.allSatisfy({ $0.body != nil })
            else { throw TernError.notFound("benchmark thread") }
            smallTimes.append((clock.now - start).inSeconds * 1000)
        }
        _ = try await services.openThread(threadId: large, options: firstPage)
        let baseline = residentMegabytes()
        var largeTimes: [Double] = []
        for _ in 0..<iterations {
            let start = clock.now
            guard case .opened(let conversation, _) = try await services.openThread(threadId: large, options: firstPage),
                conversation.messages.count == ConversationWindow.pageSize
            else { throw TernError.notFound("benchmark thread") }
            largeTimes.append((clock.now - start).inSeconds * 1000)
        }
        let grown = residentMegabytes() - baseline
        return Report(
            iterations: iterations, fiveMessageP50Milliseconds: percentile(smallTimes, 0.5),
            fiveMessageP99Milliseconds: percentile(smallTimes, 0.99), largeThreadFirstPageP50Milliseconds: percentile(largeTimes, 0.5),
            largeThreadFirstPageP99Milliseconds: percentile(largeTimes, 0.99), largeThreadMemoryAboveBaselineMegabytes: grown)
    }

    /// An account no server answers for: the benchmarks' stores never sync.
    static func insertScratchAccount(_ database: TernDatabase) async throws -> Account {
        let account = Account(
            id: .make(), name: "bench", emailAddress: "bench@example.org", provider: .imap,
            imap: ServerEndpoint(host: "127.0.0.1", port: 993, security: .implicitTLS),
            smtp: ServerEndpoint(host: "127.0.0.1", port: 465, security: .implicitTLS),
            username: "bench", credential: .passwordEnvironment("UNUSED"))
        try await SQLiteAccountRepository(database: database).insert(account)
        return account
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }

    static func residentMegabytes() -> Double {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
        else { return 0 }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    }

    /// The two threads, bodies stored as a sync with bodies would store them.
    static func populate(_ database: TernDatabase) async throws -> (small: ThreadID, large: ThreadID) {
        let account = try await insertScratchAccount(database)
        let folders = try await SQLiteSyncStore(database: database).saveDiscoveredFolders(
            [DiscoveredFolder(path: "INBOX", delimiter: "/", folderType: .inbox)], accountId: account.id, keepOrphans: false)
        guard let inbox = folders.first?.id else { throw TernError.notFound("benchmark folder") }
        func thread(_ count: Int, tag: String, firstUID: Int64) -> [IncomingMessage] {
            let root = "<\(tag)-root@example.org>"
            return (0..<count).map { index in
                let paragraphs = String(
                    repeating: "<p>Thanks for the numbers. The <b>budget review</b> is on Thursday; "
                        + "<a href=\"https://example.com/agenda\">agenda</a> attached.</p>\n", count: index == 2 ? 120 : 12)
                let html =
                    "<html><body><div style=\"font-family: Arial; color: #333\">\(paragraphs)</div>"
                    + "<blockquote class=\"gmail_quote\">On Monday, Ana wrote:<br>&gt; Earlier text</blockquote>"
                    + "<img src=\"https://tracker.example/open.gif\" width=\"1\" height=\"1\"></body></html>"
                let email = Email(
                    accountId: account.id, messageId: index == 0 ? root : "<\(tag)-\(index)@example.org>", dedupKey: "\(tag)-\(index)",
                    inReplyTo: index == 0 ? nil : root, references: index == 0 ? nil : root,
                    subject: index == 0 ? "Budget review" : "Re: Budget review", fromName: "Ana García",
                    fromAddress: "ana@example.org", toAddresses: [EmailAddress(address: "bench@example.org")],
                    dateSent: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 60), dateReceived: Date(),
                    snippet: "Thanks for the numbers.", bodyPlain: nil, bodyHTML: html, bodiesFetched: true)
                return IncomingMessage(email: email, uid: firstUID + Int64(index), serverFlags: ["\\Seen"])
            }
        }
        let store = SQLiteMessageStore(database: database)
        try await store.store(thread(5, tag: "small", firstUID: 1), folderId: inbox)
        let large = thread(500, tag: "large", firstUID: 100)
        for chunk in stride(from: 0, to: large.count, by: 100) {
            try await store.store(Array(large[chunk..<chunk + 100]), folderId: inbox)
        }
        func threadId(root: String) async throws -> ThreadID {
            let id = try await database.writer.read { db in
                try ThreadID.fetchOne(db, sql: "SELECT threadId FROM email WHERE messageId = ?", arguments: [root])
            }
            guard let id else { throw TernError.notFound("benchmark thread") }
            return id
        }
        let smallThread = try await threadId(root: "<small-root@example.org>")
        let largeThread = try await threadId(root: "<large-root@example.org>")
        return (smallThread, largeThread)
    }
}

/// `tern-bench thread-open --home`: the same opening on a synced store of one's own (issue 38: at
/// 1,000,000 messages). Each thread is opened once with its bodies fetched from the server, as a
/// first click does, then timed as the cached opening NFR-ED-01/02 is about: the store only, nothing
/// left to fetch.
extension ReadingBenchmark {
    public struct StoreReport: Sendable, Encodable {
        public struct Opening: Sendable, Encodable {
            public var thread: Int64
            public var messages: Int
            public var messagesOnPage: Int
            /// The first opening, bodies fetched from the server (the network work awaited).
            public var firstOpenMilliseconds: Double
            public var cachedP50Milliseconds: Double
            public var cachedP99Milliseconds: Double
        }
        public var storedEmails: Int
        public var iterations: Int
        /// A conversation of a few messages, every message rendered (`expandAll`).
        public var small: Opening
        /// The store's largest thread, its first page (as a front end opens it).
        public var largest: Opening
    }

    public static func run(home: URL, smallThread: ThreadID?, iterations: Int) async throws -> StoreReport {
        let ternHome = TernHome(url: home)
        let database = try TernDatabase(home: ternHome, integrityCheck: .deferred)
        let services = try TernServices(home: ternHome, database: database, environment: ProcessInfo.processInfo.environment)
        let (stored, newestSmall, largest) = try await database.writer.read { db in
            let stored = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM email") ?? 0
            // The Inbox's newest conversation of four to eight messages.
            let small = try ThreadID.fetchOne(
                db,
                sql: """
                    SELECT t.id FROM threadFolder tf JOIN folder f ON f.id = tf.folderId JOIN thread t ON t.id = tf.threadId
                    WHERE f.folderType = 'inbox' AND t.messageCount BETWEEN 4 AND 8 ORDER BY tf.latestDate DESC LIMIT 1
                    """)
            let largest = try ThreadID.fetchOne(db, sql: "SELECT id FROM thread ORDER BY messageCount DESC LIMIT 1")
            return (stored, small, largest)
        }
        guard let small = smallThread ?? newestSmall, let largest else { throw TernError.notFound("a thread to open") }
        let clock = ContinuousClock()
        func measure(_ thread: ThreadID, _ options: OpenThreadUseCase.Options) async throws -> StoreReport.Opening {
            var start = clock.now
            guard case .opened(_, let network) = try await services.openThread(threadId: thread, options: options) else {
                throw TernError.notFound("thread \(thread)")
            }
            if let network { _ = await network.outcome() }
            let first = (clock.now - start).inSeconds * 1000
            var times: [Double] = []
            var shown: Conversation?
            for _ in 0..<iterations {
                start = clock.now
                guard case .opened(let conversation, let network) = try await services.openThread(threadId: thread, options: options), network == nil
                else { throw TernError.notFound("thread \(thread) cached") }
                times.append((clock.now - start).inSeconds * 1000)
                shown = conversation
            }
            return StoreReport.Opening(
                thread: thread.rawValue, messages: shown?.messageCount ?? 0, messagesOnPage: shown?.messages.count ?? 0,
                firstOpenMilliseconds: first, cachedP50Milliseconds: percentile(times, 0.5), cachedP99Milliseconds: percentile(times, 0.99))
        }
        let everyBody = try await measure(small, OpenThreadUseCase.Options(markRead: false, expandAll: true))
        let firstPage = try await measure(largest, OpenThreadUseCase.Options(markRead: false))
        return StoreReport(storedEmails: stored, iterations: iterations, small: everyBody, largest: firstPage)
    }
}
