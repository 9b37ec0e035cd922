/// HTML bodies as plain text, for terminals, search and snippets: the text a reader sees, with
/// line breaks where blocks and `<br>` break lines; nothing from `head`, scripts, styles or
/// templates, and quoted history marked with `>` as a plain-text reply would.
///
/// Bounded for hostile markup (issue 21): quote prefixes stop at `maximumQuoteDepth` levels, and
/// the text at `limit` bytes. Before, 510 nested blockquotes and then 2 million `<br>` (8 MB of
/// markup) made about 2 GB of text, past SQLite's string limit, and the sync batch indexing it
/// failed on every sync.
public enum HTMLTextExtractor {
    /// Deeper quotes are marked as this deep: plain-text replies rarely show more.
    public static let maximumQuoteDepth = 16
    /// The default bound of the text, in UTF-8 bytes: what search indexes of an HTML-only body.
    public static let maximumTextBytes = 4 * 1024 * 1024

    public static func text(fromHTML html: String, limit: Int = maximumTextBytes) -> String {
        text(fromHTML: Array(html.utf8), limit: limit)
    }

    /// At most `limit` bytes of text, cut at a character boundary.
    public static func text(fromHTML html: [UInt8], limit: Int = maximumTextBytes) -> String {
        let tree = HTMLParser.parseDocumentTree(html).tree
        guard let root = tree.firstChild(of: HTMLTree.document, where: { $0.isHTML(known: htmlElement, in: .html) }),
            let body = tree.firstChild(of: root, where: { $0.isHTML(known: bodyElement, in: .html) })
        else { return "" }
        var output = Output(limit: limit)
        walk(body, in: tree, into: &output)
        return output.finished()
    }

    static let htmlElement: HTMLTagSet = ["html"]
    static let bodyElement: HTMLTagSet = ["body"]
    static let skipped: HTMLTagSet = ["script", "style", "template", "head", "title", "noscript", "svg", "math", "select", "textarea"]
    static let blocks: HTMLTagSet = [
        "p", "div", "section", "article", "header", "footer", "aside", "nav", "main", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol",
        "li", "table", "tr", "pre", "hr", "address", "center", "dl", "dt", "dd", "figure", "figcaption", "details", "summary"
    ]
    static let cells: HTMLTagSet = ["td", "th"]

    struct Output {
        let limit: Int
        var lines: [String] = []
        /// The bytes of `lines`, a line break counted after each.
        var size = 0
        var current = ""
        var pendingSpace = false
        var quoteDepth = 0

        init(limit: Int) { self.limit = limit }

        /// The text has reached `limit`: the walk stops.
        var isFull: Bool { size + current.utf8.count >= limit }

        /// Runs of white space become one space; the runs between are copied whole (scalar by
        /// scalar, not Character by Character: this is on every HTML-only message a sync indexes).
        mutating func append(_ text: Substring) {
            let scalars = text.unicodeScalars
            var runStart: String.Index?
            var index = scalars.startIndex
            while index != scalars.endIndex {
                let scalar = scalars[index]
                let isSpace = scalar.isASCII ? scalar == " " || ("\t"..."\r").contains(scalar) : scalar.properties.isWhitespace
                if isSpace {
                    if let start = runStart { appendWord(text[start..<index]) }
                    runStart = nil
                    pendingSpace = !current.isEmpty
                } else if runStart == nil {
                    runStart = index
                }
                index = scalars.index(after: index)
            }
            if let start = runStart { appendWord(text[start..<scalars.endIndex]) }
        }

        private mutating func appendWord(_ word: Substring) {
            if pendingSpace { current.append(" ") }
            pendingSpace = false
            current += word
        }

        mutating func breakLine(blank: Bool = false) {
            if !current.isEmpty || blank {
                let line = String(repeating: "> ", count: min(quoteDepth, HTMLTextExtractor.maximumQuoteDepth)) + current
                size += line.utf8.count + 1
                lines.append(line)
            }
            current = ""
            pendingSpace = false
        }

        mutating func finished() -> String {
            breakLine()
            var result: [String] = []
            for line in lines {
                let trimmed = line.trimmingASCIIWhitespace
                if trimmed.isEmpty || trimmed.allSatisfy({ $0 == ">" || $0 == " " }), result.last?.isEmpty ?? true { continue }
                result.append(trimmed.allSatisfy({ $0 == ">" || $0 == " " }) ? "" : line)
            }
            while result.last?.isEmpty == true { result.removeLast() }
            let text = result.joined(separator: "\n")
            guard text.utf8.count > limit else { return text }
            // One text node can take the last line past the limit: cut before the character the
            // limit falls in (continuation bytes are 10xxxxxx).
            let bytes = Array(text.utf8)
            var cut = max(limit, 0)
            while cut > 0, bytes[cut] & 0xC0 == 0x80 { cut -= 1 }
            return String(decoding: bytes[..<cut], as: UTF8.self)
        }
    }

    /// Depth first with an explicit stack (`HTMLTree.walkDescendants`), not recursion: a deep tree
    /// overflowed a secondary thread's stack (issue 21). Nodes are asked through their `header`
    /// (see `HTMLTree.Header`).
    static func walk(_ body: NodeID, in tree: HTMLTree, into output: inout Output) {
        tree.walkDescendants(of: body) { child, _ in
            if output.isFull { return .stop }
            let node = tree[child].header
            if node.isText {
                output.append(Substring(String(decoding: tree[child].data, as: UTF8.self)))
                return .skipChildren
            }
            guard node.isElement, !node.isHTML(skipped) else { return .skipChildren }
            if node.isHTML(.br) {
                output.breakLine(blank: true)
                return .skipChildren
            }
            if node.isHTML(.blockquote) {
                output.breakLine()
                output.quoteDepth += 1
                return .descend
            }
            if node.isHTML(blocks) { output.breakLine() }
            if node.isHTML(.img), let alt = tree.attribute(child, "alt"), !alt.isEmpty { output.append(Substring("[\(alt)]")) }
            return .descend
        } leave: { id in
            let node = tree[id].header
            if node.isHTML(.blockquote) {
                output.breakLine()
                output.quoteDepth -= 1
                return
            }
            if node.isHTML(cells) { output.pendingSpace = true }
            if node.isHTML(blocks) { output.breakLine() }
        }
    }
}
