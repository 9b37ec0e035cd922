import Foundation
import Testing

@testable import TernCore

/// FR-COMP-01 "Body Editor": the three constructs become `<b>`, `<i>` and `<a href>`; everything
/// else is literal. `make fuzz-markdown` checks with the HTML parser that no input writes another
/// tag or attribute.
@Suite struct MarkdownSubsetTests {
    func html(_ text: String) -> String { MarkdownSubset.render(text).html }
    func plain(_ text: String) -> String { MarkdownSubset.render(text).plain }

    @Test(arguments: [
        ("**bold**", "<b>bold</b>"),
        ("*italic*", "<i>italic</i>"),
        ("[Tern](https://tern.example/a?b=1&c=2)", "<a href=\"https://tern.example/a?b=1&amp;c=2\">Tern</a>"),
        ("[mail me](mailto:ana@example.org)", "<a href=\"mailto:ana@example.org\">mail me</a>"),
        ("[x](HTTP://EXAMPLE.ORG)", "<a href=\"HTTP://EXAMPLE.ORG\">x</a>"),
        ("**bold with *italic* inside**", "<b>bold with <i>italic</i> inside</b>"),
        ("*italic with **bold** inside*", "<i>italic with <b>bold</b> inside</i>"),
        ("[**bold link**](https://a.example)", "<a href=\"https://a.example\"><b>bold link</b></a>"),
        ("**[link](https://a.example) in bold**", "<b><a href=\"https://a.example\">link</a> in bold</b>"),
        ("a*b*c", "a<i>b</i>c")
    ])
    func constructs(_ input: String, _ expected: String) {
        #expect(html(input) == expected)
    }

    @Test(arguments: [
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("[x](javascript:alert(1))", "[x](javascript:alert(1))"),
        ("[x](data:text/html,hi)", "[x](data:text/html,hi)"),
        ("[x](https://a.example\"onclick=\"x)", "[x](https://a.example&quot;onclick=&quot;x)"),
        ("[x](https://a.example/<b>)", "[x](https://a.example/&lt;b&gt;)"),
        ("[x](https://)", "[x](https://)"),
        ("[](https://a.example)", "[](https://a.example)"),
        ("[x] (https://a.example)", "[x] (https://a.example)"),
        ("2 * 3 * 4", "2 * 3 * 4"),
        ("** not bold **", "** not bold **"),
        ("**unclosed", "**unclosed"),
        ("*unclosed", "*unclosed"),
        ("**bold\nacross lines**", "**bold<br>\nacross lines**"),
        (
            "# heading\n- list\n`code`\n![img](https://a.example/i.png)",
            "# heading<br>\n- list<br>\n`code`<br>\n!<a href=\"https://a.example/i.png\">img</a>"
        ),
        ("\\*not italic\\*", "*not italic*"),
        ("\\[x](https://a.example)", "[x](https://a.example)"),
        ("Tom & Jerry's \"show\"", "Tom &amp; Jerry&#39;s &quot;show&quot;"),
        ("&lt;", "&amp;lt;"),
        ("a\r\nb\rc", "a<br>\nb<br>\nc")
    ])
    func everythingElseIsLiteral(_ input: String, _ expected: String) {
        #expect(html(input) == expected)
    }

