import Foundation

/// The contact cache the sync fills (FR-COMP-04: From, To and Cc of synced mail, per account).
public protocol ContactStore: Sendable {
    func allContacts() async throws -> [ContactCacheEntry]
}

/// One autocomplete suggestion: an address merged across accounts.
public struct ContactSuggestion: Sendable, Hashable, Codable {
    public var address: String
    /// The display name seen most recently, in any account.
    public var name: String?
    /// The highest frequency of any account.
    public var frequency: Int
    public var lastSeenDate: Date

    public init(address: String, name: String?, frequency: Int, lastSeenDate: Date) {
        self.address = address
        self.name = name
        self.frequency = frequency
        self.lastSeenDate = lastSeenDate
    }
}

/// FR-COMP-04, NFR-COMP-02: recipient autocomplete from local data only. The front end builds an
/// index when the composer opens (`index()`) and asks it at every keystroke; `suggestions` does
/// both for one-off callers (`tern contacts`).
public struct ContactsAutocompleteUseCase: Sendable {
    public static let defaultLimit = 10

    let store: any ContactStore

    public init(store: any ContactStore) {
        self.store = store
    }

    public func index() async throws -> ContactIndex {
        ContactIndex(try await store.allContacts())
    }

    public func suggestions(for query: String, limit: Int = defaultLimit) async throws -> [ContactSuggestion] {
        try await index().suggestions(for: query, limit: limit)
    }
}

/// The contacts of every account, merged by address (FR-COMP-04: the most recent display name,
/// the highest frequency) and searchable by the start of any word of the name or the address,
/// ignoring case and accents.
///
/// Every word start of a folded name or address is a key running to the end of that field, and
/// the keys are sorted: a query is a binary search for its folded text and a walk over the keys it
/// starts, so a keystroke costs the matches, not the cache (BENCHMARKS.md, `tern-bench autocomplete`).
/// Contacts are numbered in rank order (frequency, then recency), so ranking the matches is
/// keeping the `limit` smallest numbers.
public struct ContactIndex: Sendable {
    /// In rank order: the best first.
    public let contacts: [ContactSuggestion]
    /// Folded names and addresses, one after another.
    let text: [UInt8]
    /// (rank, start, end) of each key in `text`, sorted by the key's bytes.
    let keys: [Key]

    struct Key: Sendable {
        var contact: Int32
        var start: Int32
        var end: Int32
    }

    public init(_ entries: [ContactCacheEntry]) {
        var merged: [String: (contact: ContactSuggestion, nameSeen: Date)] = [:]
        for entry in entries {
            let address = entry.emailAddress.lowercased()
            let nameSeen = entry.displayName == nil ? Date.distantPast : entry.lastSeenDate
            guard var existing = merged[address] else {
                merged[address] = (
                    ContactSuggestion(
                        address: address, name: entry.displayName, frequency: entry.frequency,
                        lastSeenDate: entry.lastSeenDate), nameSeen
                )
                continue
            }
            existing.contact.frequency = max(existing.contact.frequency, entry.frequency)
            existing.contact.lastSeenDate = max(existing.contact.lastSeenDate, entry.lastSeenDate)
            if let name = entry.displayName, nameSeen > existing.nameSeen {
                existing.contact.name = name
                existing.nameSeen = nameSeen
            }
            merged[address] = existing
        }
        let ranked = merged.values.map(\.contact).sorted {
            ($0.frequency, $0.lastSeenDate, $1.address) > ($1.frequency, $1.lastSeenDate, $0.address)
        }
        var text: [UInt8] = []
        var keys: [Key] = []
        for (rank, contact) in ranked.enumerated() {
            for field in [contact.name ?? "", contact.address] where !field.isEmpty {
                let start = text.count
                text.append(contentsOf: Self.fold(field))
                var previousIsSeparator = true
                for position in start..<text.count {
                    let isSeparator = Self.isSeparator(text[position])
                    if previousIsSeparator && !isSeparator {
                        keys.append(Key(contact: Int32(rank), start: Int32(position), end: Int32(text.count)))
                    }
                    previousIsSeparator = isSeparator
                }
            }
        }
        text.withUnsafeBufferPointer { buffer in
            keys.sort { Self.compare(buffer, $0, $1) < 0 }
        }
        self.contacts = ranked
        self.text = text
        self.keys = keys
    }

    /// The best `limit` contacts with a word of the name or address starting with `query`.
    public func suggestions(for query: String, limit: Int = ContactsAutocompleteUseCase.defaultLimit) -> [ContactSuggestion] {
        let needle = Self.fold(query)
        guard !needle.isEmpty, limit > 0 else { return [] }
        var best: [Int32] = [] // ranks, ascending
        text.withUnsafeBufferPointer { buffer in
            var low = 0
            var high = keys.count
            while low < high {
                let middle = (low + high) / 2
                if Self.comparePrefix(buffer, keys[middle], needle) < 0 { low = middle + 1 } else { high = middle }
            }
            var index = low
            while index < keys.count, Self.comparePrefix(buffer, keys[index], needle) == 0 {
                let rank = keys[index].contact
                index += 1
                if best.count == limit, let worst = best.last, rank >= worst { continue }
                let position = best.firstIndex { $0 >= rank } ?? best.count
                if position < best.count, best[position] == rank { continue }
                best.insert(rank, at: position)
                if best.count > limit { best.removeLast() }
            }
        }
        return best.map { contacts[Int($0)] }
    }

    /// Lowercased, accents removed, runs of whitespace as one space, trimmed; UTF-8.
    static func fold(_ text: String) -> [UInt8] {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil).lowercased()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(folded.utf8.count)
        var pendingSpace = false
        for byte in folded.utf8 {
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                pendingSpace = !bytes.isEmpty
                continue
            }
            if pendingSpace { bytes.append(0x20) }
            pendingSpace = false
            bytes.append(byte)
        }
        return bytes
    }

    /// ASCII other than letters and digits separates words (space, `.`, `@`, `-`, `_`, `+`, quotes…);
    /// non-ASCII bytes are letters.
    static func isSeparator(_ byte: UInt8) -> Bool {
        guard byte < 0x80 else { return false }
        return !((byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A))
    }

    static func compare(_ text: UnsafeBufferPointer<UInt8>, _ left: Key, _ right: Key) -> Int {
        let leftCount = Int(left.end - left.start)
        let rightCount = Int(right.end - right.start)
        let common = min(leftCount, rightCount)
        if common > 0, let base = text.baseAddress {
            let order = memcmp(base + Int(left.start), base + Int(right.start), common)
            if order != 0 { return Int(order) }
        }
        return leftCount - rightCount
    }

    /// The key's first `needle.count` bytes against the needle: 0 when the key starts with it.
    static func comparePrefix(_ text: UnsafeBufferPointer<UInt8>, _ key: Key, _ needle: [UInt8]) -> Int {
        let keyCount = Int(key.end - key.start)
        let common = min(keyCount, needle.count)
        if common > 0, let base = text.baseAddress {
            let order = needle.withUnsafeBufferPointer { memcmp(base + Int(key.start), $0.baseAddress!, common) }
            if order != 0 { return Int(order) }
        }
        return keyCount < needle.count ? -1 : 0
    }
}
