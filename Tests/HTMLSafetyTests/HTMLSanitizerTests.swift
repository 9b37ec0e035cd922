import Foundation
import Testing

@testable import HTMLSafety

/// One test per FR-ED-04 rule, and the properties the sanitizer promises.
struct HTMLSanitizerTests {
    static func clean(_ html: String, allowRemote: Bool = false) -> SanitizedHTML {
        HTMLSanitizer.sanitize(html, options: SanitizeOptions(allowRemoteImages: allowRemote))
    }

    @Test(arguments: [
        "<script>alert(1)</script>", "<noscript><p>x</p></noscript>", "<iframe src=\"https://x.example\"></iframe>",
        "<frameset><frame src=x></frameset>", "<object data=x></object>", "<embed src=x>", "<applet code=x></applet>",
        "<form action=x><input name=a><button>b</button><select><option>o</select><textarea>t</textarea></form>",
        "<meta http-equiv=\"refresh\" content=\"0;url=https://x.example\">", "<base href=\"https://x.example/\">",
        "<link rel=\"stylesheet\" href=\"https://x.example/a.css\">", "<svg><script>alert(1)</script></svg>", "<math><mi>x</mi></math>",
        "<template><img src=x onerror=alert(1)></template>"
    ])
    func dangerousElementsAreRemoved(_ html: String) {
        let result = Self.clean(html + "<p>kept</p>").html.lowercased()
        for word in [
            "<script", "<noscript", "<iframe", "<frame", "<object", "<embed", "<applet", "<form", "<input", "<select", "<textarea",
            "<meta", "<base", "<link", "<svg", "<math", "<template", "alert", "action="
        ] {
            #expect(!result.contains(word), "\(word) in \(result)")
        }
        // A frameset document has no body at all (browsers drop the paragraph too): plain text then.
        if html.hasPrefix("<frameset") {
            #expect(Self.clean(html + "<p>kept</p>").fallbackToPlainText)
        } else {
            #expect(result.contains("<p>kept</p>"))
        }
    }

    @Test func eventHandlersAndUnknownAttributesAreRemoved() {
        let result = Self.clean("<p onclick=a() onmouseover=b ONLOAD=c id=x data-x=y style=\"color: red\" class=c>t</p>").html
        #expect(result == "<p style=\"color: red\" class=\"c\">t</p>")
    }

    @Test(arguments: [
        "javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)", "java&#x09;script:alert(1)",
        "&#106;avascript:alert(1)", "&#x6A;&#x61;&#x76;&#x61;script:alert(1)", "\u{01}javascript:alert(1)", "vbscript:msgbox(1)",
        "data:text/html,<script>alert(1)</script>", "data:text/html;base64,PHNjcmlwdD4=", "file:///etc/passwd", "jav&#x0A;ascript:x",
        "tel:+123", "/relative/path", "//protocol.relative/x"
    ])
    func nonWebLinksAreNeutralised(_ href: String) {
        let result = Self.clean("<a href=\"\(href)\">x</a>").html
        #expect(result == "<a>x</a>", "\(href) → \(result)")
    }

    @Test func webLinksOpenOutsideWithoutReferrer() {
        let result = Self.clean("<a href=\" https://example.org/a?b=1&amp;c=2 \">x</a><a href=\"mailto:a@example.org\">m</a>").html
        #expect(result.contains("href=\"https://example.org/a?b=1&amp;c=2\""))
        #expect(result.contains("target=\"_blank\" rel=\"noopener noreferrer\""))
        #expect(result.contains("href=\"mailto:a@example.org\""))
    }

    @Test func linksShowingAnotherHostAreMarked() {
        let phishing = Self.clean("<a href=\"https://evil.example/login\">https://www.mybank.com/login</a>")
        #expect(phishing.suspiciousLinks == 1)
        #expect(phishing.html.contains("data-tern-real-host=\"evil.example\""))
        let honest = Self.clean("<a href=\"https://www.mybank.com/login?x=1\">www.mybank.com</a><a href=\"https://x.example\">Click here</a>")
        #expect(honest.suspiciousLinks == 0)
    }

    @Test func dataImagesStayOnlyInImagesAndNeverAsSVG() {
        let png = Self.clean("<img src=\"data:image/png;base64,iVBORw0KGgo=\" alt=a>").html
        #expect(png.contains("src=\"data:image/png;base64,iVBORw0KGgo=\""))
        #expect(!Self.clean("<img src=\"data:image/svg+xml;base64,PHN2Zz4=\">").html.contains("data:"))
        #expect(!Self.clean("<a href=\"data:image/png;base64,AAAA\">x</a>").html.contains("data:"))
    }