    @Test func plainAlternative() {
        #expect(
            plain("**bold** and *it* and [Tern](https://tern.example) and [https://a.example](https://a.example)")
                == "*bold* and _it_ and Tern <https://tern.example> and https://a.example")
        #expect(plain("\\*kept\\* [x](javascript:y)") == "*kept* [x](javascript:y)")
        #expect(plain("line 1\nline 2") == "line 1\nline 2")
    }

    @Test func documentWrapsTheFragment() {
        #expect(
            MarkdownSubset.render("**x**").htmlDocument
                == "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body><div><b>x</b></div></body></html>")
    }

    @Test func draftBecomesAnOutgoingMessageWithBothAlternatives() {
        let draft = ComposeDraft(
            mode: .reply, accountId: "a", from: EmailAddress(address: "me@example.org"),
            to: [EmailAddress(address: "ana@example.com")], subject: "Re: x", body: "**yes**",
            inReplyTo: "<m@x>", references: ["<r@x>", "<m@x>"])
        let message = draft.outgoingMessage(date: .distantPast)
        #expect(message.bodyPlain == "*yes*")
        #expect(message.bodyHTML?.contains("<b>yes</b>") == true)
        #expect(message.inReplyTo == "<m@x>" && message.references == ["<r@x>", "<m@x>"])
    }

    /// CO01-16: `![name](cid:id)` is an image only for a Content-ID the draft has; the alt is the name,
    /// else the file's; the plain text says `[image: …]`.
    @Test(arguments: [
        ("![chart](cid:image.1@tern.invalid)", "<img src=\"cid:image.1@tern.invalid\" alt=\"chart\">", "[image: chart]"),
        ("a ![](cid:image.1@tern.invalid) b", "a <img src=\"cid:image.1@tern.invalid\" alt=\"q3 chart.png\"> b", "a [image: q3 chart.png] b"),
        (
            "![\\[x\\] \"<b>\"](cid:image.1@tern.invalid)", "<img src=\"cid:image.1@tern.invalid\" alt=\"[x] &quot;&lt;b&gt;&quot;\">",
            "[image: [x] \"<b>\"]"
        ),
        ("**![x](cid:image.1@tern.invalid)**", "<b><img src=\"cid:image.1@tern.invalid\" alt=\"x\"></b>", "*[image: x]*"),
        ("![x](cid:other@tern.invalid)", "![x](cid:other@tern.invalid)", "![x](cid:other@tern.invalid)"),
        ("![x](cid:image.1@tern.invalid", "![x](cid:image.1@tern.invalid", "![x](cid:image.1@tern.invalid"),
        ("![x] (cid:image.1@tern.invalid)", "![x] (cid:image.1@tern.invalid)", "![x] (cid:image.1@tern.invalid)"),
        ("[x](cid:image.1@tern.invalid)", "[x](cid:image.1@tern.invalid)", "[x](cid:image.1@tern.invalid)"),
        ("\\![x](cid:image.1@tern.invalid)", "\\<img src=\"cid:image.1@tern.invalid\" alt=\"x\">", "\\[image: x]"),
        ("![x](https://a.example/i.png)", "!<a href=\"https://a.example/i.png\">x</a>", "!x <https://a.example/i.png>")
    ])
    func inlineImages(_ input: String, _ expectedHTML: String, _ expectedPlain: String) {
        let rendered = MarkdownSubset.render(input, images: ["image.1@tern.invalid": "q3 chart.png"])
        #expect(rendered.html == expectedHTML)
        #expect(rendered.plain == expectedPlain)
        #expect(rendered.imageContentIds == (expectedHTML.contains("<img") ? ["image.1@tern.invalid"] : []))
    }

    /// Without the draft's images nothing is an image: the text renders as before CO01-16.
    @Test func noImagesWithoutContentIds() {
        #expect(html("![x](cid:image.1@tern.invalid)") == "![x](cid:image.1@tern.invalid)")
    }

    /// RFC 2392's URL is the id percent-encoded: whatever a forwarded original's Content-ID holds, the attribute stays closed.
    @Test func contentIdsArePercentEncodedInTheURL() {
        let rendered = MarkdownSubset.render("![x](cid:a'b&c%d@x)", images: ["a'b&c%d@x": "f"])
        #expect(rendered.html == "<img src=\"cid:a%27b%26c%25d@x\" alt=\"x\">")
    }

    /// What the composer inserts reads back as the image, whatever the file's name.
    @Test(arguments: ["shot.png", "a [b] c\\d.png", "two\nlines.png", "*x* **y**.gif"])
    func insertedReferencesRender(_ name: String) {
        let reference = MarkdownSubset.imageReference(name: name, contentId: "image.9@tern.invalid")
        let rendered = MarkdownSubset.render("Hi \(reference) there", images: ["image.9@tern.invalid": name])
        #expect(rendered.imageContentIds == ["image.9@tern.invalid"])
        #expect(rendered.plain == "Hi [image: \(name.replacingOccurrences(of: "\n", with: " "))] there")
    }

    /// CO01-16, docs/decisions.md: a pasted image whose reference was deleted from the text is not sent;
    /// a forwarded original's inline parts go as before; the HTML shows the images the text keeps.
    @Test func outgoingMessageKeepsOnlyTheImagesTheTextShows() {
        func file(_ name: String, _ contentId: String?) -> ComposedAttachment {
            ComposedAttachment(
                source: .file(path: "/tmp/\(name)"), filename: name, mimeType: "image/png", sizeBytes: 3, availability: .local,
                contentId: contentId)
        }
        var draft = ComposeDraft(
            mode: .forward, accountId: "a", from: EmailAddress(address: "me@example.org"), to: [EmailAddress(address: "ana@example.com")],
            subject: "Fwd: x", body: "See ![](cid:kept@tern.invalid)")
        draft.attachments = [
            file("kept.png", "kept@tern.invalid"), file("gone.png", "gone@tern.invalid"), file("plain.pdf", nil),
            ComposedAttachment(
                source: .storedAttachment(id: 7), filename: "logo.png", mimeType: "image/png", sizeBytes: 3, availability: .local,
                contentId: "logo@original")
        ]
        let loaded = draft.attachments.map {
            OutgoingAttachment(filename: $0.filename, mimeType: $0.mimeType, data: Data([1]), contentId: $0.contentId)
        }
        let message = draft.outgoingMessage(date: .distantPast, attachments: loaded)
        #expect(message.attachments.map(\.filename) == ["kept.png", "plain.pdf", "logo.png"])
        #expect(message.bodyHTML?.contains("<img src=\"cid:kept@tern.invalid\" alt=\"kept.png\">") == true)
        #expect(message.bodyPlain == "See [image: kept.png]")
    }

    /// Unclosed marks in bulk: every failed search is remembered, so this is linear. Before the
    /// URL scans were remembered, `[x](` repeated took 130 s here; a generous bound in a debug build.
    @Test func hostileRunsStayLinear() {
        let clock = ContinuousClock()
        for mark in ["[", "*", "**", "[x]", "[x](", "[x](https://", "[x](https://\"", "*a", "**a ", "[x](https://a)\\"] {
            let input = String(repeating: mark, count: 200_000 / mark.count)
            let elapsed = clock.measure { #expect(!html(input).isEmpty) }
            #expect(elapsed < .seconds(20), "\(mark)")
        }
        // CO01-16's images: every `![` before one `]` or one long `(cid:…` is looked at once.
        for mark in ["![", "![x](cid:", "![x](cid:aaaaaaaa", "![![x](cid:i@x", "![x](cid:i@x)"] {
            let input = String(repeating: mark, count: 200_000 / mark.count) + "](cid:" + String(repeating: "a", count: 100_000) + ")"
            let elapsed = clock.measure { #expect(!MarkdownSubset.render(input, images: ["i@x": "i.png"]).html.isEmpty) }
            #expect(elapsed < .seconds(20), "\(mark)")
        }
    }
}
