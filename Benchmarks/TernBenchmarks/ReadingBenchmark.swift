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
        let account = Account(
            id: .make(), name: "bench", emailAddress: "bench@example.org", provider: .imap,
            imap: ServerEndpoint(host: "127.0.0.1", port: 993, security: .implicitTLS),
            smtp: ServerEndpoint(host: "127.0.0.1", port: 465, security: .implicitTLS),
            username: "bench", credential: .passwordEnvironment("UNUSED"))
        try await SQLiteAccountRepository(database: database).insert(account)
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