    // MARK: - Remote content

    @Test func remoteImagesAreBlockedByDefaultAndCounted() {
        let result = Self.clean("<img src=\"https://cdn.example.com/a.png\" alt=\"Logo\"><img src=\"http://cdn.example.com/b.png\" width=600>")
        #expect(result.remoteImagesBlocked == 2)
        #expect(!result.html.contains("cdn.example.com"))
        #expect(result.html.contains("class=\"tern-blocked-image\""))
        #expect(result.html.contains(">Logo</span>"))
    }

    @Test func remoteImagesLoadWhenAllowed() {
        let result = Self.clean("<img src=\"https://cdn.example.com/a.png\" width=600 onerror=x>", allowRemote: true)
        #expect(result.html == "<img width=\"600\" src=\"https://cdn.example.com/a.png\">")
        #expect(result.remoteImagesBlocked == 0)
    }

    @Test func everyRemoteReferenceIsBlocked() {
        let html = """
            <table background="https://x.example/bg.png"><tr><td style="background-image: url('https://x.example/c.png')">a</td></tr></table>
            <img srcset="https://x.example/1.png 1x, https://x.example/2.png 2x"><video poster="https://x.example/p.png"></video>
            <style>body { background: url(https://x.example/s.png) } @import url(https://x.example/i.css); @font-face { src: url(https://x.example/f.woff) }</style>
            """
        let result = Self.clean(html)
        #expect(!result.html.contains("x.example"), "\(result.html)")
        #expect(result.remoteImagesBlocked >= 5)
        let allowed = Self.clean(html, allowRemote: true)
        #expect(allowed.html.contains("background=\"https://x.example/bg.png\""))
        #expect(!allowed.html.contains("i.css"))
        #expect(!allowed.html.contains("f.woff"))
    }

    // MARK: - CSS

    @Test(arguments: [
        "width: expression(alert(1))", "behavior: url(x.htc)", "-moz-binding: url(x.xml#x)", "background: url(javascript:alert(1))",
        "position: fixed; top: 0", "position: absolute", "position: sticky", "color: red\\;x: expression(1)", "wid\\74h: 1px",
        "background-image: ur\\6c(https://x.example/a.png)", "background: url(\"vbscript:x\")", "background: image-set('https://x.example/a.png' 1x)"
    ])
    func dangerousCSSIsDropped(_ style: String) {
        let result = Self.clean("<p style=\"\(style)\">x</p>", allowRemote: true).html.lowercased()
        for word in ["expression", "behavior", "binding", "javascript", "vbscript", "fixed", "absolute", "sticky", "x.example", "\\"] {
            #expect(!result.contains(word), "\(style) → \(result)")
        }
    }

    @Test func safeCSSIsKept() {
        let result = Self.clean("<p style=\"color: #333; font-family: 'Helvetica Neue', Arial; padding: 4px 8px; position: relative\">x</p>").html
        #expect(result.contains("color: #333; font-family: 'Helvetica Neue', Arial; padding: 4px 8px; position: relative"))
    }

    @Test func styleBlocksKeepTheirRulesButNotAtRules() {
        let result = Self.clean(
            """
            <style>@import "https://x.example/a.css"; @charset "utf-8"; .a { color: red; position: fixed } @media (max-width: 600px) { .b { width: 100% } }
            @font-face { font-family: X; src: url(https://x.example/x.woff) } </style></head><body><p class=a>x</p><style>p { margin: 0 }</style>
            """
        ).html
        // Every selector also excludes the interface's markers (CSSSanitizerTests).
        let exclusion = CSSSanitizerTests.exclusion
        #expect(result.contains(".a\(exclusion) { color: red }"))
        #expect(result.contains("@media (max-width: 600px) {"))
        #expect(result.contains(".b\(exclusion) { width: 100% }"))
        #expect(result.contains("p\(exclusion) { margin: 0 }"))
        #expect(!result.contains("@import"))
        #expect(!result.contains("@font-face"))
        #expect(!result.contains("fixed"))
    }

    @Test func styleTextCannotCloseTheStyleElement() {
        let result = Self.clean("<style>p { color: red } </style ><script>alert(1)</script></style>").html
        #expect(!result.contains("<script"))
        let injected = Self.clean("<style>a { font-family: '</style><script>alert(1)</script>' }</style>").html
        #expect(!injected.contains("<script"))
    }

    // MARK: - Trackers

