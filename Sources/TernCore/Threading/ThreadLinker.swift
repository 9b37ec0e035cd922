import Foundation

/// Where FR-SYNC-06's graph lives: in memory for a batch (`ThreadGrouper`), in the store's
/// `threadNode` table for sync. Nodes are Message-IDs (or anonymous, for a message without a usable
/// one); components are threads in the making.
public protocol ThreadNodeStore {
    associatedtype Node: Hashable
    associatedtype Component: Hashable

    func existingNode(for messageID: String) throws -> Node?
    /// A node for an id nobody stored yet: a placeholder until its message arrives.
    mutating func createNode(for messageID: String?) throws -> Node
    /// A node for a message being stored now (`createNode` then `markPresent`, in one step where
    /// the store can).
    mutating func createPresentNode(for messageID: String?) throws -> Node
    func isPresent(_ node: Node) throws -> Bool
    func hasParent(_ node: Node) throws -> Bool
    mutating func markPresent(_ node: Node) throws
    mutating func markHasParent(_ node: Node) throws
    func component(of node: Node) throws -> Component
    /// Joins two components; returns the one that remains.
    @discardableResult mutating func union(_ a: Component, _ b: Component) throws -> Component
    /// Threads of the account whose messages share the normalized subject, with their date spans.
    func subjectCandidates(account: AccountID, subject: String) throws -> [(component: Component, earliest: Date, latest: Date)]
}

extension ThreadNodeStore {
    public mutating func createPresentNode(for messageID: String?) throws -> Node {
        let node = try createNode(for: messageID)
        try markPresent(node)
        return node
    }
}

/// FR-SYNC-06's rules, on any `ThreadNodeStore`; adding a message touches only the nodes of its own ids.
///
/// A message links to its direct parent (the first In-Reply-To id, else the last References id); its
/// References chain links each ancestor to the next, but only where the next is a message not (yet)
/// stored and without a parent: a stored message's own headers say who its parent is, so a long or
/// wrong References union in some other message cannot pull it into another conversation. A link
/// that would close a loop is ignored, so every thread is a tree. An id already carried by another
/// stored message (a duplicate or provider-inserted Message-ID) does not make the second message part
/// of the first one's thread; replies naming that id go to the first. A reply or forward (by its
/// subject's prefix) with neither In-Reply-To nor References, that nothing referenced, joins the
/// thread with the same normalized subject in the same account whose messages come nearest and
/// within 30 days (step 4); messages without a prefix start threads, so ten newsletters with one
/// subject stay ten threads.
public enum ThreadLinker {
    /// FR-SYNC-06 step 4.
    public static let subjectWindow: TimeInterval = 30 * 24 * 3600

    /// Adds one message's node and links; returns its node (its component is its thread).
    @inlinable
    public static func add<Store: ThreadNodeStore>(_ message: ThreadingHeaders, to store: inout Store) throws -> Store.Node {
        let ownID = message.messageID.flatMap { $0.isEmpty ? nil : $0 }
        var own: Store.Node
        var wasReferenced = false
        if let ownID, let existing = try store.existingNode(for: ownID) {
            if try store.isPresent(existing) {
                own = try store.createPresentNode(for: nil) // a duplicate id: its own anonymous node
            } else {
                own = existing // a placeholder others referenced: this message fills it
                wasReferenced = true
                try store.markPresent(own)
            }
        } else {
            own = try store.createPresentNode(for: ownID)
        }

        func node(_ id: String) throws -> Store.Node { try store.existingNode(for: id) ?? store.createNode(for: id) }
        func link(child: Store.Node, parent: Store.Node) throws {
            guard child != parent, try !store.hasParent(child) else { return }
            let (childComponent, parentComponent) = (try store.component(of: child), try store.component(of: parent))
            guard childComponent != parentComponent else { return } // would close a loop
            try store.markHasParent(child)
            try store.union(childComponent, parentComponent)
        }

        let references = message.references.filter { $0 != ownID }
        let parentID = message.inReplyTo.first { $0 != ownID } ?? references.last
        if let parentID { try link(child: own, parent: try node(parentID)) }
        for (ancestor, next) in zip(references, references.dropFirst()) {
            let child = try node(next)
            guard try !store.isPresent(child), try !store.hasParent(child) else { continue }
            try link(child: child, parent: try node(ancestor))
        }
        if parentID == nil, message.references.isEmpty, message.inReplyTo.isEmpty, !wasReferenced,
            SubjectNormalizer.isReplyOrForward(message.subject)
        {
            let subject = SubjectNormalizer.normalize(message.subject)
            if !subject.isEmpty {
                let ownComponent = try store.component(of: own)
                var best: (component: Store.Component, distance: TimeInterval)?
                for candidate in try store.subjectCandidates(account: message.accountID, subject: subject) where candidate.component != ownComponent {
                    let distance =
                        message.date < candidate.earliest
                        ? candidate.earliest.timeIntervalSince(message.date)
                        : message.date > candidate.latest ? message.date.timeIntervalSince(candidate.latest) : 0
                    guard distance <= subjectWindow else { continue }
                    if best == nil || distance < best!.distance { best = (candidate.component, distance) }
                }
                if let best { try store.union(ownComponent, best.component) }
            }
        }
        return own
    }
}
