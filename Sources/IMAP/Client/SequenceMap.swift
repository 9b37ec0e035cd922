/// Sequence numbers to UIDs for the selected mailbox (RFC 9051 section 2.3.1.2): EXPUNGE shifts
/// every later number down by one.
///
/// Sparse: only the pairs the server reported (FETCH with UID, `loadSequenceMap`) are held, and the
/// message count is a number, so memory follows the bytes received: a hostile `* 4294967295 EXISTS`,
/// in a SELECT or during IDLE, costs nothing (issue 21; a dense array took 16 GB).
///
/// Chunked, so an EXPUNGE costs O(log n + chunk size), not O(n) (issue 32: a server's 100,000
/// EXPUNGEs on a loaded mailbox took seconds). The sequence numbers from 1 are cut into runs, one
/// per chunk; a chunk holds its pairs by offset within its run, and a Fenwick tree sums the runs'
/// lengths, so finding a number's chunk is a descent of that tree. An EXPUNGE renumbers only the
/// pairs after it in its own chunk and shortens its run by one; every later chunk's numbers follow
/// without being touched. After the last chunk's run, up to `count`, no UID is known.
struct SequenceMap {
    struct Entry: Hashable {
        var sequence: UInt32
        var uid: UInt32
    }

    /// Pairs per chunk at the most: an EXPUNGE renumbers up to this many, and a chunk is split past it.
    static let chunkCapacity = 256

    private var chunks: [Chunk] = []
    /// The lengths of the chunks' runs.
    private var runs = RunLengths()
    /// The mailbox's message count, known UIDs or not.
    private(set) var count: UInt32 = 0

    /// Every known pair, ascending by sequence number: O(n), for tests and diagnostics.
    var entries: [Entry] {
        var entries: [Entry] = []
        var before: UInt32 = 0
        for chunk in chunks {
            entries += chunk.pairs.map { Entry(sequence: before + $0.offset, uid: $0.uid) }
            before += chunk.run
        }
        return entries
    }

    mutating func reset(count: UInt32) {
        chunks = []
        runs = RunLengths()
        self.count = count
    }

    mutating func resize(to count: UInt32) {
        if count < self.count, let (index, before) = runs.chunk(holding: Int(count) + 1) {
            let kept = UInt32(Int(count) - before)
            chunks[index].pairs.removeSubrange(chunks[index].pairs.partitioningIndex { $0.offset > kept }...)
            chunks[index].run = kept
            chunks.removeSubrange((chunks[index].pairs.isEmpty ? index : index + 1)...)
            runs = RunLengths(chunks)
        }
        self.count = count
    }

    mutating func set(uid: UInt32, at sequence: UInt32) {
        guard sequence >= 1 else { return }
        if sequence > count { count = sequence }
        if let (index, before) = runs.chunk(holding: Int(sequence)) {
            chunks[index].set(uid: uid, at: sequence - UInt32(before))
            if chunks[index].pairs.count > Self.chunkCapacity { split(index) }
            return
        }
        // Past every run: the last chunk's run reaches it, or a new chunk starts.
        let gap = sequence - UInt32(runs.total)
        if let last = chunks.indices.last, chunks[last].pairs.count < Self.chunkCapacity {
            chunks[last].run += gap
            chunks[last].pairs.append(Chunk.Pair(offset: chunks[last].run, uid: uid))
            runs.add(Int(gap), at: last)
        } else {
            chunks.append(Chunk(run: gap, pairs: [Chunk.Pair(offset: gap, uid: uid)]))
            runs.append(Int(gap))
        }
    }

    func uid(at sequence: UInt32) -> UInt32? {
        guard sequence >= 1, let (index, before) = runs.chunk(holding: Int(sequence)) else { return nil }
        let uid = chunks[index].uid(at: sequence - UInt32(before))
        return uid == 0 ? nil : uid
    }