    @Test(arguments: [
        "<img src=\"https://news.example/p.gif\" width=\"1\" height=\"1\">", "<img src=\"https://news.example/p.gif\" width=0 height=0>",
        "<img src=\"https://news.example/p.gif\" style=\"width:1px;height:1px\">",
        "<img src=\"https://news.example/p.gif\" style=\"width: 0; height: 0\">",
        "<img src=\"https://news.example/p.gif\" style=\"width:0.75pt;height:0.75pt\">",
        "<img src=\"https://news.example/p.gif\" width=\"1px\" height=\"1px\">",
        "<div style=\"display:none\"><img src=\"https://news.example/p.gif\"></div>",
        "<div style=\"visibility: hidden\"><p><img src=\"https://news.example/p.gif\"></p></div>",
        "<span style=\"opacity:0\"><img src=\"https://news.example/p.gif\"></span>", "<img src=\"https://t.yesware.com/t/abc/def.png\" width=600>",
        "<img src=\"https://u123.ct.sendgrid.net/wf/open?upn=x\" width=600 height=300>"
    ])
    func trackersAreRemovedEvenWhenRemoteImagesAreAllowed(_ html: String) {
        for allow in [false, true] {
            let result = Self.clean(html, allowRemote: allow)
            #expect(result.trackersBlocked == 1, "\(html) allow=\(allow)")
            #expect(!result.html.contains("<img"), "\(result.html)")
            #expect(!result.html.contains("tern-blocked-image"))
        }
    }

    @Test func trackerHostsAreReported() {
        let result = Self.clean(
            "<img src=\"https://t.yesware.com/t/1.gif\"><img src=\"https://a.example/x.gif\" width=1 height=1><img src=\"https://t.yesware.com/t/2.gif\">"
        )
        #expect(result.trackersBlocked == 3)
        #expect(result.trackerHosts == ["a.example", "t.yesware.com"])
    }

    @Test func cidImagesArePlaceholdersNotTrackers() {
        let result = Self.clean("<img src=\"cid:logo@example\" width=1 height=1 alt=Logo>")
        #expect(result.trackersBlocked == 0)
        #expect(result.remoteImagesBlocked == 0)
        #expect(result.html.contains("Inline image not available"))
    }

    @Test func realImagesOnTrackerDomainsWithPathRulesStay() {
        let result = Self.clean("<img src=\"https://mcusercontent.list-manage.com/images/hero.png\" width=600>", allowRemote: true)
        #expect(result.trackersBlocked == 0)
        #expect(result.html.contains("hero.png"))
    }

    @Test func everyBlocklistEntryMatchesItsShapeOnly() {
        let list = TrackerBlocklist.bundled
        #expect(list.entries.count >= 50)
        for entry in list.entries {
            let path = (entry.pathPrefix ?? "/open/") + "pixel.gif"
            if let host = entry.host {
                #expect(list.matches(url: "https://\(host)\(path)"), "\(host)")
                #expect(list.match(host: "other-" + host, path: path)?.host != host, "\(host) must match exactly")
            }
            if let domain = entry.domain {
                #expect(list.matches(url: "https://\(domain)\(path)"), "\(domain)")
                #expect(list.matches(url: "https://sub.\(domain)\(path)"), "sub.\(domain)")
                #expect(list.match(host: "not" + domain, path: path) == nil || list.match(host: "not" + domain, path: path)?.domain != domain)
                if let prefix = entry.pathPrefix {
                    let other = list.match(host: domain, path: "/images/logo.png")
                    #expect(other == nil || other?.pathPrefix != prefix, "\(domain) matched outside \(prefix)")
                }
            }
        }
    }

    // MARK: - Quoted text

    @Test(arguments: [
        ("<p>Reply</p><blockquote><p>Original</p></blockquote>", "<p>Reply</p>"),
        (
            "<div>Reply</div><div class=\"gmail_quote\"><div class=\"gmail_attr\">On Mon, A wrote:<br></div><blockquote>x</blockquote></div>",
            "<div>Reply</div>"
        ),
        ("<div>Reply</div><div id=\"appendonsend\"></div><hr><div id=\"divRplyFwdMsg\"><b>From:</b> A</div><div>Original</div>", "<div>Reply</div>"),
        ("<div>Reply</div><div id=\"divRplyFwdMsg\"><b>From:</b> A</div><div>Original</div>", "<div>Reply</div>"),
        ("<div>Reply</div><div class=\"AppleOriginalContents\"><div>Original</div></div>", "<div>Reply</div>"),
        ("<div>Reply</div><div class=\"yahoo_quoted\">Original</div>", "<div>Reply</div>")
    ])
    func quotesAreFoldedIntoDetails(_ input: (String, String)) {
        let result = Self.clean(input.0)
        #expect(result.hasQuotedText)
        #expect(result.html.hasPrefix(input.1 + "<details class=\"tern-quote\"><summary>Show quoted text</summary>"), "\(result.html)")
        #expect(!result.html.contains("<details open"))
    }

