/// HTML bodies as plain text, for terminals, search and snippets: the text a reader sees, with
/// line breaks where blocks and `<br>` break lines; nothing from `head`, scripts, styles or
/// templates, and quoted history marked with `>` as a plain-text reply would.
public enum HTMLTextExtractor {
    public static func text(fromHTML html: String) -> String { text(fromHTML: Array(html.utf8)) }

    public static func text(fromHTML html: [UInt8]) -> String {
        let document = HTMLParser.parseDocument(html)
        guard let root = document.children.first(where: { $0.isHTML("html") }),
              let body = root.children.first(where: { $0.isHTML("body") }) else { return "" }
        var output = Output()
        walk(body, into: &output, quoteDepth: 0)
        return output.finished()
    }

    static let skipped: HTMLTagSet = ["script", "style", "template", "head", "title", "noscript", "svg", "math", "select", "textarea"]
    static let blocks: HTMLTagSet = [
        "p", "div", "section", "article", "header", "footer", "aside", "nav", "main", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol",
        "li", "table", "tr", "pre", "hr", "address", "center", "dl", "dt", "dd", "figure", "figcaption", "details", "summary",
    ]

    struct Output {
        var lines: [String] = []
        var current = ""
        var pendingSpace = false
        var quoteDepth = 0

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
            let prefix = String(repeating: "> ", count: quoteDepth)
            if !current.isEmpty || blank { lines.append(prefix + current) }
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
            return result.joined(separator: "\n")
        }
    }

    static func walk(_ node: HTMLNode, into output: inout Output, quoteDepth: Int) {
        for child in node.children {
            if child.isText {
                output.append(Substring(String(decoding: child.data, as: UTF8.self)))
                continue
            }
            guard child.isElement, !child.isHTML(skipped) else { continue }
            if child.isHTML("br") {
                output.breakLine(blank: true)
                continue
            }
            if child.isHTML("blockquote") {
                output.breakLine()
                output.quoteDepth = quoteDepth + 1
                walk(child, into: &output, quoteDepth: quoteDepth + 1)
                output.breakLine()
                output.quoteDepth = quoteDepth
                continue
            }
            let block = child.isHTML(blocks)
            if block { output.breakLine() }
            if child.isHTML("img"), let alt = child.attribute("alt"), !alt.isEmpty { output.append(Substring("[\(alt)]")) }
            walk(child, into: &output, quoteDepth: quoteDepth)
            if child.isHTML("td") || child.isHTML("th") { output.pendingSpace = true }
            if block { output.breakLine() }
        }
    }
}
