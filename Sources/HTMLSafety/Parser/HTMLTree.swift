/// A node's place in its `HTMLTree`.
struct NodeID: Hashable, Sendable {
    let index: Int32

    init(_ index: Int32) { self.index = index }
    init(_ index: Int) { self.index = Int32(index) }

    /// "No node" in a link field.
    static let none = NodeID(Int32(-1))
    var exists: Bool { index >= 0 }
}

/// The parsed document as one array of value-type nodes linked by position: what the tree
/// builder builds and the sanitizer, the text extractor and the quote detector read.
///
/// Why not a class per node (`HTMLNode`, kept as the public tree for tests and tools): building,
/// walking and releasing a tree of objects was about a third of sanitizing a message (an
/// allocation, reference counting on every step of every walk, and a release per node at the end;
/// issue 21's "faster than nh3"). Here a tree is one allocation that grows, walks are index steps,
/// and releasing it frees a few arrays. Children are linked lists (first and last child, previous
/// and next sibling), so the tree builder's moves (foster parenting before a table, the adoption
/// agency) are O(1) and need no search of a parent's children.
struct HTMLTree {
    /// What the walks ask of every node (kind, namespace, name), plain data: asking it of a node
    /// read in place loads these bytes alone. Asked of the whole node inside a walk's closures, the
    /// compiler copied the node first (its name, attributes and data retained and released).
    struct Header: NumberedElementName {
        let kind: HTMLNode.Kind
        let nameIndex: UInt8
        let namespace: HTMLNamespace

        var isElement: Bool { if case .element = kind { true } else { false } }
        var isText: Bool { if case .text = kind { true } else { false } }
    }

    struct Node: NumberedElementName {
        let header: Header
        var parent = NodeID.none
        var firstChild = NodeID.none
        var lastChild = NodeID.none
        var previousSibling = NodeID.none
        var nextSibling = NodeID.none
        /// A `<template>`'s contents: a fragment node outside the tree, as in the DOM.
        var templateContents = NodeID.none
        /// Element local name, lowercased for HTML (SVG names keep their adjusted case); empty for
        /// other nodes.
        var name: String
        var attributes: [HTMLAttribute]
        /// Text or comment data (UTF-8).
        var data: [UInt8]

        init(kind: HTMLNode.Kind, nameIndex: UInt8, namespace: HTMLNamespace, name: String, attributes: [HTMLAttribute], data: [UInt8]) {
            header = Header(kind: kind, nameIndex: nameIndex, namespace: namespace)
            self.name = name
            self.attributes = attributes
            self.data = data
        }

        var kind: HTMLNode.Kind { header.kind }
        var nameIndex: UInt8 { header.nameIndex }
        var namespace: HTMLNamespace { header.namespace }
        var isElement: Bool { header.isElement }
        var isText: Bool { header.isText }
    }

    private(set) var nodes: [Node] = []
    /// The doctype nodes' identifiers (a document has one at most, usually).
    private(set) var doctypes: [Int32: HTMLNode.Doctype] = [:]

    /// The document node, made first.
    static let document = NodeID(Int32(0))

    /// A tree holding a document node, with room for `expectedNodes`.
    init(expectedNodes: Int = 0) {
        nodes.reserveCapacity(max(16, expectedNodes))
        nodes.append(Node(kind: .document, nameIndex: 0, namespace: .html, name: "", attributes: [], data: []))
    }

    var count: Int { nodes.count }

    /// Reads or changes one node in place. A field read straight from the result (`tree[id].nextSibling`)
    /// loads that field; a node's own properties and methods, asked inside a closure, made the
    /// compiler copy the whole node first: walks ask its `Header` there.
    subscript(id: NodeID) -> Node {
        _read { yield nodes[Int(id.index)] }
        _modify { yield &nodes[Int(id.index)] }
    }

    // MARK: - Making nodes (not yet in the tree)

    mutating func makeElement(name: String, nameIndex: UInt8, namespace: HTMLNamespace, attributes: [HTMLAttribute]) -> NodeID {
        let id = make(Node(kind: .element, nameIndex: nameIndex, namespace: namespace, name: name, attributes: attributes, data: []))
        if namespace == .html, HTMLTagName(rawValue: nameIndex) == .template {
            let contents = makeFragment()
            self[id].templateContents = contents
        }
        return id
    }

    /// An element by name (tests, fragment contexts, implied elements).
    mutating func makeElement(_ name: String, namespace: HTMLNamespace = .html, attributes: [HTMLAttribute] = []) -> NodeID {
        makeElement(name: name, nameIndex: KnownElementName.index(of: name), namespace: namespace, attributes: attributes)
    }

    mutating func makeText(_ data: [UInt8]) -> NodeID {
        make(Node(kind: .text, nameIndex: 0, namespace: .html, name: "", attributes: [], data: data))
    }