    mutating func remove(at sequence: UInt32) -> UInt32? {
        guard sequence >= 1, sequence <= count else { return nil }
        count -= 1
        guard let (index, before) = runs.chunk(holding: Int(sequence)) else { return nil }
        let uid = chunks[index].remove(at: sequence - UInt32(before))
        runs.add(-1, at: index)
        joinIfSmall(index)
        return uid == 0 ? nil : uid
    }

    /// VANISHED: the known messages among `removed` go, and later numbers close up. A UID the map
    /// does not know cannot be placed, so it changes nothing (as before).
    mutating func remove(uids removed: UIDSet) {
        var kept: [Chunk] = []
        kept.reserveCapacity(chunks.count)
        var emptiedRun: UInt32 = 0
        for var chunk in chunks {
            count -= chunk.remove(uids: removed)
            if chunk.pairs.isEmpty {
                emptiedRun += chunk.run
                continue
            }
            // Emptied runs join the next chunk's; two small chunks become one.
            var joined = Chunk(run: 0, pairs: [])
            if let last = kept.last, last.pairs.count + chunk.pairs.count <= Self.chunkCapacity / 2 { joined = kept.removeLast() }
            joined.run += emptiedRun
            emptiedRun = 0
            joined.append(chunk)
            kept.append(joined)
        }
        chunks = kept
        runs = RunLengths(chunks)
    }

    /// What an untagged response says about the mailbox's messages (EXISTS, EXPUNGE, VANISHED, a
    /// FETCH with UID); returns the UID an EXPUNGE removed, when known.
    mutating func apply(_ response: UntaggedResponse) -> UInt32? {
        switch response {
        case .exists(let count):
            resize(to: count)
        case .expunge(let sequence):
            return remove(at: sequence)
        case .vanished(_, let uids):
            remove(uids: uids)
        case .fetch(let sequence, let attributes):
            for case .uid(let uid) in attributes { set(uid: uid, at: sequence) }
        default:
            break
        }
        return nil
    }

    /// The known UIDs among `uids`, without expanding it.
    func known(among uids: UIDSet) -> [UInt32] {
        chunks.flatMap { $0.pairs.compactMap { $0.uid != 0 && uids.contains($0.uid) ? $0.uid : nil } }
    }

    /// Halves a chunk that outgrew its capacity; the first half's run ends at its last pair.
    private mutating func split(_ index: Int) {
        let half = chunks[index].pairs.count / 2
        let firstRun = chunks[index].pairs[half - 1].offset
        let second = Chunk(
            run: chunks[index].run - firstRun,
            pairs: chunks[index].pairs[half...].map { Chunk.Pair(offset: $0.offset - firstRun, uid: $0.uid) })
        chunks[index].pairs.removeSubrange(half...)
        chunks[index].run = firstRun
        chunks.insert(second, at: index + 1)
        runs = RunLengths(chunks)
    }

    /// A chunk with few pairs left joins a neighbour that has room, so the number of chunks follows
    /// the number of known pairs; the only chunk, emptied, leaves its run to the count.
    private mutating func joinIfSmall(_ index: Int) {
        let pairs = chunks[index].pairs.count
        guard pairs < Self.chunkCapacity / 4 else { return }
        let first: Int
        if index + 1 < chunks.count, pairs + chunks[index + 1].pairs.count <= Self.chunkCapacity {
            first = index
        } else if index > 0, pairs + chunks[index - 1].pairs.count <= Self.chunkCapacity {
            first = index - 1
        } else {
            if pairs == 0 {
                chunks.removeLast()
                runs = RunLengths(chunks)
            }
            return
        }
        chunks[first].append(chunks.remove(at: first + 1))
        runs = RunLengths(chunks)
    }
}

extension SequenceMap {
    /// A run of consecutive sequence numbers and the pairs known in it.
    private struct Chunk {
        struct Pair {
            /// 1 for the run's first sequence number.
            var offset: UInt32
            var uid: UInt32
        }

        /// How many sequence numbers the chunk covers, from just after the previous chunk's.
        var run: UInt32
        /// Ascending by offset, each within 1...run.
        var pairs: [Pair]

