import Foundation
import TernCore

/// What threading reads of one message (FR-SYNC-06 step 1), after dedup (FR-SYNC-01 step 6): one
/// input per stored Email, however many folders (Sent included) hold it.
public struct ThreadingHeaders: Sendable, Hashable {
    public var emailID: Int64
    public var accountID: Account.ID
    /// The Message-ID header as received (`Email.headerMessageId`), without angle brackets.
    public var messageID: String?
    /// In-Reply-To ids, in header order.
    public var inReplyTo: [String]
    /// References ids, oldest ancestor first.
    public var references: [String]
    public var subject: String
    public var date: Date

    public init(emailID: Int64, accountID: Account.ID, messageID: String?, inReplyTo: [String] = [], references: [String] = [],
                subject: String, date: Date) {
        self.emailID = emailID
        self.accountID = accountID
        self.messageID = messageID
        self.inReplyTo = inReplyTo
        self.references = references
        self.subject = subject
        self.date = date
    }

    /// From a stored Email: `inReplyTo` and `references` are space-separated ids.
    public init(_ email: Email) {
        self.init(emailID: email.id ?? 0, accountID: email.accountId, messageID: email.headerMessageId,
                  inReplyTo: Self.ids(email.inReplyTo), references: Self.ids(email.references), subject: email.subject,
                  date: email.dateSent ?? email.dateReceived)
    }

    /// Message-IDs from a header value: `<a@b> <c@d>` or bare `a@b c@d`; brackets removed.
    public static func ids(_ value: String?) -> [String] {
        guard let value else { return [] }
        return value.split(whereSeparator: { $0.isWhitespace || $0 == "," }).compactMap { token in
            var id = Substring(token)
            if id.hasPrefix("<") { id = id.dropFirst() }
            if id.hasSuffix(">") { id = id.dropLast() }
            return id.isEmpty ? nil : String(id)
        }
    }
}

/// FR-SYNC-06: groups messages into threads locally, incrementally — adding a message touches only
/// the nodes of its own ids, never the rest of the mailbox.
///
/// Every Message-ID is a node. A message links to its direct parent (the first In-Reply-To id,
/// else the last References id); its References chain links each ancestor to the next, but only
/// where the next is a message not (yet) stored and without a parent: a stored message's own
/// headers say who its parent is, so a long or wrong References union in some other message
/// cannot pull it into another conversation. A link that would close a loop is ignored, so the
/// graph stays a forest and a thread is a tree, found by union-find. An id already carried by
/// another stored message (a duplicate or provider-inserted Message-ID) does not make the second
/// message part of the first one's thread; replies naming that id go to the first.
///
/// Messages with neither In-Reply-To nor References join the thread with the same normalized
/// subject in the same account whose messages come within 30 days of theirs (step 4); otherwise
/// they start a thread.
public struct ThreadGrouper: Sendable {
    /// FR-SYNC-06 step 4.
    public static let subjectWindow: TimeInterval = 30 * 24 * 3600

    private struct Node {
        var component: Int32
        var rank: UInt8 = 0
        var hasParent = false
        /// A stored message carries this id.
        var isPresent = false
    }

    private struct SubjectKey: Hashable {
        var accountID: Account.ID
        var subject: String
    }

    private struct Span {
        var earliest: Date
        var latest: Date
    }

    private var nodes: [Node] = []
    private var nodeByID: [String: Int32] = [:]
    private var nodeByEmail: [Int64: Int32] = [:]
    private var threadsBySubject: [SubjectKey: [Int32]] = [:]
    private var spans: [Int32: Span] = [:]
    /// Per root: the thread key, the lowest email id of the messages in the tree.
    private var keys: [Int32: Int64] = [:]

    public init() {}

    /// How many messages have been added.
    public var messageCount: Int { nodeByEmail.count }

    /// Adds one message; returns its thread and the threads it merged into that one (a late
    /// parent joining conversations that arrived before it), as thread keys from before the call.
    @discardableResult
    public mutating func add(_ message: ThreadingHeaders) -> ThreadAssignment {
        let ownID = message.messageID.flatMap { $0.isEmpty ? nil : $0 }
        let own: Int32
        var wasReferenced = false
        if let ownID, let existing = nodeByID[ownID], !nodes[Int(existing)].isPresent {
            own = existing  // a placeholder others referenced: this message fills it
            wasReferenced = true
        } else if let ownID, nodeByID[ownID] == nil {
            own = newNode()
            nodeByID[ownID] = own
        } else {
            own = newNode()  // no id, or a duplicate one: its own anonymous node
        }
        nodes[Int(own)].isPresent = true
        nodeByEmail[message.emailID] = own
        var merged: [Int64] = []
        let keyBefore = keys[find(own)]
        let span = Span(earliest: message.date, latest: message.date)

        let references = message.references.filter { $0 != ownID }
        let parentID = message.inReplyTo.first { $0 != ownID } ?? references.last
        if let parentID {
            link(child: own, parent: node(for: parentID), merged: &merged)
        }
        for (ancestor, next) in zip(references, references.dropFirst()) {
            let child = node(for: next)
            guard !nodes[Int(child)].isPresent, !nodes[Int(child)].hasParent else { continue }
            link(child: child, parent: node(for: ancestor), merged: &merged)
        }
        let subjectKey = SubjectKey(accountID: message.accountID, subject: SubjectNormalizer.normalize(message.subject))
        if parentID == nil, message.references.isEmpty, message.inReplyTo.isEmpty, !wasReferenced {
            joinBySubject(own, key: subjectKey, date: message.date, merged: &merged)
        }
        let root = find(own)
        spans[root] = merge(spans[root], span)
        keys[root] = min(keys[root] ?? message.emailID, message.emailID)
        // The original of replies already stored takes over their thread's key.
        if let keyBefore, keyBefore != keys[root], !merged.contains(keyBefore) { merged.append(keyBefore) }
        if !subjectKey.subject.isEmpty {
            var roots = threadsBySubject[subjectKey, default: []]
            if !roots.contains(where: { find($0) == root }) { roots.append(root) }
            threadsBySubject[subjectKey] = roots
        }
        return ThreadAssignment(thread: threadKey(of: find(own)), merged: merged)
    }

