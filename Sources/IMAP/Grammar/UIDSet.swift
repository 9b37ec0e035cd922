/// A set of UIDs or sequence numbers as IMAP writes them: `1:5,7,10:*` (RFC 9051 section 9, sequence-set).
///
/// Held as ranges, never as members: a server's `1:4294967294` (COPYUID, APPENDUID, VANISHED) is one
/// range, not four billion numbers (issue 21). Building a set sorts and merges once, O(n log n) in
/// the number of ranges; lookups are binary searches.
public struct UIDSet: Sendable, Hashable, CustomStringConvertible {
    /// Closed ranges, sorted and merged; `UInt32.max` stands for `*`.
    public private(set) var ranges: [ClosedRange<UInt32>]

    public init(_ ranges: [ClosedRange<UInt32>] = []) {
        self.ranges = Self.sortedAndMerged(ranges)
    }

    public init<S: Sequence>(uids: S) where S.Element == UInt32 {
        var sorted = Array(uids)
        sorted.sort()
        var merged: [ClosedRange<UInt32>] = []
        var index = 0
        while index < sorted.count {
            let lower = sorted[index]
            var upper = lower
            index += 1
            // Repeats and neighbours join the run (compared in 64 bits: `*` is UInt32.max).
            while index < sorted.count, UInt64(sorted[index]) <= UInt64(upper) + 1 {
                upper = sorted[index]
                index += 1
            }
            merged.append(lower...upper)
        }
        ranges = merged
    }

    /// Ranges in any order, overlapping or not, as the sorted disjoint ranges they cover; ranges
    /// that touch (`1:3,4:5`) become one, so equal sets are equal values.
    static func sortedAndMerged(_ input: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        guard input.count > 1 else { return input }
        // Sorted as plain integers (lower bound, then upper), the cheapest sort in any build.
        var keys = input.map { UInt64($0.lowerBound) << 32 | UInt64($0.upperBound) }
        keys.sort()
        var merged: [ClosedRange<UInt32>] = []
        merged.reserveCapacity(keys.count)
        for key in keys {
            let lower = UInt32(truncatingIfNeeded: key >> 32)
            let upper = UInt32(truncatingIfNeeded: key)
            // Compared in 64 bits: `*` is UInt32.max.
            if let last = merged.last, UInt64(lower) <= UInt64(last.upperBound) + 1 {
                if upper > last.upperBound { merged[merged.count - 1] = last.lowerBound...upper }
            } else {
                merged.append(lower...upper)
            }
        }
        return merged
    }

    /// The index of the first range whose upper bound is at least `uid`.
    private func firstRange(endingAtOrAfter uid: UInt32) -> Int {
        ranges.partitioningIndex { $0.upperBound >= uid }
    }

    public mutating func insert(_ range: ClosedRange<UInt32>) {
        // The ranges that overlap or touch `range` are consecutive: replace them by their union.
        let start = range.lowerBound == 0 ? 0 : firstRange(endingAtOrAfter: range.lowerBound - 1)
        var end = start
        var merged = range
        while end < ranges.count, UInt64(ranges[end].lowerBound) <= UInt64(range.upperBound) + 1 {
            merged = min(merged.lowerBound, ranges[end].lowerBound)...max(merged.upperBound, ranges[end].upperBound)
            end += 1
        }
        ranges.replaceSubrange(start..<end, with: [merged])
    }

    public mutating func formUnion(_ other: UIDSet) {
        guard !other.isEmpty else { return }
        ranges = Self.sortedAndMerged(ranges + other.ranges)
    }

    /// The members of both sets, in O(n + m) ranges.
    public func intersection(_ other: UIDSet) -> UIDSet {
        var result: [ClosedRange<UInt32>] = []
        var mine = 0
        var theirs = 0
        while mine < ranges.count, theirs < other.ranges.count {
            let a = ranges[mine]
            let b = other.ranges[theirs]
            let lower = max(a.lowerBound, b.lowerBound)
            let upper = min(a.upperBound, b.upperBound)
            if lower <= upper { result.append(lower...upper) }
            if a.upperBound < b.upperBound { mine += 1 } else { theirs += 1 }
        }
        var set = UIDSet()
        set.ranges = result
        return set
    }

    public var isEmpty: Bool { ranges.isEmpty }

    public func contains(_ uid: UInt32) -> Bool {
        let index = firstRange(endingAtOrAfter: uid)
        return index < ranges.count && ranges[index].lowerBound <= uid
    }

    /// The smallest member.
    public var first: UInt32? { ranges.first?.lowerBound }

    /// Every member: for sets whose size Tern chose, never for one a server sent (which may name
    /// four billion). `*` stands for itself once.
    public var uids: [UInt32] { ranges.flatMap { $0.upperBound == .max ? [$0.lowerBound] : Array($0) } }

    public var count: Int { ranges.reduce(0) { $0 + Int($1.upperBound - $1.lowerBound) + 1 } }

    public var description: String {
        ranges.map { range in
            let upper = range.upperBound == .max ? "*" : String(range.upperBound)
            return range.lowerBound == range.upperBound ? upper : "\(range.lowerBound):\(upper)"
        }.joined(separator: ",")
    }

    /// Parses `1:5,7,10:*`; nil when malformed.
    public init?(parsing text: String) {
        let bytes = Array(text.utf8)
        var index = 0
        guard let set = Self.parse(bytes, at: &index), index == bytes.count else { return nil }
        self = set
    }

    /// ```
    /// sequence-set = (seq-number / seq-range) ["," sequence-set]
    /// seq-range    = seq-number ":" seq-number
    /// seq-number   = nz-number / "*"
    /// ```
    /// Reads from `index` as far as the set goes, in one pass on bytes (a VANISHED response may hold
    /// hundreds of thousands of ranges); nil when no set starts there or one ends in the middle.
    /// Zero is tolerated, as before, for servers that send it.
    static func parse(_ bytes: [UInt8], at index: inout Int) -> UIDSet? {
        var ranges: [ClosedRange<UInt32>] = []
        var first: UInt32 = 0
        var inRange = false
        while true {
            var value: UInt64 = 0
            let start = index
            if index < bytes.count, bytes[index] == 42 { // *
                value = UInt64(UInt32.max)
                index += 1
            } else {
                while index < bytes.count, bytes[index] &- 48 < 10, index - start < 10 {
                    value = value &* 10 &+ UInt64(bytes[index] &- 48)
                    index += 1
                }
                guard index > start, value <= UInt64(UInt32.max) else { return nil }
            }
            let number = UInt32(value)
            let next: UInt8 = index < bytes.count ? bytes[index] : 0
            if next == 58, !inRange { // :
                first = number
                inRange = true
                index += 1
                continue
            }
            let lower = inRange ? first : number
            ranges.append(min(lower, number)...max(lower, number))
            inRange = false
            guard next == 44 else { break } // ,
            index += 1
        }
        return UIDSet(ranges)
    }
}

extension Array {
    /// The first index whose element satisfies `isAfter`, for a predicate that is false then true
    /// along the array (sorted data): a binary search.
    func partitioningIndex(where isAfter: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if isAfter(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