        mutating func set(uid: UInt32, at offset: UInt32) {
            let index = pairs.partitioningIndex { $0.offset >= offset }
            if index < pairs.count, pairs[index].offset == offset {
                pairs[index].uid = uid
            } else {
                pairs.insert(Pair(offset: offset, uid: uid), at: index)
            }
        }

        func uid(at offset: UInt32) -> UInt32? {
            let index = pairs.partitioningIndex { $0.offset >= offset }
            return index < pairs.count && pairs[index].offset == offset ? pairs[index].uid : nil
        }

        /// EXPUNGE inside the run: the pair there goes (its UID is returned), later ones move down.
        mutating func remove(at offset: UInt32) -> UInt32? {
            var index = pairs.partitioningIndex { $0.offset >= offset }
            var uid: UInt32?
            if index < pairs.count, pairs[index].offset == offset { uid = pairs.remove(at: index).uid }
            while index < pairs.count {
                pairs[index].offset -= 1
                index += 1
            }
            run -= 1
            return uid
        }

        /// VANISHED inside the run; returns how many pairs went.
        mutating func remove(uids removed: UIDSet) -> UInt32 {
            var kept = 0
            var gone: UInt32 = 0
            for pair in pairs {
                if pair.uid != 0, removed.contains(pair.uid) {
                    gone += 1
                } else {
                    pairs[kept] = Pair(offset: pair.offset - gone, uid: pair.uid)
                    kept += 1
                }
            }
            pairs.removeSubrange(kept...)
            run -= gone
            return gone
        }

        /// The next chunk's run and pairs, after this one's.
        mutating func append(_ next: Chunk) {
            pairs += next.pairs.map { Pair(offset: run + $0.offset, uid: $0.uid) }
            run += next.run
        }
    }

    /// The chunks' run lengths in a Fenwick tree (binary indexed tree): a prefix sum, a change and
    /// the search for the chunk holding a sequence number each cost O(log chunks).
    private struct RunLengths {
        /// 1-based: `tree[i]` sums the runs of chunks i - (i & -i) ..< i (0-based); `tree[0]` is unused.
        private var tree: [Int] = [0]
        private(set) var total = 0

        init() {}

        /// O(chunks), for a change in the chunks themselves.
        init(_ chunks: [Chunk]) {
            tree = [0] + chunks.map { Int($0.run) }
            for index in tree.indices.dropFirst() {
                let parent = index + (index & -index)
                if parent < tree.count { tree[parent] += tree[index] }
            }
            total = chunks.reduce(0) { $0 + Int($1.run) }
        }

        /// The chunk's run (0-based index) changed by `delta`.
        mutating func add(_ delta: Int, at chunk: Int) {
            var index = chunk + 1
            while index < tree.count {
                tree[index] += delta
                index += index & -index
            }
            total += delta
        }

        /// A new last chunk.
        mutating func append(_ run: Int) {
            let index = tree.count
            // tree[index] covers the chunks from index - lowest bit; all but the new one are summed already.
            tree.append(run + prefix(index - 1) - prefix(index - (index & -index)))
            total += run
        }

        /// The runs of the first `chunks` chunks.
        private func prefix(_ chunks: Int) -> Int {
            var sum = 0
            var index = chunks
            while index > 0 {
                sum += tree[index]
                index -= index & -index
            }
            return sum
        }

        /// The chunk whose run holds `sequence` and how many sequence numbers come before that
        /// chunk, or nil past the last run.
        func chunk(holding sequence: Int) -> (index: Int, before: Int)? {
            guard sequence >= 1, sequence <= total else { return nil }
            var index = 0
            var remaining = sequence
            var step = 1
            while step * 2 < tree.count { step *= 2 }
            while step > 0 {
                if index + step < tree.count, tree[index + step] < remaining {
                    index += step
                    remaining -= tree[index]
                }
                step /= 2
            }
            return (index, sequence - remaining)
        }
    }
}
