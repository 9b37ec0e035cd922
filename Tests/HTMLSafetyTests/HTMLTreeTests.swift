import Testing

@testable import HTMLSafety

/// The DOM operations of `HTMLTree` the tree builder relies on (issue 21: the tree became one array
/// of value-type nodes), and what a parse leaves in it.
struct HTMLTreeTests {
    private func texts(_ tree: HTMLTree, of parent: NodeID) -> [String] {
        var result: [String] = []
        var child = tree[parent].firstChild
        while child.exists {
            result.append(tree[child].isText ? String(decoding: tree[child].data, as: UTF8.self) : "<\(tree[child].name)>")
            child = tree[child].nextSibling
        }
        return result
    }

    @Test func appendingTextAfterTextMergesIt() {
        var tree = HTMLTree()
        let body = tree.makeElement("body")
        tree.append(body, to: HTMLTree.document)
        let first = tree.makeText(Array("a".utf8))
        let second = tree.makeText(Array("b".utf8))
        tree.append(first, to: body)
        tree.append(second, to: body)
        #expect(texts(tree, of: body) == ["ab"])
        #expect(tree[body].firstChild == tree[body].lastChild)
    }

    @Test func insertingBeforeAReferenceLinksBothWays() {
        var tree = HTMLTree()
        let body = tree.makeElement("body")
        let table = tree.makeElement("table")
        let div = tree.makeElement("div")
        let span = tree.makeElement("span")
        tree.append(body, to: HTMLTree.document)
        tree.append(div, to: body)
        tree.append(table, to: body)
        tree.insert(span, before: table, in: body)
        #expect(texts(tree, of: body) == ["<div>", "<span>", "<table>"])
        #expect(tree[table].previousSibling == span && tree[span].previousSibling == div)
        // An earlier sibling moved before a later one lands right before it.
        tree.insert(div, before: table, in: body)
        #expect(texts(tree, of: body) == ["<span>", "<div>", "<table>"])
        #expect(tree[body].firstChild == span && tree[span].previousSibling == .none)
        // A reference that is not a child appends.
        tree.insert(tree.makeElement("p"), before: tree.makeElement("b"), in: body)
        #expect(texts(tree, of: body) == ["<span>", "<div>", "<table>", "<p>"])
    }

    @Test func textInsertedBeforeATableJoinsTheTextBeforeIt() {
        var tree = HTMLTree()
        let body = tree.makeElement("body")
        let table = tree.makeElement("table")
        tree.append(body, to: HTMLTree.document)
        tree.append(table, to: body)
        tree.insertText(Array("x".utf8)[...], before: table, in: body)
        let nodes = tree.count
        tree.insertText(Array(" y".utf8)[...], before: table, in: body)
        #expect(texts(tree, of: body) == ["x y", "<table>"])
        #expect(tree.count == nodes)
    }

    @Test func detachingAndMovingChildren() {
        var tree = HTMLTree()
        let from = tree.makeElement("div")
        let to = tree.makeElement("p")
        tree.append(from, to: HTMLTree.document)
        tree.append(to, to: HTMLTree.document)
        let middle = tree.makeElement("b")
        tree.append(tree.makeText(Array("a".utf8)), to: from)
        tree.append(middle, to: from)
        tree.append(tree.makeText(Array("c".utf8)), to: from)
        tree.detach(middle)
        #expect(tree[middle].parent == .none && tree[middle].nextSibling == .none)
        // Detaching leaves two text nodes side by side, as the DOM does; the public tree keeps both.
        #expect(texts(tree, of: from) == ["a", "c"])
        #expect(tree.makeDOM(from).children.count == 2)
        tree.append(tree.makeText(Array("z".utf8)), to: to)
        tree.moveChildren(of: from, to: to)
        #expect(texts(tree, of: from) == [])
        #expect(texts(tree, of: to) == ["zac"])
    }

    /// Table text is fostered before the table a piece at a time (`x` and ` ` alternate): each piece
    /// used to make a node that was merged away and stayed in the array.
    @Test func fosteredTextLeavesNoDeadNodes() {
        let html = Array(("<table>" + String(repeating: "x ", count: 50_000)).utf8)
        #expect(HTMLParser.parsedNodeCount(html) < 16)
        let document = HTMLParser.parseDocument(html)
        #expect(document.textContent.count == 100_000)
    }
}

extension HTMLTree {
    /// The tree of `dom` (a document or fragment node and its descendants): tests build deep trees
    /// by hand as `HTMLNode`s and walk them as the sanitizer does.
    init(dom: HTMLNode) {
        self.init(expectedNodes: 64)
        var pending: [(HTMLNode, NodeID)] = [(dom, HTMLTree.document)]
        while let (node, id) = pending.popLast() {
            for child in node.children {
                let made: NodeID
                switch child.kind {
                case .element:
                    made = makeElement(name: child.name, nameIndex: child.nameIndex, namespace: child.namespace, attributes: child.attributes)
                case .doctype:
                    made = makeDoctype(child.doctype ?? HTMLNode.Doctype(name: "", publicIdentifier: "", systemIdentifier: ""))
                case .text: made = makeText(child.data)
                case .comment: made = makeComment(child.data)
                case .document, .fragment: made = makeFragment()
                }
                append(made, to: id)
                if let contents = child.templateContents {
                    let fragment = makeFragment()
                    self[made].templateContents = fragment
                    pending.append((contents, fragment))
                }
                pending.append((child, made))
            }
        }
    }
}