    /// The thread of an added message: the email id of one of its messages, stable until a merge.
    public func thread(of emailID: Int64) -> Int64? {
        guard let node = nodeByEmail[emailID] else { return nil }
        return threadKey(of: find(node))
    }

    /// Every thread as its messages' email ids, in no particular order.
    public func threads() -> [[Int64]] {
        var groups: [Int32: [Int64]] = [:]
        for (email, node) in nodeByEmail { groups[find(node), default: []].append(email) }
        return Array(groups.values)
    }

    // MARK: - Forest

    private mutating func newNode() -> Int32 {
        let index = Int32(nodes.count)
        nodes.append(Node(component: index))
        return index
    }

    private mutating func node(for id: String) -> Int32 {
        if let existing = nodeByID[id] { return existing }
        let created = newNode()
        nodeByID[id] = created
        return created
    }

    /// A parent link, unless the child has one already or the link would close a loop.
    private mutating func link(child: Int32, parent: Int32, merged: inout [Int64]) {
        guard child != parent, !nodes[Int(child)].hasParent else { return }
        let (childRoot, parentRoot) = (find(child), find(parent))
        guard childRoot != parentRoot else { return }
        nodes[Int(child)].hasParent = true
        union(childRoot, parentRoot, merged: &merged)
    }

    private mutating func joinBySubject(_ own: Int32, key: SubjectKey, date: Date, merged: inout [Int64]) {
        guard !key.subject.isEmpty, let candidates = threadsBySubject[key] else { return }
        let ownRoot = find(own)
        var best: (root: Int32, distance: TimeInterval)?
        for candidate in candidates {
            let root = find(candidate)
            guard root != ownRoot, let span = spans[root] else { continue }
            let distance = date < span.earliest ? span.earliest.timeIntervalSince(date)
                : date > span.latest ? date.timeIntervalSince(span.latest) : 0
            guard distance <= Self.subjectWindow else { continue }
            if best == nil || distance < best!.distance { best = (root, distance) }
        }
        if let best { union(ownRoot, best.root, merged: &merged) }
    }

    private func find(_ node: Int32) -> Int32 {
        var current = node
        while nodes[Int(current)].component != current { current = nodes[Int(current)].component }
        return current
    }

    /// Union by rank; `find` stays logarithmic without path compression, which keeps it non-mutating.
    private mutating func union(_ a: Int32, _ b: Int32, merged: inout [Int64]) {
        let (rootA, rootB) = (find(a), find(b))
        guard rootA != rootB else { return }
        let (keyA, keyB) = (keys[rootA], keys[rootB])
        let (keep, absorb) = nodes[Int(rootA)].rank >= nodes[Int(rootB)].rank ? (rootA, rootB) : (rootB, rootA)
        nodes[Int(absorb)].component = keep
        if nodes[Int(keep)].rank == nodes[Int(absorb)].rank { nodes[Int(keep)].rank += 1 }
        spans[keep] = merge(spans[keep], spans[absorb])
        spans[absorb] = nil
        keys[absorb] = nil
        keys[keep] = [keyA, keyB].compactMap { $0 }.min()
        // The key that disappears, when both sides were threads with messages.
        if let keyA, let keyB { merged.append(max(keyA, keyB)) }
    }

    private func merge(_ a: Span?, _ b: Span?) -> Span? {
        guard let a else { return b }
        guard let b else { return a }
        return Span(earliest: min(a.earliest, b.earliest), latest: max(a.latest, b.latest))
    }

    private func threadKey(of root: Int32) -> Int64? { keys[root] }
}

/// Where `ThreadGrouper.add` put a message.
public struct ThreadAssignment: Sendable, Hashable {
    /// The message's thread key after the add.
    public var thread: Int64?
    /// Thread keys that no longer exist: their messages now belong to `thread`.
    public var merged: [Int64]
}