    @Test func attributionLineGoesWithTheQuote() {
        let result = Self.clean("<p>Thanks!</p><p>On Tue, 3 Nov 2026, Bob &lt;bob@example.org&gt; wrote:</p><blockquote>earlier</blockquote>")
        #expect(result.html.hasPrefix("<p>Thanks!</p><details class=\"tern-quote\"><summary>Show quoted text</summary><p>On Tue"))
    }

    @Test func deeplyNestedQuotesStayOneFold() {
        let nested = String(repeating: "<blockquote>level", count: 12) + String(repeating: "</blockquote>", count: 12)
        let result = Self.clean("<p>top</p>" + nested)
        #expect(result.html.components(separatedBy: "<details").count == 2)
        #expect(result.html.components(separatedBy: "<blockquote>").count == 13)
    }

    // MARK: - Properties

    static let samples = [
        "<p>Hello <b>world</b></p>", "<table><tr><td>a<td>b</table>", "<a href=https://x.example>https://y.example</a>",
        "<p><img src=https://cdn.example/a.png alt=x></p><blockquote>q</blockquote>", "<div style=\"color:red;position:fixed\">x</div>",
        "<a><table><a>broken</table>", "<p>1<p>2<b>3<i>4</b>5</i>", "<style>.x{color:red}</style><p class=x>y</p>",
        "<img src=cid:a@b><img src=\"https://t.yesware.com/t/1.gif\">", "<ul><li>one<li>two</ul>", "<font color=red face=Arial>x</font>",
        "<pre>\n\ncode</pre>", "<p>On Mon, A wrote:</p><blockquote><blockquote>deep</blockquote></blockquote>"
    ]

    @Test(arguments: samples)
    func sanitizingTwiceChangesNothing(_ html: String) {
        for allow in [false, true] {
            let once = Self.clean(html, allowRemote: allow).html
            let twice = Self.clean(once, allowRemote: allow).html
            #expect(once == twice, "\(html)\n1: \(once)\n2: \(twice)")
        }
    }

    @Test(arguments: samples)
    func outputReparsesToTheSameTree(_ html: String) {
        let once = Self.clean(html).html
        let tree = HTMLParser.parseFragment(Array(once.utf8), context: "body")
        let again = HTMLParser.parseFragment(HTMLSerializer.serialize(children: tree), context: "body")
        #expect(HTMLSerializer.serialize(children: tree) == HTMLSerializer.serialize(children: again))
    }

    @Test func emptyResultAsksForThePlainTextBody() {
        #expect(Self.clean("<script>only script</script>").fallbackToPlainText)
        #expect(Self.clean("<iframe src=x></iframe><object></object>").fallbackToPlainText)
        #expect(!Self.clean("<p>text</p>").fallbackToPlainText)
        #expect(!Self.clean("<img src=https://cdn.example/a.png>").fallbackToPlainText)
    }
}

struct PlainTextRendererTests {
    @Test func escapesKeepsLinesAndLinks() {
        let html = PlainTextRenderer.render("Hi <b>&\nSee https://example.org/a?b=1&c=2, or www.example.net.\nmail: mailto:a@example.org").html
        #expect(html.contains("Hi &lt;b&gt;&amp;<br>"))
        #expect(html.contains("<a href=\"https://example.org/a?b=1&amp;c=2\" target=\"_blank\" rel=\"noopener noreferrer\""))
        #expect(html.contains("<a href=\"https://www.example.net\""))
        #expect(html.contains(">www.example.net</a>."))
        #expect(!html.contains("javascript"))
    }

