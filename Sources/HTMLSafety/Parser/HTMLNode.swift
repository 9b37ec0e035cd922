/// A node of the parsed document. A reference type because the tree builder moves nodes
/// (the adoption agency algorithm, foster parenting); used by one task at a time.
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

    init(kind: Kind, name: String = "", namespace: HTMLNamespace = .html, attributes: [HTMLAttribute] = [], data: [UInt8] = [],
         nameIndex: UInt8? = nil) {
        self.kind = kind
        self.name = name
        if case .element = kind { self.nameIndex = nameIndex ?? KnownElementName.index(of: name) } else { self.nameIndex = 0 }
        self.namespace = namespace
        self.attributes = attributes
        self.data = data
    }

    deinit {
        // Borrowed from the buffer: a for-in over the array would retain and release each child.
        children.withUnsafeBufferPointer { buffer in
            for child in buffer { child.parent = nil }
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

    func isHTML(_ names: HTMLTagSet) -> Bool { namespace == .html && isElement && names.contains(index: nameIndex) }
    /// For a name that is one of `KnownElementName.names`.
    func isHTML(known set: HTMLTagSet, in namespace: HTMLNamespace) -> Bool {
        self.namespace == namespace && isElement && set.contains(index: nameIndex)
    }
    public func isHTML(_ name: String) -> Bool { namespace == .html && isElement && self.name == name }
    func isHTML(_ name: HTMLTagName) -> Bool { namespace == .html && isElement && nameIndex == name.rawValue && name != .unknown }

    public func attribute(_ name: String) -> String? {
        for attribute in attributes where attribute.namespace == nil && attribute.name.elementsEqual(name.utf8) {
            return String(decoding: attribute.value, as: UTF8.self)
        }
        return nil
    }

    /// The value's bytes, without building a `String`.
    func attributeBytes(_ name: StaticString) -> [UInt8]? {
        name.withUTF8Buffer { key in
            attributes.first { $0.namespace == nil && $0.name.elementsEqual(key) }?.value
        }
    }

    public func setAttribute(_ name: String, _ value: String) {
        let key = Array(name.utf8)
        if let index = attributes.firstIndex(where: { $0.name == key && $0.namespace == nil }) {
            attributes[index].value = Array(value.utf8)
        } else {
            attributes.append(HTMLAttribute(name: key, value: Array(value.utf8)))
        }
    }

    public func removeAttribute(_ name: String) {
        let key = Array(name.utf8)
        attributes.removeAll { $0.name == key && $0.namespace == nil }
    }

    // MARK: - Tree changes

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

    public func insert(_ child: HTMLNode, before reference: HTMLNode?) {
        guard let reference, let index = children.firstIndex(where: { $0 === reference }) else {
            append(child)
            return
        }
        child.detach()
        if child.isText, index > 0, children[index - 1].isText {
            children[index - 1].data += child.data
            return
        }
        child.parent = self
        children.insert(child, at: index)
    }

    public func detach() {
        guard let parent else { return }
        parent.children.removeAll { $0 === self }
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

    public func replaceChildren(_ nodes: [HTMLNode]) {
        removeAllChildren()
        for node in nodes { append(node) }
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

    /// Appends the text of the node and its descendants.
    func appendText(to output: inout [UInt8]) {
        if isText {
            output += data
            return
        }
        for child in children { child.appendText(to: &output) }
    }

    /// The text of the node and its descendants.
    public var textContent: String {
        if isText { return String(decoding: data, as: UTF8.self) }
        return children.map(\.textContent).joined()
    }
}
