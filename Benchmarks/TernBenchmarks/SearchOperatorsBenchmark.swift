import Foundation
import MailStore
import TernCore

/// `tern-bench search-operators` (issue 36): Gmail's operators, each beside words, over a synthetic
/// mailbox whose messages carry folders, flags, sizes, attachments and Cc (`SyntheticMailbox`
/// with `details`); p50 and p99 per query. With `notmuch`, the same mail as a Maildir indexed by
/// `notmuch new` and each query's equivalent timed as a whole `notmuch search` process; with
/// `tern`, the same store searched by whole `tern search` processes, for a like-for-like figure.
public enum SearchOperatorsBenchmark {
    public struct Timing: Sendable, Encodable {
        public var query: String
        public var hits: Int
        public var p50Milliseconds: Double
        public var p99Milliseconds: Double
        /// Whole `tern search --json --limit 50` processes on the same store.
        public var ternProcessP50Milliseconds: Double?
        public var notmuchQuery: String?
        public var notmuchHits: Int?
        /// Whole `notmuch search --output=messages --limit=50` processes.
        public var notmuchP50Milliseconds: Double?
        public var notmuchP99Milliseconds: Double?
    }

    public struct Report: Sendable, Encodable {
        public var messages: Int
        public var populateSeconds: Double
        public var notmuchIndexSeconds: Double?
        public var timings: [Timing]
    }

    /// Each operator with words (and a few alone, and combined), with notmuch's equivalent where it has
    /// one (notmuch has no size search, no Cc apart from To, no Archive view). `{D-n}`: the synthetic
    /// mail's last day minus n days, as a date.
    static let queries: [(tern: String, notmuch: String?)] = [
        ("budget from:priya", "budget and from:priya"),
        ("review to:kim", "review and to:kim"),
        ("report cc:kim", nil),
        ("launch subject:roadmap", "launch and subject:roadmap"),
        ("budget has:attachment", "budget and tag:attachment"),
        ("invoice filename:pdf", "invoice and attachment:pdf"),
        ("budget is:unread", "budget and tag:unread"),
        ("budget is:read", "budget and not tag:unread"),
        ("budget is:starred", "budget and tag:flagged"),
        ("budget in:inbox", "budget and folder:INBOX"),
        ("budget in:sent", "budget and folder:Sent"),
        ("budget in:receipts", "budget and folder:Receipts"),
        ("budget in:trash", "budget and folder:Trash"),
        ("budget in:archive", "budget and folder:Archive"),
        ("budget before:{D-600}", "budget and date:..{D-601}"),
        ("budget after:{D-30}", "budget and date:{D-30}.."),
        ("budget older_than:1y", "budget and date:..{D-365}"),
        ("budget newer_than:7d", "budget and date:{D-7}.."),
        ("budget larger:5M", nil),
        ("budget smaller:10K", nil),
        ("\"budget review\" -is:read", "\"budget review\" and tag:unread"),
        ("budget -from:priya", "budget and not from:priya"),
        ("budget OR roadmap is:starred", "(budget or roadmap) and tag:flagged"),
        ("(from:priya OR from:kim) -is:read budget", "(from:priya or from:kim) and tag:unread and budget"),
        ("outage is:starred has:attachment newer_than:2m", "outage and tag:flagged and tag:attachment and date:{D-61}.."),
        ("is:starred", "tag:flagged"),
        ("has:attachment", "tag:attachment"),
        ("in:receipts", "folder:Receipts"),
        ("larger:5M", nil),
        ("newer_than:7d", "date:{D-7}.."),
        ("filename:invoice", "attachment:invoice")
    ]