    mutating func makeComment(_ data: [UInt8]) -> NodeID {
        make(Node(kind: .comment, nameIndex: 0, namespace: .html, name: "", attributes: [], data: data))
    }

    mutating func makeFragment() -> NodeID {
        make(Node(kind: .fragment, nameIndex: 0, namespace: .html, name: "", attributes: [], data: []))
    }

    mutating func makeDoctype(_ doctype: HTMLNode.Doctype) -> NodeID {
        let id = make(Node(kind: .doctype, nameIndex: 0, namespace: .html, name: "", attributes: [], data: []))
        doctypes[id.index] = doctype
        return id
    }

    private mutating func make(_ node: consuming Node) -> NodeID {
        // Positions are 32 bits: 2^31 nodes would take 128 GiB first (bodies are capped at 10 MiB,
        // a node per byte at most), so this is a clear stop rather than a reachable limit.
        precondition(nodes.count < Int(Int32.max), "an HTML tree holds at most 2^31 - 1 nodes")
        nodes.append(node)
        return NodeID(nodes.count - 1)
    }

    // MARK: - Tree changes (the DOM's, with its merging of adjacent text)

    /// Appends `child` (taken from where it was) as the last child of `parent`. Text after text
    /// merges into it, as the DOM's "insert a character" does; the merged node is left unused.
    mutating func append(_ child: NodeID, to parent: NodeID) {
        detach(child)
        let last = self[parent].lastChild
        if self[child].isText, last.exists, self[last].isText {
            mergeText(of: child, into: last)
            return
        }
        link(child, parent: parent, after: last, before: .none)
    }

    /// Inserts `child` before `reference`, a child of `parent`; appends when `reference` is
    /// `.none` or not a child of `parent`.
    mutating func insert(_ child: NodeID, before reference: NodeID, in parent: NodeID) {
        guard reference.exists, self[reference].parent == parent else {
            append(child, to: parent)
            return
        }
        detach(child)
        let previous = self[reference].previousSibling
        if self[child].isText, previous.exists, self[previous].isText {
            mergeText(of: child, into: previous)
            return
        }
        link(child, parent: parent, after: previous, before: reference)
    }

    /// Appends text to `parent`: to its last child when that is text, else as a new text node.
    mutating func appendText(_ bytes: ArraySlice<UInt8>, to parent: NodeID) {
        let last = self[parent].lastChild
        if last.exists, self[last].isText {
            self[last].data.appendBytes(of: bytes)
        } else {
            append(makeText(Array(bytes)), to: parent)
        }
    }

    /// Inserts text before `reference`, a child of `parent` (appends when it is `.none` or not
    /// one): into the text node before it when there is one, else as a new text node. Foster
    /// parenting puts table text before the table piece by piece (`<table>x x x…` makes a piece
    /// per character): a node made for each piece and merged away stayed in the array, 64 bytes
    /// per byte of markup until the tree went.
    mutating func insertText(_ bytes: ArraySlice<UInt8>, before reference: NodeID, in parent: NodeID) {
        guard reference.exists, self[reference].parent == parent else {
            appendText(bytes, to: parent)
            return
        }
        let previous = self[reference].previousSibling
        if previous.exists, self[previous].isText {
            self[previous].data.appendBytes(of: bytes)
        } else {
            let text = makeText(Array(bytes))
            link(text, parent: parent, after: previous, before: reference)
        }
    }

    private mutating func mergeText(of child: NodeID, into text: NodeID) {
        var moved: [UInt8] = []
        swap(&moved, &self[child].data)
        self[text].data += moved
    }

    private mutating func link(_ child: NodeID, parent: NodeID, after previous: NodeID, before next: NodeID) {
        self[child].parent = parent
        self[child].previousSibling = previous
        self[child].nextSibling = next
        if previous.exists { self[previous].nextSibling = child } else { self[parent].firstChild = child }
        if next.exists { self[next].previousSibling = child } else { self[parent].lastChild = child }
    }

    /// Takes `node` out of its parent's children (no-op when it has no parent).
    mutating func detach(_ node: NodeID) {
        let parent = self[node].parent
        guard parent.exists else { return }
        let previous = self[node].previousSibling
        let next = self[node].nextSibling
        if previous.exists { self[previous].nextSibling = next } else { self[parent].firstChild = next }
        if next.exists { self[next].previousSibling = previous } else { self[parent].lastChild = previous }
        self[node].parent = .none
        self[node].previousSibling = .none
        self[node].nextSibling = .none
    }

    /// Moves every child of `node` to the end of `other`'s (the adoption agency's "append all
    /// children"), merging text at the seam as appending one by one would.
    mutating func moveChildren(of node: NodeID, to other: NodeID) {
        var child = self[node].firstChild
        while child.exists {
            let next = self[child].nextSibling
            append(child, to: other)
            child = next
        }
    }

