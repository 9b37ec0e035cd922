import Foundation
import MailStore
import TernCore

/// `tern-bench search`: FTS5 queries over a synthetic mailbox in a scratch store.
public enum SearchBenchmark {
    public struct Report: Sendable, Encodable {
        public var messages: Int
        public var queries: Int
        public var meanMilliseconds: Double
        public var p99Milliseconds: Double
        public var slowestQuery: String
        public var populateSeconds: Double
    }

    /// Words, names, prefixes and combinations, as people type them.
    static let queries = [
        "budget", "quarterly results", "zoë", "zoe", "garcía invoice", "roadmap hiring", "secu", "outage report",
        "kim lee", "田中", "launch campaign analytics", "data", "contract renewal vendor", "offsite", "keynote draft",
        "migration backup", "priya", "shipping", "design review", "nothing-matches-this"
    ]

    public static func run(messages: Int, iterations: Int) async throws -> Report {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-bench-search-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try TernDatabase(home: TernHome(url: directory))
        let clock = ContinuousClock()
        let populateStart = clock.now
        try await SyntheticMailbox.populate(database, count: messages)
        let populate = clock.now - populateStart
        let search = SQLiteMailQueries(database: database)
        var times: [(Double, String)] = []
        for query in queries { _ = try await search.search(query, account: nil, limit: 50) } // warm-up
        for _ in 0..<max(1, iterations) {
            for query in queries {
                let start = clock.now
                _ = try await search.search(query, account: nil, limit: 50)
                times.append(((clock.now - start).inSeconds * 1000, query))
            }
        }
        times.sort { $0.0 < $1.0 }
        return Report(
            messages: messages, queries: times.count, meanMilliseconds: times.map(\.0).reduce(0, +) / Double(times.count),
            p99Milliseconds: times[min(times.count - 1, Int(Double(times.count) * 0.99))].0, slowestQuery: times.last?.1 ?? "",
            populateSeconds: populate.inSeconds)
    }
}