    /// Issue 37: a plain-text body's links are cleaned as an HTML body's are; the text stays as written.
    @Test func plainTextLinksAreCleanedOfTheirTracking() {
        let google = "https://www.google.com/url?q=https%3A%2F%2Fshop.example%2Fitem%3Fid%3D9%26utm_source%3Dmail&sa=D"
        let text = """
            Sale: https://shop.example/sale?id=4&utm_source=mail&fbclid=X.
            Wrapped: \(google)
            Tracked: https://u1.ct.sendgrid.net/ls/click?upn=abc
            Refused: https://www.google.com/url?q=javascript%3Aalert(1)
            > Quoted https://a.example/?utm_medium=m
            """
        let result = PlainTextRenderer.render(text)
        let html = result.html
        let cleanedSale = #"<a href="https://shop.example/sale?id=4" target="_blank" rel="noopener noreferrer" "#
        #expect(html.contains(cleanedSale + #"title="https://shop.example/sale?id=4">"#))
        #expect(html.contains(">https://shop.example/sale?id=4&amp;utm_source=mail&amp;fbclid=X</a>."), "the text as written")
        #expect(html.contains(#"<a href="https://shop.example/item?id=9""#))
        #expect(html.contains(#"data-tern-tracked-host="u1.ct.sendgrid.net""#))
        #expect(!html.contains("javascript%3A") || !html.contains(#"href="https://www.google.com/url?q=javascript"#))
        #expect(!html.contains(#"href="javascript"#))
        #expect(html.contains(#"<a href="https://a.example/""#))
        #expect(result.links == LinkCleaning(cleaned: 3, unwrapped: 1, tracked: 1, trackedHosts: ["u1.ct.sendgrid.net"]))
        #expect(!PlainTextRenderer.render(text, linkRules: nil).html.contains(#"<a href="https://shop.example/sale?id=4""#))
    }

    @Test func quotedLinesFold() {
        let result = PlainTextRenderer.render("Sure.\n\nOn Mon, Bob wrote:\n> first\n>> second\nBye")
        #expect(result.hasQuotedText)
        #expect(
            result.html.contains(
                "<details class=\"tern-quote\"><summary>Show quoted text</summary><blockquote>On Mon, Bob wrote:<br>first<br>second</blockquote></details>"
            ))
        #expect(result.html.contains("Bye"))
    }

    @Test func scriptsInPlainTextAreJustText() {
        let html = PlainTextRenderer.render("<script>alert(1)</script> javascript:alert(1)").html
        #expect(!html.contains("<script"))
        #expect(!html.contains("href=\"javascript"))
    }

    /// A search of the rest of the line for each link (after lowercasing it) was quadratic.
    @Test func linkifyIsLinear() {
        let line = String(repeating: "see https://a.example/page, ", count: 20_000)
        var html = ""
        #expect(ContinuousClock().measure { html = PlainTextRenderer.render(line).html } < .seconds(5))
        #expect(html.components(separatedBy: "<a href=").count - 1 == 20_000)
        #expect(html.contains(">https://a.example/page</a>, see"))
    }

    @Test func aLinkStartingInsideAWordIsNoLinkButLaterOnesAre() {
        let html = PlainTextRenderer.render("xhttps://a.example/x and https://b.example/y").html
        #expect(!html.contains("href=\"https://a.example"))
        #expect(html.contains("href=\"https://b.example/y\""))
    }
}

struct DeepNestingTests {
    /// Found in review: 20,000 nested divs overflowed the stack of the recursive tree walks (which
    /// are iterative now; the stack of open elements is capped: HostileInputTests).
    @Test func hostileNestingIsCappedLikeChromium() {
        let html = String(repeating: "<div>", count: 1_200) + "deep" + String(repeating: "<b>", count: 300) + "er"
        let result = HTMLSanitizer.sanitize(html)
        #expect(result.html.contains("deep"))
        #expect(result.html.contains("er"))
        // Depth, not count: beyond the limit the elements are siblings, so "</div></div>…" runs are short.
        let tree = HTMLParser.parseDocument(Array(html.utf8))
        var depth = 0
        var node: HTMLNode? = tree
        while let current = node {
            depth += 1
            node = current.children.last(where: { $0.isElement })
        }
        #expect(depth <= HTMLSafety.TreeBuilder.maximumDepth + 2)
    }

    /// Issue 37's privacy report: each remote load that is not a tracker, by host, whether remote
    /// content is blocked or allowed; trackers and `data:` images are not among them.
    @Test(arguments: [false, true])
    func remoteLoadsAreCountedByHost(allowRemote: Bool) {
        let html = """
            <p>Hi</p><img src="https://img.shop.example/a.png" width="300" height="200"><img src="https://img.shop.example/b.png" width="300" height="200">
            <table background="https://cdn.example/bg.png"><tr><td style="background: url(https://cdn.example/cell.png)">x</td>
            <td style="background: url(https://cdn.example/cell.png)">again</td></tr></table>
            <img src="https://pixel.example/o.gif" width="1" height="1"><img src="data:image/png;base64,iVBORw0KGgo=" width="30" height="30">
            """
        let result = HTMLSanitizerTests.clean(html, allowRemote: allowRemote)
        #expect(result.remoteHostCounts == ["img.shop.example": 2, "cdn.example": 3], "\(result.remoteHostCounts)")
        #expect(result.trackersBlocked == 1)
    }
}
