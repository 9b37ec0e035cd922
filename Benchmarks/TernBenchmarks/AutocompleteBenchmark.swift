import Foundation
import TernCore

/// NFR-COMP-02 for BENCHMARKS.md: the time of one keystroke's suggestions over a synthetic contact
/// cache (`tern-bench autocomplete`). Each sample types a contact's name or address one character
/// at a time, as a person does, and every prefix is one timed query of the index the composer holds.
public enum AutocompleteBenchmark {
    public struct Report: Sendable, Codable {
        public var contacts: Int
        public var indexSeconds: Double
        public var keystrokes: Int
        public var p50Milliseconds: Double
        public var p99Milliseconds: Double
        public var maxMilliseconds: Double
        public var slowestQuery: String
    }

    static let first = [
        "Ana", "Zoë", "Jörg", "Seán", "Marie", "José", "Li", "Olga", "Ivan", "Sam", "Samuel", "Aiko", "Björn", "Chloé", "Dmitri",
        "Émile", "Fatima", "Grace", "Hugo", "Inès", "Jan", "Kofi", "Lena", "Mateo", "Nora", "Omar", "Paula", "Quentin", "Rosa", "Sven"
    ]
    static let last = [
        "Silva", "Müller", "O'Brien", "Durand", "Smith", "Nguyen", "García", "Kowalski", "Rossi", "Novák", "Andersson", "Yamada",
        "Dubois", "Ivanova", "Jensen", "López", "Martin", "Schmidt", "Costa", "Horvath"
    ]
    static let domains = ["example.org", "mail.example.com", "corp.example", "uni.example.edu", "bücher.example", "example.fr"]

    public static func run(contacts count: Int, samples: Int = 2_000, limit: Int = ContactsAutocompleteUseCase.defaultLimit) -> Report {
        var generator = SplitMix(seed: 16)
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let entries = (0..<count).map { index -> ContactCacheEntry in
            let given = first[Int(generator.next() % UInt64(first.count))]
            let family = last[Int(generator.next() % UInt64(last.count))]
            let domain = domains[Int(generator.next() % UInt64(domains.count))]
            let local = "\(given).\(family)\(index)".lowercased().replacingOccurrences(of: "'", with: "")
            return ContactCacheEntry(
                accountId: "bench", emailAddress: "\(local)@\(domain)", displayName: "\(given) \(family)",
                lastSeenDate: base.addingTimeInterval(-Double(generator.next() % 31_536_000)),
                frequency: 1 + Int(generator.next() % 50))
        }
        let clock = ContinuousClock()
        var index: ContactIndex?
        let indexTime = clock.measure { index = ContactIndex(entries) }
        guard let index else { fatalError("index not built") }
        var times: [(Double, String)] = []
        var sink = 0
        for _ in 0..<samples {
            let entry = entries[Int(generator.next() % UInt64(max(entries.count, 1)))]
            let typed = generator.next() % 2 == 0 ? entry.displayName ?? entry.emailAddress : entry.emailAddress
            for length in 1...min(8, typed.count) {
                let query = String(typed.prefix(length))
                let elapsed = clock.measure { sink &+= index.suggestions(for: query, limit: limit).count }
                times.append((elapsed.inSeconds * 1000, query))
            }
        }
        precondition(sink >= 0)
        times.sort { $0.0 < $1.0 }
        let values = times.map(\.0)
        return Report(
            contacts: index.contacts.count, indexSeconds: indexTime.inSeconds, keystrokes: times.count,
            p50Milliseconds: ReadingBenchmark.percentile(values, 0.5), p99Milliseconds: ReadingBenchmark.percentile(values, 0.99),
            maxMilliseconds: values.last ?? 0, slowestQuery: times.last?.1 ?? "")
    }
}
