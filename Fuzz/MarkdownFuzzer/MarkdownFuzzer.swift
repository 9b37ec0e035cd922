import FuzzSupport
import HTMLSafety
import TernCore

/// libFuzzer target for the composer's Markdown subset (`make fuzz-markdown`, FR-COMP-01): whatever
/// the text, the HTML parsed back with the project's own parser (in a body, as a mail reader reads
/// it) holds only text and `<b>`, `<i>`, `<br>` and `<a>` elements, with no attribute but an `<a>`'s
/// `href`, whose URL is http, https or mailto; and, with CO01-16's inline images named (`images`), `<img>`
/// with only `src`, a `cid:` of one of them, and `alt`.
func fuzzOneInput(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    check(MarkdownSubset.render(text), images: [:])
    // Content-IDs an input can name, one with the bytes a forwarded original's may hold.
    let images = ["i@x": "a.png", "a'b&c\"d@x": "b\"<c>.png"]
    check(MarkdownSubset.render(text, images: images), images: images)
}

func check(_ rendering: MarkdownSubset.Rendering, images: [String: String]) {
    let cids = Set(images.keys.map { String(decoding: MarkdownSubset.cidURL(Array($0.utf8)), as: UTF8.self) })
    let fragment = HTMLParser.parseFragment(Array(rendering.html.utf8), context: "body")
    var pending = fragment.children
    while let node = pending.popLast() {
        pending.append(contentsOf: node.children)
        if node.isText { continue }
        precondition(node.isElement, "a node that is neither text nor an element: \(node.kind)")
        precondition(["b", "i", "br", "a", "img"].contains(where: node.isHTML), "element <\(node.name)> in the output")
        if node.isHTML("img") {
            let names = node.attributes.map { String(decoding: $0.name, as: UTF8.self) }
            precondition(names == ["src", "alt"], "<img> with attributes \(names)")
            precondition(cids.contains(node.attribute("src") ?? ""), "img src \(node.attribute("src") ?? "")")
        } else if node.isHTML("a") {
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
