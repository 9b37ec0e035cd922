import FuzzSupport
import HTMLSafety

/// libFuzzer target for the HTML parser and sanitizer (`make fuzz-html`): any bytes parse and
/// sanitize without crashing; sanitizing is idempotent (with link cleaning on, and off in one
/// mode); the output parses back to the same tree; the text extracted stays within its limit; the
/// input read as one link cleans to an http(s) or mailto link, or none, that cleans to itself.
func fuzzOneInput(_ bytes: [UInt8]) {
    for (allow, cleanLinks) in [(false, true), (true, true), (true, false)] {
        let options = SanitizeOptions(allowRemoteImages: allow, cleanLinks: cleanLinks)
        let once = HTMLSanitizer.sanitize(bytes, options: options)
        let twice = HTMLSanitizer.sanitize(Array(once.html.utf8), options: options)
        precondition(once.html == twice.html, "sanitize is not idempotent")
        let tree = HTMLParser.parseFragment(Array(once.html.utf8), context: "body")
        let markup = HTMLSerializer.serialize(children: tree)
        let again = HTMLSerializer.serialize(children: HTMLParser.parseFragment(markup, context: "body"))
        precondition(markup == again, "sanitized output does not reparse to the same tree")
    }
    precondition(HTMLTextExtractor.text(fromHTML: bytes, limit: 4096).utf8.count <= 4096, "extracted text past its limit")
    _ = PlainTextRenderer.render(String(decoding: bytes, as: UTF8.self))
    fuzzLinkCleaning(String(decoding: bytes.prefix(8192), as: UTF8.self))
}

/// Issue 37: the first 8 KB of the input as a link's href (seeds `links-*`).
func fuzzLinkCleaning(_ href: String) {
    let cleaned = LinkCleaner.clean(href)
    guard let url = cleaned.url else { return }
    let again = LinkCleaner.clean(url)
    precondition(again.url == url && again.unwraps == 0 && again.parametersRemoved == 0, "link cleaning is not idempotent")
    if cleaned.unwraps > 0 {
        let scheme = url.prefix { $0 != ":" }.lowercased()
        precondition(["http", "https", "mailto"].contains(scheme), "unwrapped to a refused scheme")
    }
}

@main
struct HTMLFuzzerMain {
    static func main() {
        FuzzDriver.run(fuzzOneInput)
    }
}
