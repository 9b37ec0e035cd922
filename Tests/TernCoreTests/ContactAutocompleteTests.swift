import Foundation
import Testing

@testable import TernCore

/// FR-COMP-04, NFR-COMP-02: word-start matching on names and addresses, case- and
/// accent-insensitive; ranked by frequency then recency; merged across accounts.
@Suite struct ContactAutocompleteTests {
    static let day: TimeInterval = 86_400

    func entry(_ address: String, _ name: String?, account: AccountID = "a", frequency: Int = 1, daysAgo: Double = 0) -> ContactCacheEntry {
        ContactCacheEntry(
            accountId: account, emailAddress: address, displayName: name,
            lastSeenDate: Date(timeIntervalSince1970: 1_700_000_000 - daysAgo * Self.day), frequency: frequency)
    }

    var index: ContactIndex {
        ContactIndex([
            entry("ana.silva@example.org", "Ana Silva", frequency: 5),
            entry("zoe@example.fr", "Zoë Durand", frequency: 3),
            entry("muller@example.de", "Jörg Müller", frequency: 2),
            entry("john.smith@corp.example", nil, frequency: 9),
            entry("o.brien@example.ie", "Seán O'Brien", frequency: 1)
        ])
    }

    func addresses(_ query: String, limit: Int = 10) -> [String] { index.suggestions(for: query, limit: limit).map(\.address) }

    @Test func startOfAnyWordOfTheName() {
        #expect(addresses("silva") == ["ana.silva@example.org"])
        #expect(addresses("Sil") == ["ana.silva@example.org"])
        #expect(addresses("ilva").isEmpty)
        #expect(addresses("ana s") == ["ana.silva@example.org"])
        #expect(addresses("  ana   silva ") == ["ana.silva@example.org"])
        #expect(addresses("brien") == ["o.brien@example.ie"])
    }

    @Test func startOfAnyWordOfTheAddress() {
        #expect(addresses("smi") == ["john.smith@corp.example"])
        #expect(addresses("corp") == ["john.smith@corp.example"])
        #expect(addresses("john.sm") == ["john.smith@corp.example"])
        #expect(addresses("ohn").isEmpty)
        #expect(addresses("example.de") == ["muller@example.de"])
    }

    @Test func caseAndAccentsAreIgnored() {
        #expect(addresses("ZOE") == ["zoe@example.fr"])
        #expect(addresses("zoë") == ["zoe@example.fr"])
        #expect(addresses("joerg").isEmpty)
        #expect(addresses("jorg muller") == ["muller@example.de"])
        #expect(addresses("MÜLL") == ["muller@example.de"])
        #expect(addresses("sean") == ["o.brien@example.ie"])
    }

    @Test func rankedByFrequencyThenRecency() {
        let index = ContactIndex([
            entry("old@example.org", "Sam Old", frequency: 4, daysAgo: 30),
            entry("new@example.org", "Sam New", frequency: 4, daysAgo: 1),
            entry("often@example.org", "Sam Often", frequency: 40, daysAgo: 300),
            entry("once@example.org", "Sam Once", frequency: 1)
        ])
        #expect(index.suggestions(for: "sam").map(\.address) == ["often@example.org", "new@example.org", "old@example.org", "once@example.org"])
        #expect(index.suggestions(for: "sam", limit: 2).map(\.address) == ["often@example.org", "new@example.org"])
        #expect(index.suggestions(for: "example", limit: 3).map(\.address) == ["often@example.org", "new@example.org", "old@example.org"])
    }

    /// In any order of the rows: the newest name seen (a row without one does not count), the
    /// highest frequency, the latest date.
    @Test(arguments: [[0, 1, 2], [2, 1, 0], [2, 0, 1], [1, 2, 0]])
    func mergedAcrossAccounts(order: [Int]) {
        let entries = [
            entry("ana@example.org", "Ana (old name)", account: "work", frequency: 7, daysAgo: 10),
            entry("ANA@example.org", "Ana Silva", account: "home", frequency: 3, daysAgo: 1),
            entry("ana@example.org", nil, account: "third", frequency: 1, daysAgo: 0)
        ]
        let index = ContactIndex(order.map { entries[$0] })
        #expect(
            index.suggestions(for: "ana") == [
                ContactSuggestion(
                    address: "ana@example.org", name: "Ana Silva", frequency: 7,
                    lastSeenDate: Date(timeIntervalSince1970: 1_700_000_000))
            ])
        #expect(index.suggestions(for: "old").isEmpty)
        #expect(index.contacts.count == 1)
    }

    @Test func eachContactOnceEvenWhenSeveralWordsMatch() {
        let index = ContactIndex([entry("sam.sam@sam.example", "Sam Sam", frequency: 2), entry("samuel@example.org", "Samuel", frequency: 1)])
        #expect(index.suggestions(for: "sam").map(\.address) == ["sam.sam@sam.example", "samuel@example.org"])
    }

    @Test func emptyQueriesAndLimitsGiveNothing() {
        #expect(addresses("").isEmpty)
        #expect(addresses("   ").isEmpty)
        #expect(addresses("a", limit: 0).isEmpty)
        #expect(ContactIndex([]).suggestions(for: "a").isEmpty)
    }

    @Test func useCaseReadsTheStore() async throws {
        struct Store: ContactStore {
            let entries: [ContactCacheEntry]
            func allContacts() async throws -> [ContactCacheEntry] { entries }
        }
        let useCase = ContactsAutocompleteUseCase(store: Store(entries: [entry("ana@example.org", "Ana")]))
        #expect(try await useCase.suggestions(for: "an").map(\.address) == ["ana@example.org"])
    }
}
