import FuzzSupport
import HTMLSafety

/// libFuzzer target for the HTML parser and sanitizer (`make fuzz-html`): any bytes parse and
/// sanitize without crashing; sanitizing is idempotent; the output parses back to the same tree;
/// the text extracted stays within its limit.
func fuzzOneInput(_ bytes: [UInt8]) {
    for allow in [false, true] {
        let options = SanitizeOptions(allowRemoteImages: allow)
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
}

@main
struct HTMLFuzzerMain {
    static func main() {
        FuzzDriver.run(fuzzOneInput)
    }
}
