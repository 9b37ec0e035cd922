import Foundation
import Testing

@testable import HTMLSafety

/// Issue 21's CSS findings: the style sheet a browser reads from the output is the one the
/// sanitizer checked; nesting is bounded and costs no stack; mail cannot carry or select the
/// interface's markers; a pixel hidden by the document's own style rules is a tracker.
struct CSSSanitizerTests {
    static func clean(_ html: String, allowRemote: Bool = false) -> String {
        HTMLSanitizer.sanitize(html, options: SanitizeOptions(allowRemoteImages: allowRemote)).html
    }

    static func sheet(_ css: String) -> String {
        var sanitizer = CSSSanitizer(allowRemote: false)
        return sanitizer.sanitizeStyleSheet(css)
    }

    static func declarations(_ css: String, allowRemote: Bool = false) -> String {
        var sanitizer = CSSSanitizer(allowRemote: allowRemote)
        return sanitizer.sanitizeDeclarations(css)
    }

    static let exclusion = ":not(:where(.tern-quote,.tern-quote>summary,.tern-link-mismatch,.tern-blocked-image,.tern-inline-image))"

    // MARK: - The parsing differential

    /// The review's vector: a `}` inside an unclosed `rgb(` and a quote that the old splitter read
    /// as a string made a full-window overlay come out unchanged and stable.
    @Test func theReviewVectorKeepsNoOverlay() {
        let html = """
            <style>a { color: rgb( }
            ) ' { font-family: 'x; position: fixed; z-index: 2147483647; top: 0; left: 0; width: 100vw; height: 100vh; content: "x"; y' }
            } b { color: red }</style><p>x</p>
            """
        let once = Self.clean(html)
        for word in ["position", "fixed", "z-index", "2147483647", "content", "top:", "left:"] {
            #expect(!once.contains(word), "\(word) in \(once)")
        }
        // A browser reads the rest of the text as the `a` rule's declarations (the function
        // swallows the `}`, the bad string ends at the line's end): those allowed stay in it.
        #expect(once.contains("a\(Self.exclusion) { width: 100vw; height: 800px }"), "\(once)")
        #expect(once.contains("b\(Self.exclusion) { color: red }"), "\(once)")
        #expect(Self.clean(once) == once)
    }

    @Test(arguments: [
        // Where a declaration or rule ends, as CSS Syntax 3 has it.
        ("color: red{; width: 1px", ""), // the block runs to the end: one invalid declaration
        ("color: red; width: 1px{", "color: red"),
        ("color: rgb(1, 2, 3; width: 1px", ""), // the function runs to the end
        ("width: 1px; @media x { color: red } height: 2px", "width: 1px; height: 2px"),
        ("a:hover { color: red } width: 1px", "width: 1px"), // a nested rule, then a declaration
        ("color: red; x { position: absolute; } ; height: 1px", "color: red; height: 1px"),
        // What the input's end closes is closed in the output.
        ("color: rgb(1, 2, 3", "color: rgb(1, 2, 3)"),
        ("font-family: 'Helvetica Neue", "font-family: 'Helvetica Neue'"),
        ("background: url(data:image/png;base64,AAAA", "background: url(data:image/png;base64,AAAA)"),
        ("width: calc(1px + (2px", "width: calc(1px + (2px))"),
        // Tokens, not text: a comment that joins two tokens stays, a bad string or URL drops.
        ("border: 1px/**/solid red", "border: 1px/**/solid red"),
        ("border: 1px /* x */ solid", "border: 1px solid"),
        ("font-family: 'a\n; color: red", "color: red"),
        ("background: url(x y); color: red", "color: red"),
        ("color: red; x: 'a; color: blue'; width: 1px", "color: red; width: 1px"),
        ("display: inline!important", "display: inline !important"),
        ("color: red !IMPORTANT", "color: red !important"),
        // Functions and token kinds a value may not hold.
        ("color: var(--brand)", ""), ("width: attr(width)", ""), ("color: red; color: [x]", "color: red"),
        ("color: rgb(1 2 3) ) ", ""), ("color: red : blue", ""), ("color: <!-- red", "")
    ])
    func declarationsAreReadAsABrowserReadsThem(_ input: (String, String)) {
        #expect(Self.declarations(input.0) == input.1, "\(input.0.debugDescription)")
    }

