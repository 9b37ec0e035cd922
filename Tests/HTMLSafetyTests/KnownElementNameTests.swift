import Testing

@testable import HTMLSafety

struct KnownElementNameTests {
    @Test func everyNameLooksUpToItsOwnCase() {
        for name in HTMLTagName.allCases where name != .unknown {
            #expect(KnownElementName.index(of: name.elementName) == name.rawValue, "\(name.elementName)")
            #expect(HTMLTag(name: Array(name.elementName.lowercased().utf8)).tagName == name)
        }
        #expect(KnownElementName.index(of: "no-such-element") == 0)
        #expect(HTMLTag(name: Array("custom-thing".utf8)).tagName == .unknown)
    }

    @Test func tagSetsHoldExactlyTheirMembers() {
        let set: HTMLTagSet = ["td", "th", "annotation-xml"]
        #expect(set.contains("td") && set.contains("th") && set.contains("annotation-xml"))
        #expect(!set.contains("tr") && !set.contains("") && !set.contains("unknown-name"))
    }
}

struct HTMLTextExtractorTests {
    @Test func blocksBreakLinesAndHiddenPartsAreLeftOut() {
        let html = """
            <html><head><title>T</title><style>p{}</style></head><body>
            <p>Hello   <b>there</b>,</p><div>second<br>line</div><script>alert(1)</script>
            <table><tr><td>a</td><td>b</td></tr></table><img alt="Logo" src="x">
            <blockquote><p>quoted</p><blockquote>deeper</blockquote></blockquote><p>after</p>
            </body></html>
            """
        #expect(HTMLTextExtractor.text(fromHTML: html) == "Hello there,\nsecond\nline\na b\n[Logo]\n> quoted\n> > deeper\nafter")
    }

    @Test func emptyAndHostileInputGivesText() {
        #expect(HTMLTextExtractor.text(fromHTML: "") == "")
        #expect(HTMLTextExtractor.text(fromHTML: "<p>a<p>b") == "a\nb")
        #expect(HTMLTextExtractor.text(fromHTML: String(repeating: "<div>", count: 5000) + "deep") == "deep")
    }
}
