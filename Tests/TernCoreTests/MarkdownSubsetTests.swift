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

    /// Unclosed marks in bulk: every failed search is remembered, so this is linear. Before the
    /// URL scans were remembered, `[x](` repeated took 130 s here; a generous bound in a debug build.
    @Test func hostileRunsStayLinear() {
        let clock = ContinuousClock()
        for mark in ["[", "*", "**", "[x]", "[x](", "[x](https://", "[x](https://\"", "*a", "**a ", "[x](https://a)\\"] {
            let input = String(repeating: mark, count: 200_000 / mark.count)
            let elapsed = clock.measure { #expect(!html(input).isEmpty) }
            #expect(elapsed < .seconds(20), "\(mark)")
        }
    }
}