    @Test(arguments: [
        // A `;` at the top of a sheet is part of the next rule's prelude, which is then no selector.
        ("a { color: red }; b { color: blue }", ["a"]),
        // A stray `}` at the top belongs to the prelude as well.
        ("} a { color: red } b { color: blue }", ["b"]),
        // A function or bracket in a prelude runs past braces to its own closer.
        ("a:not( { ) { color: red } b { color: blue }", []),
        ("a[x='}'] { color: red }", ["a[x='}']"]),
        // Nested style rules inside a rule are not the rule's declarations.
        ("a { color: red; b { width: 1px } height: 1px }", ["a"]),
        // An unclosed block ends with the sheet.
        ("a { color: red", ["a"])
    ])
    func rulesEndWhereABrowserEndsThem(_ input: (String, [String])) {
        let output = Self.sheet(input.0)
        let selectors = output.split(separator: "\n").map { String($0.prefix { $0 != " " }).replacingOccurrences(of: Self.exclusion, with: "") }
        #expect(selectors == input.1, "\(output)")
    }

    @Test func nestedRuleDeclarationsDoNotJoinTheirParent() {
        #expect(Self.sheet("a { color: red; b { width: 1px } height: 1px }") == "a\(Self.exclusion) { color: red; height: 1px }\n")
    }

