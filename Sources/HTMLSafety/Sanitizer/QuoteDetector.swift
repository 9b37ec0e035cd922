/// FR-ED-01 quoted text: the reply markers of the common clients, and "On … wrote:" lines.
enum QuoteDetector {
    static let quoteClasses = ASCIIKeywordSet(["gmail_quote", "gmail_quote_container", "yahoo_quoted", "appleoriginalcontents", "moz-forward-container"])

    /// Calls `body` with each class name of the element until it returns true.
    static func anyClass(of node: HTMLNode, _ body: (ArraySlice<UInt8>) -> Bool) -> Bool {
        guard let value = node.attributeBytes("class") else { return false }
        var names = ClassTokens(value)
        while let name = names.next() {
            if body(name) { return true }
        }
        return false
    }

    static func hasClass(_ node: HTMLNode, _ name: StaticString) -> Bool {
        anyClass(of: node) { ASCIIBytes.equals($0, name) }
    }

    /// A quote container: `<blockquote>`, Gmail's `div.gmail_quote`, Yahoo's, Apple Mail's.
    static func isQuote(_ node: HTMLNode) -> Bool {
        guard node.isElement, node.namespace == .html else { return false }
        switch node.tagName {
        case .blockquote: return true
        case .div: return anyClass(of: node) { quoteClasses.contains($0) }
        default: return false
        }
    }

    /// Outlook's reply separator: everything from it to the end of its parent is the quote.
    static func startsOutlookQuote(_ node: HTMLNode) -> Bool {
        guard node.isElement, let id = node.attributeBytes("id")?[...] else { return false }
        return ASCIIBytes.equals(id, "appendonsend") || ASCIIBytes.equals(id, "divrplyfwdmsg")
            || ASCIIBytes.equals(id, "x_divrplyfwdmsg") || ASCIIBytes.equals(id, "x_appendonsend")
    }

    static let attributionEndings = [
        "wrote:", "schrieb:", "a écrit :", "a écrit:", "escribió:", "ha scritto:", "schreef:", "skrev:", "kirjoitti:",
        "napisał(a):", "napsal(a):", "написал(а):", "написал:", "escreveu:", "yazdı:", "написа:", "έγραψε:", "wrote :",
    ]

    /// Longer text is not an attribution line.
    static let attributionLimit = 1200

    static func isAttributionText(_ text: String) -> Bool {
        guard text.utf8.count < attributionLimit else { return false }
        let trimmed = text.trimmingASCIIWhitespace.lowercased()
        return attributionEndings.contains { trimmed.hasSuffix($0) }
    }

    static func isBlank(_ node: HTMLNode) -> Bool {
        if node.isText { return !node.data.contains { $0 > 32 } }
        return node.isElement && node.namespace == .html && node.tagName == .br
    }

    /// The node is an "On … wrote:" line directly before a quote.
    static func isAttribution(_ node: HTMLNode, followedBy rest: ArraySlice<HTMLNode>) -> Bool {
        guard !isBlank(node), let next = rest.first(where: { !isBlank($0) }), isQuote(next) else { return false }
        return isAttributionText(shortText(of: node))
    }

    /// The node's text, read no further than `attributionLimit`: every node before a quote is
    /// asked, and nested ones each read the text of all those inside them.
    static func shortText(of node: HTMLNode) -> String {
        var text: [UInt8] = []
        node.appendText(to: &text, limit: attributionLimit)
        return String(decoding: text, as: UTF8.self)
    }

    /// The attribution line before the quote at `index`, if there is one.
    static func attribution(before index: Int, in children: [HTMLNode]) -> HTMLNode? {
        var position = index - 1
        while position >= 0, isBlank(children[position]) { position -= 1 }
        guard position >= 0 else { return nil }
        let candidate = children[position]
        return isAttributionText(shortText(of: candidate)) ? candidate : nil
    }
}
