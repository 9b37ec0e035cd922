import Testing

@testable import IMAP

/// Issue 32: the sparse sequence map, whose representation changed so an EXPUNGE storm costs
/// O(n log n), still answers as the plain dense array it stands for: RFC 9051 section 7.5.1's
/// renumbering after each EXPUNGE, VANISHED by UID, EXISTS growing or shrinking the mailbox.
@Suite(.timeLimit(.minutes(1)))
struct SequenceMapTests {
    /// The map as the obvious array: index = sequence number - 1, `nil` where no UID is known.
    struct ReferenceMap {
        var uids: [UInt32?] = []

        mutating func reset(count: UInt32) { uids = Array(repeating: nil, count: Int(count)) }

        mutating func resize(to count: UInt32) {
            if Int(count) < uids.count {
                uids.removeSubrange(Int(count)...)
            } else {
                uids += Array(repeating: nil, count: Int(count) - uids.count)
            }
        }

        mutating func set(uid: UInt32, at sequence: UInt32) {
            guard sequence >= 1 else { return }
            if Int(sequence) > uids.count { resize(to: sequence) }
            uids[Int(sequence) - 1] = uid
        }

        func uid(at sequence: UInt32) -> UInt32? {
            guard sequence >= 1, Int(sequence) <= uids.count, let uid = uids[Int(sequence) - 1], uid != 0 else { return nil }
            return uid
        }

        mutating func remove(at sequence: UInt32) -> UInt32? {
            guard sequence >= 1, Int(sequence) <= uids.count else { return nil }
            let uid = uids.remove(at: Int(sequence) - 1)
            return uid == 0 ? nil : uid
        }

        mutating func remove(uids removed: UIDSet) {
            uids.removeAll { $0.map { $0 != 0 && removed.contains($0) } ?? false }
        }

        var entries: [SequenceMap.Entry] {
            uids.enumerated().compactMap { index, uid in uid.map { SequenceMap.Entry(sequence: UInt32(index + 1), uid: $0) } }
        }
    }

