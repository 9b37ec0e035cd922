/// A set of UIDs or sequence numbers as IMAP writes them: `1:5,7,10:*` (RFC 9051 section 9, sequence-set).
public struct UIDSet: Sendable, Hashable, CustomStringConvertible {
    /// Closed ranges, sorted and merged; `UInt32.max` stands for `*`.
    public private(set) var ranges: [ClosedRange<UInt32>]

    public init(_ ranges: [ClosedRange<UInt32>] = []) {
        self.ranges = []
        for range in ranges { insert(range) }
    }

    public init<S: Sequence>(uids: S) where S.Element == UInt32 {
        self.init(uids.map { $0...$0 })
    }

    public mutating func insert(_ range: ClosedRange<UInt32>) {
        var merged = range
        var kept: [ClosedRange<UInt32>] = []
        for existing in ranges {
            // Disjoint and not adjacent (compared in 64 bits: `*` is UInt32.max).
            if UInt64(existing.upperBound) + 1 < UInt64(merged.lowerBound) || UInt64(merged.upperBound) + 1 < UInt64(existing.lowerBound) {
                kept.append(existing)
            } else {
                merged = min(existing.lowerBound, merged.lowerBound)...max(existing.upperBound, merged.upperBound)
            }
        }
        kept.append(merged)
        ranges = kept.sorted { $0.lowerBound < $1.lowerBound }
    }

    public mutating func formUnion(_ other: UIDSet) {
        for range in other.ranges { insert(range) }
    }

    public var isEmpty: Bool { ranges.isEmpty }

    public func contains(_ uid: UInt32) -> Bool { ranges.contains { $0.contains(uid) } }

    /// Every UID, for sets without `*`.
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
        var ranges: [ClosedRange<UInt32>] = []
        for piece in text.split(separator: ",") {
            let bounds = piece.split(separator: ":", maxSplits: 1)
            func value(_ text: Substring) -> UInt32? { text == "*" ? .max : UInt32(text) }
            guard let first = bounds.first.flatMap(value) else { return nil }
            let second = bounds.count == 2 ? value(bounds[1]) : first
            guard let second else { return nil }
            ranges.append(min(first, second)...max(first, second))
        }
        guard !ranges.isEmpty else { return nil }
        self.init(ranges)
    }
}
