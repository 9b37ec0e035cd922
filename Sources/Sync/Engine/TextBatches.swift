import MIME
import TernCore

/// Issue 38: the messages whose texts are fetched and stored together are bounded by the bytes of
/// those texts as well as by their number. A batch of 250 newsletters is tens of MB of HTML (and its
/// decoded text, and the text extracted for search), and one batch is written while the next is
/// fetched, so two were held at once: the sync's peak memory grew with the size of the mail, not the
/// size of the batch. BODYSTRUCTURE, fetched with the headers, gives each text part's size before
/// its text is asked for.
enum TextBatches {
    /// At most this many bytes of text parts (as BODYSTRUCTURE counts them: still transfer-encoded)
    /// in one batch whose texts are fetched and stored together. Measured on the generated 20-year
    /// mailbox (BENCHMARKS.md, "Memory of a full sync bounded by bytes"): two such batches alive at
    /// once stay within a few MB of the sync's base, and a batch is still large enough that the
    /// extra round trips and transactions cost nothing measurable.
    static let maximumBytes = 4 * 1024 * 1024

    /// Consecutive runs of the messages whose text sizes are `sizes` (in the order they are stored),
    /// each of at most `count` messages and at most `bytes` bytes of text; a message larger than
    /// `bytes` is a run of its own. Every message is in exactly one run, in order.
    static func runs(_ sizes: [Int], count: Int, bytes: Int) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start = 0
        var total = 0
        for (index, size) in sizes.enumerated() {
            let size = max(0, size)
            if index > start, index - start >= count || total > bytes - size {
                runs.append(start..<index)
                start = index
                total = 0
            }
            total += size
        }
        if start < sizes.count { runs.append(start..<sizes.count) }
        return runs
    }
}

extension PlannedBody {
    /// The bytes of the text parts to fetch, as BODYSTRUCTURE gives them.
    var textBytes: Int {
        let wanted = Set(plan.plainPartIds + plan.htmlPartIds)
        var counted: Set<String> = []
        var total = 0
        for part in structure.flattened() where wanted.contains(part.partId) && counted.insert(part.partId).inserted {
            total += max(0, part.sizeBytes)
        }
        return total
    }
}

/// One batch's messages as their headers came, before any text is fetched.
struct HeaderBatch {
    var messages: [IncomingMessage] = []
    /// The text parts to fetch, by index in `messages`.
    var planned: [Int: PlannedBody] = [:]
    /// Each message's part structure, by index in `messages`.
    var structures: [MIMEPart?] = []

    /// A run of messages fetched and stored together, and the cursor its write moves to: the UID
    /// up to which (forward) or down to which (backfill) the batch is then stored.
    struct Run: Equatable {
        var indices: [Int]
        var bound: Int64?
        var isLast: Bool
    }

    /// The runs of this batch in the order they are stored (ascending UIDs forward, descending
    /// backfill, so each write moves its cursor one way only), each bounded by `TextBatches`; the
    /// messages of one run in the order the server sent them. The last run's bound is the slice's
    /// end, past UIDs the server did not answer for; an empty batch is one empty run that moves
    /// the cursor over the whole slice.
    func runs(
        cursor: FolderSynchronizer.Cursor, slice: ArraySlice<Int64>, count: Int = AccountSynchronizer.batchSize,
        bytes: Int = TextBatches.maximumBytes
    ) -> [Run] {
        let end = cursor == .forward ? slice.last : slice.first
        guard !messages.isEmpty else { return [Run(indices: [], bound: end, isLast: true)] }
        let ordered = messages.indices.sorted { cursor == .forward ? messages[$0].uid < messages[$1].uid : messages[$0].uid > messages[$1].uid }
        let ranges = TextBatches.runs(ordered.map { planned[$0]?.textBytes ?? 0 }, count: count, bytes: bytes)
        return ranges.enumerated().map { number, range in
            let isLast = number == ranges.count - 1
            return Run(indices: ordered[range].sorted(), bound: isLast ? end : messages[ordered[range.upperBound - 1]].uid, isLast: isLast)
        }
    }
}