    @Test func groupRulePreludesAreWrittenFromTheirTokens() {
        let output = Self.sheet(
            "@MEDIA screen  and (max-width:600px){ .x { width: 100% } } @media (a<b) { .y { color: red } } @supports (display: grid) { .z { display: grid } }"
        )
        #expect(
            output
                == "@media screen and (max-width:600px) {\n.x\(Self.exclusion) { width: 100% }\n}\n@supports (display: grid) {\n.z\(Self.exclusion) { display: grid }\n}\n"
        )
    }

    @Test func styleSheetTextCannotCloseTheStyleElement() {
        for css in [
            "a[title='</style><script>x</script>'] { color: red }", "a { font-family: '</style><script>x</script>' }",
            "a { color: red } </style ><script>x</script>"
        ] {
            let output = Self.clean("<style>\(css)</style><p>x</p>")
            #expect(!output.contains("<script"), "\(output)")
            #expect(output.components(separatedBy: "</style>").count <= 2, "\(output)")
        }
    }

    @Test func remoteURLsInStyleSheetsFollowTheRemoteSetting() {
        let css = "<style>td { background: url(\"https://x.example/a.png\") } p { background-image: url(https://x.example/b.png) }</style><p>x</p>"
        let blocked = HTMLSanitizer.sanitize(css)
        #expect(!blocked.html.contains("x.example"))
        #expect(blocked.remoteImagesBlocked == 2)
        let allowed = Self.clean(css, allowRemote: true)
        #expect(allowed.contains("url(\"https://x.example/a.png\")") && allowed.contains("url(https://x.example/b.png)"))
    }

    // MARK: - Nesting

    /// Issue 21: 5,000 nested `@media` (60 KB) took 9 s and overflowed a 1 MiB stack. On a
    /// thread with 512 KiB of stack (a secondary thread's on macOS) it must finish, quickly
    /// (the bound is ten times the issue's 100 ms).
    @Test func deepNestingNeedsNoStackAndLittleTime() throws {
        let depth = 5_000
        let inputs = [
            "<style>" + String(repeating: "@media screen{", count: depth) + "a{color:red}" + String(repeating: "}", count: depth)
                + "</style><p>x</p>",
            "<style>" + String(repeating: "a{", count: depth) + String(repeating: "}", count: depth) + "</style><p>x</p>",
            "<p style=\"color: " + String(repeating: "rgb(", count: 20_000) + "\">x</p>",
            "<style>a:not(" + String(repeating: "[", count: 20_000) + "{color:red}</style><p>x</p>"
        ]
        for html in inputs {
            let (output, seconds) = try Self.sanitizeOnSmallStack(html)
            #expect(output.hasSuffix("<p>x</p>"), "\(output.prefix(200))")
            #expect(seconds < 1, "\(seconds) s for \(html.prefix(40))")
        }
    }

    @Test func groupRulesKeepTheirContentToTheNestingLimit() {
        func nested(_ depth: Int) -> String {
            String(repeating: "@media screen{", count: depth) + "a{color:red}" + String(repeating: "}", count: depth)
        }
        let kept = Self.sheet(nested(CSSSanitizer.maximumNesting))
        #expect(kept.components(separatedBy: "@media").count - 1 == CSSSanitizer.maximumNesting)
        #expect(kept.contains("color: red"))
        #expect(Self.sheet(nested(CSSSanitizer.maximumNesting + 1)).isEmpty)
    }

    /// Sanitizes on a thread whose stack is 512 KiB; the output and the seconds it took.
    static func sanitizeOnSmallStack(_ html: String) throws -> (String, Double) {
        final class Result: @unchecked Sendable {
            var output = ""
            var seconds = 0.0
            let done = DispatchSemaphore(value: 0)
        }
        let result = Result()
        let thread = Thread {
            let start = Date()
            result.output = HTMLSanitizer.sanitize(html).html
            result.seconds = Date().timeIntervalSince(start)
            result.done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        result.done.wait()
        return (result.output, result.seconds)
    }

    // MARK: - The interface's markers

    @Test func mailLosesTheSanitizersClasses() {
        let output = Self.clean(
            """
            <p class="tern-link-mismatch">a</p><p class="x TERN-quote y">b</p><span class="tern-blocked-image">fake</span>\
            <a href="https://a.example/" class="tern-link-mismatch">honest</a>
            """)
        #expect(
            output
                == "<p>a</p><p class=\"x y\">b</p><span>fake</span><a href=\"https://a.example/\" target=\"_blank\" rel=\"noopener noreferrer\" title=\"https://a.example/\">honest</a>",
            "\(output)")
        #expect(Self.clean(output) == output)
    }

    @Test func theSanitizersOwnMarkersSurviveTheNextPass() {
        let html = "<a href=\"https://a.example/\" class=\"k\">www.b.example</a><img src=\"https://c.example/i.png\" alt=\"Logo\"><img src=\"cid:x\">"
        let once = Self.clean(html)
        #expect(once.contains("class=\"k tern-link-mismatch\""))
        #expect(once.contains("class=\"tern-blocked-image\""))
        #expect(once.contains("class=\"tern-inline-image\""))
        #expect(Self.clean(once) == once)
        // Found by the fuzz target: the mark after a class list ending in whitespace came out
        // with two spaces, and one on the next cleaning.
        for classes in ["s ", "x\t", " ", " y tern-z\t"] {
            let marked = Self.clean("<a href=\"https://a.example/\" class=\"\(classes)\">www.b.example</a>")
            #expect(marked.contains("tern-link-mismatch"))
            #expect(Self.clean(marked) == marked, "\(classes.debugDescription): \(marked)")
        }
    }

    @Test func styleRulesCannotSelectTheMarkers() {
        let output = Self.sheet(
            """
            .tern-link-mismatch { display: none } a.TERN-x, p { color: red } [class*="tern-"] { color: red } :has(#tern-x) { color: red }
            a::before, p:first-line, h1 > p:hover { color: blue } a > { color: red }
            """)
        #expect(output == "a\(Self.exclusion)::before, p\(Self.exclusion):first-line, h1 > p:hover\(Self.exclusion) { color: blue }\n", "\(output)")
        // The exclusion an earlier pass wrote is read back as the sanitizer's, not the mail's.
        #expect(Self.sheet(output) == output)
    }

    // MARK: - Pixels hidden by the document's style rules

    @Test(arguments: [
        "<style>.hide { display: none }</style><div class=\"x hide\"><img src=\"https://news.example/p.gif\"></div>",
        "<style>#pixel { visibility: hidden }</style><p id=\"pixel\"><img src=\"https://news.example/p.gif\"></p>",
        "<style>span { opacity: 0 }</style><span><b><img src=\"https://news.example/p.gif\"></b></span>",
        "<style>img.open { display: none !important }</style><img class=\"open\" src=\"https://news.example/p.gif\">",
        "<style>.px { width: 1px; height: 1px }</style><img class=\"px\" src=\"https://news.example/p.gif\">",
        "<style>.w { width: 0 }</style><img class=\"w\" height=\"1\" src=\"https://news.example/p.gif\">",
        "<body><img class=\"h\" src=\"https://news.example/p.gif\"><style>.H { max-height: 0 }</style></body>"
    ])
    func pixelsHiddenByStyleRulesAreTrackers(_ html: String) {
        for allow in [false, true] {
            let result = HTMLSanitizer.sanitize(html + "<p>text</p>", options: SanitizeOptions(allowRemoteImages: allow))
            #expect(result.trackersBlocked == 1, "\(html) allow=\(allow)")
            #expect(!result.html.contains("<img") && !result.html.contains("class=\"tern-blocked-image\""), "\(result.html)")
        }
    }

    @Test(arguments: [
        // Responsive layout, not hiding: rules inside @media are not read.
        "<style>@media (max-width: 600px) { .desktop { display: none } }</style><div class=\"desktop\"><img src=\"https://news.example/a.png\"></div>",
        // Selectors beyond one compound, and rules for other elements.
        "<style>div .hide { display: none } .other { display: none } p.hide { display: none }</style><div class=\"hide\"><img src=\"https://news.example/a.png\"></div>",
        "<style>.big { width: 600px; height: 300px }</style><img class=\"big\" src=\"https://news.example/a.png\">",
        // The interface's markers are never selected.
        "<style>details { display: none }</style><p>Reply</p><blockquote><img src=\"https://news.example/a.png\"></blockquote>"
    ])
    func imagesNotHiddenByStyleRulesStay(_ html: String) {
        let result = HTMLSanitizer.sanitize(html, options: SanitizeOptions(allowRemoteImages: true))
        #expect(result.trackersBlocked == 0, "\(html)")
        #expect(result.html.contains("src=\"https://news.example/a.png\""), "\(result.html)")
    }
}