    /// `keptHome`: the store is made there once and kept (a million messages take minutes to write), and
    /// searched again by later runs with the same `messages`. `keptNotmuch` likewise keeps notmuch's Maildir and
    /// database (indexing a million takes longer than the timed runs), so that the indexing and the timed runs
    /// can be made at different times.
    public static func run(
        messages: Int, iterations: Int, notmuch: String?, tern: String?, processRuns: Int, keptHome: URL? = nil,
        keptNotmuch: URL? = nil, indexOnly: Bool = false
    ) async throws -> Report {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-bench-operators-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let home = TernHome(url: keptHome ?? directory.appendingPathComponent("home"))
        let database = try TernDatabase(home: home)
        let clock = ContinuousClock()
        let populateStart = clock.now
        let stored = try await database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM email") ?? 0 }
        if stored == 0 {
            try await SyntheticMailbox.populate(database, count: messages, details: true)
        } else if stored != messages {
            throw BenchmarkProcessFailure(command: "the kept store \(home.url.path) holds \(stored) messages, not \(messages)", status: 1)
        }
        let populate = clock.now - populateStart
        let now = SyntheticMailbox.date(of: messages)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var indexSeconds: Double?
        var notmuchConfig: URL?
        if let notmuch, let kept = keptNotmuch,
            FileManager.default.fileExists(atPath: kept.appendingPathComponent("notmuch-config").path)
        {
            notmuchConfig = kept.appendingPathComponent("notmuch-config")
        } else if let notmuch {
            let notmuchDirectory = keptNotmuch ?? directory
            let maildir = notmuchDirectory.appendingPathComponent("maildir")
            try SyntheticMailbox.writeMaildir(to: maildir, count: messages)
            let config = notmuchDirectory.appendingPathComponent("notmuch-config.partial")
            try """
            [database]
            path=\(maildir.path)
            [new]
            tags=
            [maildir]
            synchronize_flags=true
            """.write(to: config, atomically: true, encoding: .utf8)
            let start = clock.now
            _ = try runProcess(notmuch, ["new", "--quiet"], environment: ["NOTMUCH_CONFIG": config.path])
            indexSeconds = (clock.now - start).inSeconds
            // Named as kept only once indexed, so that an interrupted indexing is made again.
            let indexed = notmuchDirectory.appendingPathComponent("notmuch-config")
            try FileManager.default.moveItem(at: config, to: indexed)
            notmuchConfig = indexed
        }
        if indexOnly {
            return Report(messages: messages, populateSeconds: populate.inSeconds, notmuchIndexSeconds: indexSeconds, timings: [])
        }
        let search = SQLiteMailQueries(database: database)
        var timings: [Timing] = []
        for (ternQuery, notmuchQuery) in queries {
            let text = dated(ternQuery, now: now, calendar: calendar)
            guard let query = try SearchQueryParser().parse(text).query else { continue }
            var hits = 0
            for _ in 0..<3 { hits = try await search.search(query, account: nil, limit: 50, now: now, calendar: calendar).count }
            var times: [Double] = []
            for _ in 0..<max(1, iterations) {
                let start = clock.now
                _ = try await search.search(query, account: nil, limit: 50, now: now, calendar: calendar)
                times.append((clock.now - start).inSeconds * 1000)
            }
            var timing = Timing(query: text, hits: hits, p50Milliseconds: percentile(times, 0.5), p99Milliseconds: percentile(times, 0.99))
            if let tern {
                var processTimes: [Double] = []
                for _ in 0..<max(1, processRuns) {
                    let start = clock.now
                    _ = try runProcess(tern, ["search", "--json", "--limit", "50", text], environment: ["TERN_HOME": home.url.path])
                    processTimes.append((clock.now - start).inSeconds * 1000)
                }
                timing.ternProcessP50Milliseconds = percentile(processTimes, 0.5)
            }
            if let notmuch, let notmuchConfig, let notmuchQuery {
                let equivalent = dated(notmuchQuery, now: now, calendar: calendar)
                var processTimes: [Double] = []
                var output = ""
                for _ in 0..<max(1, processRuns) {
                    let start = clock.now
                    output = try runProcess(
                        notmuch, ["search", "--output=messages", "--limit=50", equivalent], environment: ["NOTMUCH_CONFIG": notmuchConfig.path])
                    processTimes.append((clock.now - start).inSeconds * 1000)
                }
                timing.notmuchQuery = equivalent
                timing.notmuchHits = output.split(separator: "\n").count
                timing.notmuchP50Milliseconds = percentile(processTimes, 0.5)
                timing.notmuchP99Milliseconds = percentile(processTimes, 0.99)
            }
            timings.append(timing)
        }
        return Report(messages: messages, populateSeconds: populate.inSeconds, notmuchIndexSeconds: indexSeconds, timings: timings)
    }

    /// `{D-n}` replaced by the date n days before `now`.
    static func dated(_ query: String, now: Date, calendar: Calendar) -> String {
        var result = query
        while let open = result.range(of: "{D-"), let close = result[open.upperBound...].firstIndex(of: "}") {
            let days = Int(result[open.upperBound..<close]) ?? 0
            let day = calendar.date(byAdding: .day, value: -days, to: now) ?? now
            let parts = calendar.dateComponents([.year, .month, .day], from: day)
            let text = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
            result.replaceSubrange(open.lowerBound...close, with: text)
        }
        return result
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    /// Runs a program to its end; its standard output as text. Thrown when it fails.
    static func runProcess(_ path: String, _ arguments: [String], environment: [String: String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkProcessFailure(command: ([path] + arguments).joined(separator: " "), status: process.terminationStatus)
        }
        return String(decoding: data, as: UTF8.self)
    }
}

struct BenchmarkProcessFailure: Error, CustomStringConvertible {
    var command: String
    var status: Int32
    var description: String { "\(command) exited with \(status)" }
}