    /// A seeded generator (a 64-bit LCG with the high bits taken), so a failure replays.
    struct SeededNumbers: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state ^ (state >> 29)
        }
    }

    static func expectSame(_ map: SequenceMap, _ reference: ReferenceMap, _ note: String) {
        #expect(map.count == UInt32(reference.uids.count), "\(note)")
        #expect(map.entries == reference.entries, "\(note)")
    }

    /// Random operations, weighted towards EXPUNGE and FETCH, on mailboxes large enough to fill,
    /// split and join many chunks; a copy taken now and then must not see later changes.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func randomOperationsMatchTheDenseArray(seed: UInt64) {
        var numbers = SeededNumbers(state: seed)
        var map = SequenceMap()
        var reference = ReferenceMap()
        var copies: [(SequenceMap, ReferenceMap)] = []
        let largest = UInt32(seed % 2 == 0 ? 3_000 : 300)
        for step in 0..<12_000 {
            let count = UInt32(reference.uids.count)
            let sequence = UInt32.random(in: 0...count + 3, using: &numbers)
            let note = "seed \(seed), step \(step), sequence \(sequence), count \(count)"
            switch Int.random(in: 0..<100, using: &numbers) {
            case 0..<40:
                #expect(map.remove(at: sequence) == reference.remove(at: sequence), "remove: \(note)")
            case 40..<70:
                let uid = UInt32.random(in: 0...50_000, using: &numbers)
                map.set(uid: uid, at: sequence)
                reference.set(uid: uid, at: sequence)
            case 70..<80:
                // A dense run, as loadSequenceMap and a FETCH of a range leave.
                let start = UInt32.random(in: 1...count + 1, using: &numbers)
                for offset in 0..<UInt32.random(in: 1...600, using: &numbers) {
                    map.set(uid: 100_000 + start + offset, at: start + offset)
                    reference.set(uid: 100_000 + start + offset, at: start + offset)
                }
            case 80..<85:
                // EXISTS: mostly growth, sometimes a shrink below known pairs.
                let size =
                    Int.random(in: 0..<4, using: &numbers) == 0
                    ? UInt32.random(in: 0...count, using: &numbers)
                    : min(largest, count + UInt32.random(in: 0...200, using: &numbers))
                _ = map.apply(.exists(size))
                reference.resize(to: size)
            case 85..<87:
                let lower = UInt32.random(in: 1...100_000 + largest, using: &numbers)
                let vanished = UIDSet([lower...lower + UInt32.random(in: 0...5_000, using: &numbers)])
                map.remove(uids: vanished)
                reference.remove(uids: vanished)
            case 87..<88:
                if Int.random(in: 0..<10, using: &numbers) == 0 {
                    let size = UInt32.random(in: 0...largest, using: &numbers)
                    map.reset(count: size)
                    reference.reset(count: size)
                }
            case 88..<90:
                copies.append((map, reference))
            default:
                #expect(map.uid(at: sequence) == reference.uid(at: sequence), "uid: \(note)")
            }
            if reference.uids.count > Int(largest) * 2 {
                map.resize(to: largest)
                reference.resize(to: largest)
            }
            #expect(map.count == UInt32(reference.uids.count), "\(note)")
            if step % 251 == 0 { Self.expectSame(map, reference, note) }
        }
        Self.expectSame(map, reference, "seed \(seed), end")
        for (index, (copy, copied)) in copies.enumerated() { Self.expectSame(copy, copied, "seed \(seed), copy \(index)") }
    }

    @Test func anExpungeStormFromTheFrontReturnsEveryUIDInOrder() {
        var map = SequenceMap()
        map.reset(count: 5_000)
        for sequence in 1...UInt32(5_000) { map.set(uid: sequence * 2, at: sequence) }
        var gone: [UInt32] = []
        while map.count > 0 { gone.append(map.apply(.expunge(sequence: 1)) ?? 0) }
        #expect(gone == (1...UInt32(5_000)).map { $0 * 2 })
        #expect(map.entries.isEmpty && map.remove(at: 1) == nil && map.count == 0)
    }

    @Test func anExpungeStormFromTheBackEmptiesTheMap() {
        var map = SequenceMap()
        for sequence in 1...UInt32(2_000) { map.set(uid: sequence + 7, at: sequence) }
        for sequence in stride(from: UInt32(2_000), through: 1, by: -1) { #expect(map.remove(at: sequence) == sequence + 7) }
        #expect(map.entries.isEmpty && map.count == 0)
    }

    @Test func removingPastTheCountOrAtZeroChangesNothing() {
        var map = SequenceMap()
        map.reset(count: 3)
        map.set(uid: 30, at: 3)
        #expect(map.remove(at: 4) == nil && map.remove(at: 0) == nil && map.remove(at: .max) == nil)
        #expect(map.count == 3 && map.uid(at: 3) == 30 && map.uid(at: 0) == nil)
    }

    @Test func removingAnUnknownMessageRenumbersTheKnownOnesAfterIt() {
        var map = SequenceMap()
        map.reset(count: 10)
        map.set(uid: 20, at: 2)
        map.set(uid: 90, at: 9)
        #expect(map.remove(at: 5) == nil)
        #expect(map.entries == [.init(sequence: 2, uid: 20), .init(sequence: 8, uid: 90)] && map.count == 9)
        #expect(map.remove(at: 9) == nil && map.count == 8) // after every known pair: only the count
        #expect(map.uid(at: 8) == 90)
    }

    @Test func settingBeyondTheCountRaisesIt() {
        var map = SequenceMap()
        map.set(uid: 7, at: 0) // no message 0
        #expect(map.count == 0 && map.entries.isEmpty)
        map.set(uid: 50, at: 5)
        #expect(map.count == 5 && map.uid(at: 5) == 50 && map.uid(at: 4) == nil)
        map.set(uid: 51, at: 5)
        #expect(map.uid(at: 5) == 51 && map.entries.count == 1)
        map.set(uid: 0, at: 6) // a UID of 0 is held but never told
        #expect(map.count == 6 && map.uid(at: 6) == nil && map.remove(at: 6) == nil && map.count == 5)
    }

    @Test func resizingDownDropsThePairsAboveAndUpKeepsThem() {
        var map = SequenceMap()
        for sequence in 1...UInt32(1_000) { map.set(uid: sequence, at: sequence) }
        map.resize(to: 2_000)
        #expect(map.count == 2_000 && map.entries.count == 1_000 && map.uid(at: 1_000) == 1_000)
        map.resize(to: 600)
        #expect(map.count == 600 && map.entries.count == 600 && map.uid(at: 600) == 600 && map.uid(at: 601) == nil)
        map.set(uid: 9, at: 700)
        #expect(map.uid(at: 700) == 9 && map.uid(at: 650) == nil)
        map.resize(to: 0)
        #expect(map.count == 0 && map.entries.isEmpty)
        map.set(uid: 1, at: 1)
        #expect(map.entries == [.init(sequence: 1, uid: 1)])
    }

    @Test func resetForgetsEveryPair() {
        var map = SequenceMap()
        for sequence in 1...UInt32(700) { map.set(uid: sequence, at: sequence) }
        map.reset(count: 900)
        #expect(map.count == 900 && map.entries.isEmpty && map.uid(at: 1) == nil)
        #expect(map.remove(at: 1) == nil && map.count == 899)
    }

    /// `expungeCollecting` works on a copy of the session's map.
    @Test func copiesAreIndependent() {
        var map = SequenceMap()
        for sequence in 1...UInt32(1_000) { map.set(uid: sequence, at: sequence) }
        var copy = map
        #expect(copy.remove(at: 1) == 1 && copy.remove(at: 500) == 501)
        map.set(uid: 5, at: 2_000)
        #expect(map.count == 2_000 && map.uid(at: 1) == 1 && map.uid(at: 500) == 500)
        #expect(copy.count == 998 && copy.uid(at: 1) == 2 && copy.uid(at: 500) == 502 && copy.uid(at: 2_000) == nil)
    }

    /// Issue 21's huge EXISTS with a few pairs known stays a few pairs, and EXPUNGE still renumbers.
    @Test func aHugeMailboxWithAFewKnownPairs() {
        var map = SequenceMap()
        map.reset(count: .max)
        map.set(uid: 7, at: .max)
        map.set(uid: 3, at: 2_000_000_000)
        #expect(map.remove(at: 1) == nil && map.count == .max - 1)
        #expect(map.uid(at: .max - 1) == 7 && map.uid(at: 1_999_999_999) == 3 && map.entries.count == 2)
        #expect(map.known(among: UIDSet([1...5])) == [3])
        map.remove(uids: UIDSet([3...3]))
        #expect(map.uid(at: .max - 2) == 7 && map.count == .max - 2 && map.entries.count == 1)
    }
}
