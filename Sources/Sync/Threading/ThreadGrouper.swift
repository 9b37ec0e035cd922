import Foundation
import TernCore

/// FR-SYNC-06 in memory, for threading a whole mailbox at once (a rebuild, the benchmark): the rules of
/// `ThreadLinker` on a union-find forest. The sync engine threads into the store instead
/// (`SQLiteThreadNodes`), with the same rules.
public struct ThreadGrouper: Sendable {
    private var forest = Forest()

    public init() {}

    /// How many messages have been added.
    public var messageCount: Int { forest.nodeByEmail.count }

    /// Adds one message; returns its thread and the threads it merged into that one (a late parent
    /// joining conversations that arrived before it), as thread keys from before the call.
    @discardableResult
    public mutating func add(_ message: ThreadingHeaders) -> ThreadAssignment {
        let placeholder = message.messageID.flatMap { forest.nodeByID[$0] }
        let keyBefore = placeholder.flatMap { forest.keys[forest.find($0)] }
        forest.mergedKeys = []
        // The in-memory store cannot fail.
        guard let own = try? ThreadLinker.add(message, to: &forest) else { return ThreadAssignment(thread: nil, merged: []) }
        forest.nodeByEmail[message.emailID] = own
        let root = forest.find(own)
        forest.spans[root] = Forest.merge(forest.spans[root], Forest.Span(earliest: message.date, latest: message.date))
        forest.keys[root] = min(forest.keys[root] ?? message.emailID, message.emailID)
        var merged = forest.mergedKeys
        // The original of replies already stored takes over their thread's key.
        if let keyBefore, keyBefore != forest.keys[root], !merged.contains(keyBefore) { merged.append(keyBefore) }
        let subject = SubjectNormalizer.normalize(message.subject)
        if !subject.isEmpty {
            let key = Forest.SubjectKey(accountID: message.accountID, subject: subject)
            var roots = forest.threadsBySubject[key, default: []]
            if !roots.contains(where: { forest.find($0) == root }) { roots.append(root) }
            forest.threadsBySubject[key] = roots
        }
        return ThreadAssignment(thread: forest.keys[root], merged: merged)
    }

    /// The thread of an added message: the lowest email id among its messages, stable until a merge.
    public func thread(of emailID: EmailID) -> EmailID? {
        guard let node = forest.nodeByEmail[emailID] else { return nil }
        return forest.keys[forest.find(node)]
    }

    /// Every thread as its messages' email ids, in no particular order.
    public func threads() -> [[EmailID]] {
        var groups: [Int32: [EmailID]] = [:]
        for (email, node) in forest.nodeByEmail { groups[forest.find(node), default: []].append(email) }
        return Array(groups.values)
    }
}

/// Where `ThreadGrouper.add` put a message.
public struct ThreadAssignment: Sendable, Hashable {
    /// The message's thread key after the add.
    public var thread: EmailID?
    /// Thread keys that no longer exist: their messages now belong to `thread`.
    public var merged: [EmailID]
}

/// Union by rank over an array; `find` stays logarithmic without path compression, so it needs no mutation.
private struct Forest: ThreadNodeStore, Sendable {
    struct Entry: Sendable {
        var component: Int32
        var rank: UInt8 = 0
        var hasParent = false
        var isPresent = false
    }

    struct SubjectKey: Hashable, Sendable {
        var accountID: Account.ID
        var subject: String
    }

    struct Span: Sendable {
        var earliest: Date
        var latest: Date
    }

    var entries: [Entry] = []
    var nodeByID: [String: Int32] = [:]
    var nodeByEmail: [EmailID: Int32] = [:]
    var threadsBySubject: [SubjectKey: [Int32]] = [:]
    var spans: [Int32: Span] = [:]
    /// Per root: the thread key, the lowest email id of its messages.
    var keys: [Int32: EmailID] = [:]
    /// Keys that disappeared in unions since the caller last cleared this.
    var mergedKeys: [EmailID] = []

    func existingNode(for messageID: String) -> Int32? { nodeByID[messageID] }

    mutating func createNode(for messageID: String?) -> Int32 {
        let index = Int32(entries.count)
        entries.append(Entry(component: index))
        if let messageID { nodeByID[messageID] = index }
        return index
    }

    func isPresent(_ node: Int32) -> Bool { entries[Int(node)].isPresent }
    func hasParent(_ node: Int32) -> Bool { entries[Int(node)].hasParent }
    mutating func markPresent(_ node: Int32) { entries[Int(node)].isPresent = true }
    mutating func markHasParent(_ node: Int32) { entries[Int(node)].hasParent = true }
    func component(of node: Int32) -> Int32 { find(node) }

    func find(_ node: Int32) -> Int32 {
        var current = node
        while entries[Int(current)].component != current { current = entries[Int(current)].component }
        return current
    }

    @discardableResult
    mutating func union(_ a: Int32, _ b: Int32) -> Int32 {
        let (rootA, rootB) = (find(a), find(b))
        guard rootA != rootB else { return rootA }
        let (keyA, keyB) = (keys[rootA], keys[rootB])
        let (keep, absorb) = entries[Int(rootA)].rank >= entries[Int(rootB)].rank ? (rootA, rootB) : (rootB, rootA)
        entries[Int(absorb)].component = keep
        if entries[Int(keep)].rank == entries[Int(absorb)].rank { entries[Int(keep)].rank += 1 }
        spans[keep] = Self.merge(spans[keep], spans[absorb])
        spans[absorb] = nil
        keys[absorb] = nil
        keys[keep] = [keyA, keyB].compactMap { $0 }.min()
        if let keyA, let keyB { mergedKeys.append(max(keyA, keyB)) }
        return keep
    }

    func subjectCandidates(account: AccountID, subject: String) -> [(component: Int32, earliest: Date, latest: Date)] {
        (threadsBySubject[SubjectKey(accountID: account, subject: subject)] ?? []).compactMap { node in
            let root = find(node)
            return spans[root].map { (root, $0.earliest, $0.latest) }
        }
    }

    static func merge(_ a: Span?, _ b: Span?) -> Span? {
        guard let a else { return b }
        guard let b else { return a }
        return Span(earliest: min(a.earliest, b.earliest), latest: max(a.latest, b.latest))
    }
}
