// INTERIM: replaced by the tree builder's parseDocumentTree
extension HTMLParser {
    /// The document as an `HTMLTree`, with the count of HTML `style` elements
    /// (`parseDocumentCountingStyles`).
    static func parseDocumentTree(_ bytes: [UInt8]) -> (tree: HTMLTree, htmlStyleElements: Int) {
        let parsed = parseDocumentCountingStyles(bytes)
        return (HTMLTree(dom: parsed.document), parsed.htmlStyleElements)
    }
}