    // MARK: - Reading

    /// The first child of `node` for which `matches` holds.
    func firstChild(of node: NodeID, where matches: (Header) -> Bool) -> NodeID? {
        var child = self[node].firstChild
        while child.exists {
            if matches(self[child].header) { return child }
            child = self[child].nextSibling
        }
        return nil
    }

    /// The only child of `node`, when it has exactly one.
    func onlyChild(of node: NodeID) -> NodeID? {
        let first = self[node].firstChild
        guard first.exists, !self[first].nextSibling.exists else { return nil }
        return first
    }

    func attribute(_ node: NodeID, _ name: String) -> String? {
        for attribute in self[node].attributes where attribute.namespace == nil && attribute.name.elementsEqual(name.utf8) {
            return String(decoding: attribute.value, as: UTF8.self)
        }
        return nil
    }

    /// The value's bytes, without building a `String`.
    func attributeBytes(_ node: NodeID, _ name: StaticString) -> [UInt8]? {
        name.withUTF8Buffer { key in
            // Lengths first: the sanitizer asks several names of every element, and most differ in length.
            self[node].attributes.withUnsafeBufferPointer { attributes in
                for index in attributes.indices
                where attributes[index].name.count == key.count
                    && attributes[index].namespace == nil && attributes[index].name.elementsEqual(key)
                {
                    return attributes[index].value
                }
                return nil
            }
        }
    }

    /// Appends the text of `node` and its descendants, up to `limit` bytes (a multi-byte
    /// character at the cut is cut too).
    func appendText(of node: NodeID, to output: inout [UInt8], limit: Int = .max) {
        let end = limit > Int.max - output.count ? Int.max : output.count + limit
        if self[node].isText {
            output.appendBytes(of: self[node].data.prefix(end - output.count))
            return
        }
        walkDescendants(of: node) { descendant, _ in
            guard self[descendant].isText else { return .descend }
            output.appendBytes(of: self[descendant].data.prefix(end - output.count))
            return output.count >= end ? .stop : .descend
        }
    }

    func textContent(_ node: NodeID) -> String {
        var text: [UInt8] = []
        appendText(of: node, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Visits the descendants of `root` depth first, in document order, without recursion (a deep
    /// tree overflowed a secondary thread's stack; issue 21): `enter` gets each node and its parent,
    /// `leave` each node `enter` descended into, after its descendants. A template's contents are
    /// not its children, and are not walked.
    func walkDescendants(
        of root: NodeID, enter: (_ node: NodeID, _ parent: NodeID) -> HTMLNode.WalkStep,
        leave: (NodeID) -> Void = { _ in }
    ) {
        /// The nodes whose children are being walked, outermost first.
        var parents: [NodeID] = [root]
        var next = self[root].firstChild
        while true {
            guard next.exists else {
                guard parents.count > 1 else { return }
                let finished = parents.removeLast()
                leave(finished)
                next = self[finished].nextSibling
                continue
            }
            let node = next
            switch enter(node, parents[parents.count - 1]) {
            case .stop: return
            case .skipChildren: next = self[node].nextSibling
            case .descend:
                let child = self[node].firstChild
                if child.exists {
                    parents.append(node)
                    next = child
                } else {
                    leave(node)
                    next = self[node].nextSibling
                }
            }
        }
    }

    // MARK: - The public tree

    /// `node` and its descendants as `HTMLNode`s, the tree tests and tools read.
    func makeDOM(_ node: NodeID = HTMLTree.document) -> HTMLNode {
        let root = domNode(node)
        var pending: [(NodeID, HTMLNode)] = [(node, root)]
        while let (id, dom) = pending.popLast() {
            var child = self[id].firstChild
            while child.exists {
                let made = domNode(child)
                dom.appendAsParsed(made)
                pending.append((child, made))
                child = self[child].nextSibling
            }
            let contents = self[id].templateContents
            if contents.exists {
                let made = HTMLNode.fragment()
                dom.templateContents = made
                pending.append((contents, made))
            }
        }
        return root
    }

    private func domNode(_ id: NodeID) -> HTMLNode {
        let node = self[id]
        switch node.kind {
        case .element:
            return HTMLNode(kind: .element, name: node.name, namespace: node.namespace, attributes: node.attributes, nameIndex: node.nameIndex)
        case .doctype:
            let doctype = doctypes[id.index] ?? HTMLNode.Doctype(name: "", publicIdentifier: "", systemIdentifier: "")
            return HTMLNode.doctype(name: doctype.name, publicIdentifier: doctype.publicIdentifier, systemIdentifier: doctype.systemIdentifier)
        case .text: return HTMLNode.text(node.data)
        case .comment: return HTMLNode.comment(node.data)
        case .document: return HTMLNode.document()
        case .fragment: return HTMLNode.fragment()
        }
    }
}
