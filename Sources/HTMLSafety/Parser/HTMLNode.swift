/// A node of a parsed document as tests and tools read it (`HTMLParser.parseDocument`,
/// `parseFragment`), made from the parser's `HTMLTree`; the sanitizer reads the `HTMLTree` itself.
/// A reference type, as the DOM's nodes are; used by one task at a time.
public final class HTMLNode {
    /// Without payloads, so that asking a node's kind (on every node the sanitizer visits) copies
    /// one byte; a doctype's identifiers are in `doctype`.
    public enum Kind: Sendable {
        case document
        case fragment
        case doctype
        case element
        case text
        case comment
    }

    public struct Doctype: Sendable, Hashable {
        public var name: String
        public var publicIdentifier: String
        public var systemIdentifier: String
    }

    public let kind: Kind
    /// For a `.doctype` node.
    public private(set) var doctype: Doctype?
    /// Element local name, lowercased for HTML (SVG names keep their adjusted case).
    public var name: String { didSet { nameIndex = KnownElementName.index(of: name) } }
    /// `name` numbered for `HTMLTagSet` tests.
    private(set) var nameIndex: UInt8
    public var namespace: HTMLNamespace
    public var attributes: [HTMLAttribute]
    /// Text or comment data (UTF-8).
    public var data: [UInt8]
    public private(set) var children: [HTMLNode] = []
    /// Not `weak`: a weak reference gives every node a side table and sends each retain and
    /// release down the runtime's slow path (a fifth of the sanitizer's time). Unowned is safe
    /// here because the tree keeps it true: every change of `children` sets or clears the
    /// child's `parent`, and a node going away clears its children's (`deinit`).
    public private(set) unowned(unsafe) var parent: HTMLNode?
    /// The contents of a `<template>` (a separate fragment, as in the DOM).
    public var templateContents: HTMLNode?

    init(
        kind: Kind, name: String = "", namespace: HTMLNamespace = .html, attributes: [HTMLAttribute] = [], data: [UInt8] = [],
        nameIndex: UInt8? = nil
    ) {
        self.kind = kind
        self.name = name
        if case .element = kind { self.nameIndex = nameIndex ?? KnownElementName.index(of: name) } else { self.nameIndex = 0 }
        self.namespace = namespace
        self.attributes = attributes
        self.data = data
    }

    /// Releasing a node released its children, which released theirs: a recursion as deep as the
    /// tree, which overflowed a secondary thread's 512 KiB stack on hostile nesting (issue 21).
    /// The first node of a tree to go takes the lists of children of every node going with it
    /// onto a work list and lets them go one at a time, so each later `deinit` finds no children.
    deinit {
        guard !children.isEmpty || templateContents != nil else { return }
        var lists: [[HTMLNode]] = []
        takeChildren(into: &lists)
        while let last = lists.indices.last {
            guard var node = lists[last].popLast() else {
                lists.removeLast()
                continue
            }
            // A node held elsewhere stays, with its subtree.
            if isKnownUniquelyReferenced(&node) { node.takeChildren(into: &lists) }
        }
    }

    /// Moves the children list (and the template contents) to `lists`, the children's parent cleared.
    private func takeChildren(into lists: inout [[HTMLNode]]) {
        if !children.isEmpty {
            // Borrowed from the buffer: a for-in over the array would retain and release each child.
            children.withUnsafeBufferPointer { buffer in
                for child in buffer { child.parent = nil }
            }
            lists.append(children)
            children = []
        }
        if let contents = templateContents {
            templateContents = nil
            lists.append([contents])
        }
    }

    public static func element(_ name: String, namespace: HTMLNamespace = .html, attributes: [HTMLAttribute] = []) -> HTMLNode {
        let node = HTMLNode(kind: .element, name: name, namespace: namespace, attributes: attributes)
        if namespace == .html, name == "template" { node.templateContents = HTMLNode(kind: .fragment) }
        return node
    }

    static func doctype(name: String, publicIdentifier: String, systemIdentifier: String) -> HTMLNode {
        let node = HTMLNode(kind: .doctype)
        node.doctype = Doctype(name: name, publicIdentifier: publicIdentifier, systemIdentifier: systemIdentifier)
        return node
    }

    public static func text(_ data: [UInt8]) -> HTMLNode { HTMLNode(kind: .text, data: data) }
    public static func comment(_ data: [UInt8]) -> HTMLNode { HTMLNode(kind: .comment, data: data) }
    public static func document() -> HTMLNode { HTMLNode(kind: .document) }
    public static func fragment() -> HTMLNode { HTMLNode(kind: .fragment) }

    public var isElement: Bool { if case .element = kind { true } else { false } }
    public var isText: Bool { if case .text = kind { true } else { false } }