/// Issue 39: a body frame is as tall as its content, so lengths in the viewport's height are
/// written as pixels of a nominal 800 px viewport; widths keep following the frame.
extension CSSSanitizerTests {
    @Test func viewportHeightsBecomePixelsOfTheNominalViewport() {
        #expect(Self.declarations("height: 100vh") == "height: 800px")
        #expect(Self.declarations("min-height: 50.5svh; max-height: 10DVH") == "min-height: 404px; max-height: 80px")
        #expect(Self.declarations("height: calc(100vh - 2rem)") == "height: calc(800px - 2rem)")
        #expect(Self.declarations("width: 100vw; height: 12.345vmin") == "width: 100vw; height: 98.76px")
        #expect(Self.declarations("margin-top: -10vh") == "margin-top: -80px")
        #expect(Self.declarations("height: 1e2vh") == "height: 1e2vh")
        #expect(Self.sheet("div { height: 100lvh }").contains("height: 800px"))
        #expect(Self.clean(#"<div style="height: 100vh">x</div>"#).contains("height: 800px"))
    }

    @Test func onlyAViewportUnitIsRead() {
        #expect(ViewportLengths.pixels(forDimension: ArraySlice("100px".utf8)) == nil)
        #expect(ViewportLengths.pixels(forDimension: ArraySlice("vh".utf8)) == nil)
        #expect(ViewportLengths.pixels(forDimension: ArraySlice("99999999vh".utf8)) == nil)
        #expect(ViewportLengths.pixels(forDimension: ArraySlice("+25vh".utf8)) == Array("200px".utf8))
    }
}
