/// A node of the parsed document. A reference type because the tree builder moves nodes
/// (the adoption agency algorithm, foster parenting); used by one task at a time.
public final class HTMLNode {
    public enum Kind {
        case document
        case fragment
        case doctype(name: String, publicIdentifier: String, systemIdentifier: String)
        case element
        case text
        case comment
    }

    public let kind: Kind
    /// Element local name, lowercased for HTML (SVG names keep their adjusted case).
    public var name: String
    public var namespace: HTMLNamespace
    public var attributes: [HTMLAttribute]
    /// Text or comment data (UTF-8).
    public var data: [UInt8]
    public private(set) var children: [HTMLNode] = []
    public private(set) weak var parent: HTMLNode?
    /// The contents of a `<template>` (a separate fragment, as in the DOM).
    public var templateContents: HTMLNode?

    init(kind: Kind, name: String = "", namespace: HTMLNamespace = .html, attributes: [HTMLAttribute] = [], data: [UInt8] = []) {
        self.kind = kind
        self.name = name
        self.namespace = namespace
        self.attributes = attributes
        self.data = data
    }

    public static func element(_ name: String, namespace: HTMLNamespace = .html, attributes: [HTMLAttribute] = []) -> HTMLNode {
        let node = HTMLNode(kind: .element, name: name, namespace: namespace, attributes: attributes)
        if namespace == .html, name == "template" { node.templateContents = HTMLNode(kind: .fragment) }
        return node
    }

    public static func text(_ data: [UInt8]) -> HTMLNode { HTMLNode(kind: .text, data: data) }
    public static func comment(_ data: [UInt8]) -> HTMLNode { HTMLNode(kind: .comment, data: data) }
    public static func document() -> HTMLNode { HTMLNode(kind: .document) }
    public static func fragment() -> HTMLNode { HTMLNode(kind: .fragment) }

    public var isElement: Bool { if case .element = kind { true } else { false } }
    public var isText: Bool { if case .text = kind { true } else { false } }

    public func isHTML(_ names: Set<String>) -> Bool { namespace == .html && isElement && names.contains(name) }
    public func isHTML(_ name: String) -> Bool { namespace == .html && isElement && self.name == name }

    public func attribute(_ name: String) -> String? {
        for attribute in attributes where attribute.namespace == nil && attribute.name.elementsEqual(name.utf8) {
            return String(decoding: attribute.value, as: UTF8.self)
        }
        return nil
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

    /// The text of the node and its descendants.
    public var textContent: String {
        if isText { return String(decoding: data, as: UTF8.self) }
        return children.map(\.textContent).joined()
    }
}