    public func isHTML(_ name: String) -> Bool { namespace == .html && isElement && self.name == name }

    public func attribute(_ name: String) -> String? {
        for attribute in attributes where attribute.namespace == nil && attribute.name.elementsEqual(name.utf8) {
            return String(decoding: attribute.value, as: UTF8.self)
        }
        return nil
    }

    // MARK: - Tree changes

    /// Appends `child`, a node just made, as it is: a copy of a parsed tree (`HTMLTree.makeDOM`)
    /// keeps the text nodes the parser made, where `append` would merge adjacent ones.
    func appendAsParsed(_ child: HTMLNode) {
        child.parent = self
        if children.isEmpty { children.reserveCapacity(4) }
        children.append(child)
    }

    public func append(_ child: HTMLNode) {
        child.detach()
        // Adjacent text merges, as the DOM's "insert a character" does.
        if child.isText, let last = children.last, last.isText {
            last.data += child.data
            return
        }
        child.parent = self
        // Room for a few from the first: growing one slot at a time reallocated the list of
        // nearly every element with children two or three times.
        if children.isEmpty { children.reserveCapacity(4) }
        children.append(child)
    }

    public func detach() {
        guard let parent else { return }
        // The nodes the tree builder moves are at or near the end of their parent's children.
        if let index = parent.children.lastIndex(where: { $0 === self }) { parent.children.remove(at: index) }
        self.parent = nil
    }

    public func removeAllChildren() {
        for child in children { child.parent = nil }
        children = []
    }

    /// Moves every child of this node to `other` (adoption agency step "append all children").
    func moveChildren(to other: HTMLNode) {
        let moving = children
        removeAllChildren()
        for child in moving { other.append(child) }
    }

    /// Every descendant, depth first, in document order.
    public func descendants() -> [HTMLNode] {
        var result: [HTMLNode] = []
        var stack: [HTMLNode] = children.reversed()
        while let node = stack.popLast() {
            result.append(node)
            stack.append(contentsOf: node.children.reversed())
            if let contents = node.templateContents { stack.append(contentsOf: contents.children.reversed()) }
        }
        return result
    }

    /// Appends the text of the node and its descendants, up to `limit` bytes (a multi-byte
    /// character at the cut is cut too).
    func appendText(to output: inout [UInt8], limit: Int = .max) {
        let end = limit > Int.max - output.count ? Int.max : output.count + limit
        if isText {
            output.appendBytes(of: data.prefix(end - output.count))
            return
        }
        walkDescendants { node, _ in
            guard node.isText else { return .descend }
            output.appendBytes(of: node.data.prefix(end - output.count))
            return output.count >= end ? .stop : .descend
        }
    }

    /// The text of the node and its descendants.
    public var textContent: String {
        var text: [UInt8] = []
        appendText(to: &text)
        return String(decoding: text, as: UTF8.self)
    }
}

// MARK: - Walks

extension HTMLNode {
    /// What a walk does after visiting a node.
    enum WalkStep {
        case descend
        case skipChildren
        case stop
    }

    /// Visits the descendants of this node depth first, in document order, with an explicit stack
    /// instead of recursion: a recursive walk of a deep tree overflowed a secondary thread's stack
    /// (issue 21). `enter` gets each node and its parent; `leave` is called after the descendants
    /// of each node `enter` descended into. `templates`: a template's contents are walked as its
    /// children (serializing does).
    func walkDescendants(
        templates: Bool = false, enter: (_ node: HTMLNode, _ parent: HTMLNode) -> WalkStep,
        leave: (HTMLNode) -> Void = { _ in }
    ) {
        var levels: [(node: HTMLNode, children: [HTMLNode], next: Int)] = []
        var current = (node: self, children: templates ? (templateContents ?? self).children : children, next: 0)
        while true {
            guard current.next < current.children.count else {
                guard let outer = levels.popLast() else { return }
                leave(current.node)
                current = outer
                continue
            }
            let child = current.children[current.next]
            current.next += 1
            switch enter(child, current.node) {
            case .stop: return
            case .skipChildren: continue
            case .descend:
                let grandchildren = templates ? (child.templateContents ?? child).children : child.children
                if grandchildren.isEmpty {
                    leave(child)
                } else {
                    levels.append(current)
                    current = (child, grandchildren, 0)
                }
            }
        }
    }
}

extension [UInt8] {
    /// `self += bytes`, through the slice's buffer: appending an `ArraySlice` took the generic,
    /// element-by-element path (a few percent of parsing and sanitizing).
    mutating func appendBytes(of bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBufferPointer { append(contentsOf: $0) }
    }
}
