import FuzzSupport
import HTMLSafety
import TernCore

/// libFuzzer target for the composer's Markdown subset (`make fuzz-markdown`, FR-COMP-01): whatever
/// the text, the HTML parsed back with the project's own parser (in a body, as a mail reader reads
/// it) holds only text and `<b>`, `<i>`, `<br>` and `<a>` elements, with no attribute but an `<a>`'s
/// `href`, whose URL is http, https or mailto.
func fuzzOneInput(_ bytes: [UInt8]) {
    let rendering = MarkdownSubset.render(String(decoding: bytes, as: UTF8.self))
    let fragment = HTMLParser.parseFragment(Array(rendering.html.utf8), context: "body")
    var pending = fragment.children
    while let node = pending.popLast() {
        pending.append(contentsOf: node.children)
        if node.isText { continue }
        precondition(node.isElement, "a node that is neither text nor an element: \(node.kind)")
        precondition(["b", "i", "br", "a"].contains(where: node.isHTML), "element <\(node.name)> in the output")
        if node.isHTML("a") {
            let names = node.attributes.map { String(decoding: $0.name, as: UTF8.self) }
            precondition(names == ["href"], "<a> with attributes \(names)")
            let href = (node.attribute("href") ?? "").lowercased()
            precondition(["http://", "https://", "mailto:"].contains(where: href.hasPrefix), "href \(href)")
        } else {
            precondition(node.attributes.isEmpty, "<\(node.name)> with attributes")
        }
    }
}

@main
struct MarkdownFuzzerMain {
    static func main() {
        FuzzDriver.run(fuzzOneInput)
    }
}
