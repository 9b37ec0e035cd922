import Foundation
import IMAP

/// `tern-bench uidset`: what a hostile IMAP server's numbers cost the client (issue 21). A
/// 200,000-range VANISHED set parsed, the same number of UIDs made into a set in random order, a
/// COPYUID naming four billion UIDs asked for 1,000 of them, and `* 4294967295 EXISTS` with a FETCH
/// at that number through the connection's framing, parsing and sequence map.
public enum IMAPHostileInputBenchmark {
    public struct Report: Sendable, Codable {
        public var ranges: Int
        public var parseMilliseconds: Double
        public var buildMilliseconds: Double
        public var copyUIDLookupMicroseconds: Double
        public var hugeExistsResidentGrowthBytes: Int
    }

    public static func run(ranges: Int, iterations: Int) throws -> Report {
        let wire = Array(("* VANISHED " + stride(from: ranges * 2, to: 0, by: -2).map(String.init).joined(separator: ",") + "\r\n").utf8)
        let uids = Array(stride(from: UInt32(1), through: UInt32(ranges * 2), by: 2)).shuffled()
        let copy = try ResponseParser().parse(Array("t1 OK [COPYUID 9 1:4294967294 1:4294967294] moved\r\n".utf8))
        guard case .tagged(_, let state) = copy, let mapping = UIDMapping(state.code) else { preconditionFailure("COPYUID did not parse") }
        let wanted = (0..<1000).map { UInt32($0) * 4_000_000 + 1 }

        var parse = Double.infinity
        var build = Double.infinity
        var lookup = Double.infinity
        for _ in 0..<max(1, iterations) {
            parse = min(parse, try seconds { _ = try ResponseParser().parse(wire) })
            build = min(build, seconds { _ = UIDSet(uids: uids) })
            lookup = min(lookup, seconds { _ = mapping.destinations(of: wanted) })
        }
        let before = IMAPFetchBenchmark.currentResidentBytes()
        var stream = IMAPResponseStream()
        try stream.append(Array("* 4294967295 EXISTS\r\n* 4294967295 FETCH (UID 7 FLAGS ())\r\n* 1 EXPUNGE\r\n".utf8)[...]) { _ in }
        let growth = IMAPFetchBenchmark.currentResidentBytes() - before
        precondition(stream.messageCount == 4_294_967_294)
        return Report(
            ranges: ranges, parseMilliseconds: parse * 1000, buildMilliseconds: build * 1000,
            copyUIDLookupMicroseconds: lookup * 1_000_000, hugeExistsResidentGrowthBytes: max(0, growth))
    }

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let started = clock.now
        try body()
        let elapsed = clock.now - started
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
