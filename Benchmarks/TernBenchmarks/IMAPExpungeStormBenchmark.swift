import IMAP

/// `tern-bench expunge-storm`: what a server's EXPUNGE storm costs the client (issue 32). A mailbox
/// of `messages` messages with every UID known (as `loadSequenceMap` leaves it), then as many
/// `* n EXPUNGE` lines through the connection's framing, parser and sequence map: all at sequence 1,
/// where each one renumbers every message left, and at seeded random positions. The peer is the
/// first storm into a map that knows no UID: what framing and parsing alone cost.
public enum IMAPExpungeStormBenchmark {
    public struct Report: Sendable, Codable {
        public var messages: Int
        /// Every EXPUNGE at sequence 1, every UID known.
        public var firstMilliseconds: Double
        /// EXPUNGEs at random sequence numbers, every UID known.
        public var randomMilliseconds: Double
        /// Every EXPUNGE at sequence 1, no UID known: the framing and parsing alone.
        public var unknownMilliseconds: Double
    }

    public static func run(messages: Int, iterations: Int, seed: UInt64 = 32) throws -> Report {
        precondition(messages >= 1)
        let exists = "* \(messages) EXISTS"
        let loaded = wire([exists] + (1...messages).map { "* \($0) FETCH (UID \($0 * 3))" })
        let atFirst = wire(Array(repeating: "* 1 EXPUNGE", count: messages))
        var random = SplitMix(seed: seed)
        let atRandom = wire((0..<messages).map { "* \(1 + random.next() % UInt64(messages - $0)) EXPUNGE" })

        var first = Double.infinity
        var scattered = Double.infinity
        var unknown = Double.infinity
        for _ in 0..<max(1, iterations) {
            first = min(first, try timeStorm(atFirst, after: loaded))
            scattered = min(scattered, try timeStorm(atRandom, after: loaded))
            unknown = min(unknown, try timeStorm(atFirst, after: wire([exists])))
        }
        return Report(
            messages: messages, firstMilliseconds: first * 1000, randomMilliseconds: scattered * 1000,
            unknownMilliseconds: unknown * 1000)
    }

    /// The seconds `storm` takes after `setup` (not timed); it must leave the mailbox empty.
    private static func timeStorm(_ storm: [UInt8], after setup: [UInt8]) throws -> Double {
        var stream = IMAPResponseStream()
        try feed(setup, to: &stream)
        let elapsed = try IMAPHostileInputBenchmark.seconds { try feed(storm, to: &stream) }
        precondition(stream.messageCount == 0, "the storm left \(stream.messageCount) messages")
        return elapsed
    }

    /// In 64 KB reads, as a connection delivers them.
    private static func feed(_ bytes: [UInt8], to stream: inout IMAPResponseStream) throws {
        for start in stride(from: 0, to: bytes.count, by: 65_536) {
            try stream.append(bytes[start..<min(bytes.count, start + 65_536)]) { _ in }
        }
    }

    private static func wire(_ lines: [String]) -> [UInt8] {
        Array(lines.map { $0 + "\r\n" }.joined().utf8)
    }
}
