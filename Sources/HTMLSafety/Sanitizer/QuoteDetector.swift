/// FR-ED-01 quoted text: the reply markers of the common clients, and "On … wrote:" lines.
enum QuoteDetector {
    static let quoteClasses = ASCIIKeywordSet([
        "gmail_quote", "gmail_quote_container", "yahoo_quoted", "appleoriginalcontents", "moz-forward-container"
    ])

    /// Calls `body` with each class name of the element until it returns true.
    static func anyClass(of node: NodeID, in tree: HTMLTree, _ body: (ArraySlice<UInt8>) -> Bool) -> Bool {
        guard let value = tree.attributeBytes(node, "class") else { return false }
        var names = ClassTokens(value)
        while let name = names.next() {
            if body(name) { return true }
        }
        return false
    }

    static func hasClass(_ node: NodeID, in tree: HTMLTree, _ name: StaticString) -> Bool {
        anyClass(of: node, in: tree) { ASCIIBytes.equals($0, name) }
    }

    /// A quote container: `<blockquote>`, Gmail's `div.gmail_quote`, Yahoo's, Apple Mail's.
    static func isQuote(_ node: NodeID, in tree: HTMLTree) -> Bool {
        guard tree[node].isElement, tree[node].namespace == .html else { return false }
        switch tree[node].tagName {
        case .blockquote: return true
        case .div: return anyClass(of: node, in: tree) { quoteClasses.contains($0) }
        default: return false
        }
    }

    /// Outlook's reply separator: everything from it to the end of its parent is the quote.
    static func startsOutlookQuote(_ node: NodeID, in tree: HTMLTree) -> Bool {
        guard tree[node].isElement, let id = tree.attributeBytes(node, "id")?[...] else { return false }
        return ASCIIBytes.equals(id, "appendonsend") || ASCIIBytes.equals(id, "divrplyfwdmsg")
            || ASCIIBytes.equals(id, "x_divrplyfwdmsg") || ASCIIBytes.equals(id, "x_appendonsend")
    }

    static let attributionEndings = [
        "wrote:", "schrieb:", "a écrit :", "a écrit:", "escribió:", "ha scritto:", "schreef:", "skrev:", "kirjoitti:",
        "napisał(a):", "napsal(a):", "написал(а):", "написал:", "escreveu:", "yazdı:", "написа:", "έγραψε:", "wrote :"
    ]

    /// Longer text is not an attribution line.
    static let attributionLimit = 1200

    static func isAttributionText(_ text: String) -> Bool {
        guard text.utf8.count < attributionLimit else { return false }
        let trimmed = text.trimmingASCIIWhitespace.lowercased()
        return attributionEndings.contains { trimmed.hasSuffix($0) }
    }

    static func isBlank(_ node: NodeID, in tree: HTMLTree) -> Bool {
        if tree[node].isText { return !tree[node].data.contains { $0 > 32 } }
        return tree[node].isElement && tree[node].namespace == .html && tree[node].tagName == .br
    }

    /// The node is an "On … wrote:" line directly before a quote among its siblings.
    static func isAttribution(_ node: NodeID, in tree: HTMLTree) -> Bool {
        guard !isBlank(node, in: tree) else { return false }
        var next = tree[node].nextSibling
        while next.exists, isBlank(next, in: tree) { next = tree[next].nextSibling }
        guard next.exists, isQuote(next, in: tree) else { return false }
        return isAttributionText(shortText(of: node, in: tree))
    }

    /// The node's text, read no further than `attributionLimit`: every node before a quote is
    /// asked, and nested ones each read the text of all those inside them.
    static func shortText(of node: NodeID, in tree: HTMLTree) -> String {
        var text: [UInt8] = []
        tree.appendText(of: node, to: &text, limit: attributionLimit)
        return String(decoding: text, as: UTF8.self)
    }

    /// The attribution line among the siblings before `quote`, if there is one.
    static func attribution(before quote: NodeID, in tree: HTMLTree) -> NodeID? {
        var candidate = tree[quote].previousSibling
        while candidate.exists, isBlank(candidate, in: tree) { candidate = tree[candidate].previousSibling }
        guard candidate.exists else { return nil }
        return isAttributionText(shortText(of: candidate, in: tree)) ? candidate : nil
    }
}
