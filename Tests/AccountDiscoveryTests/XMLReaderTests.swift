import Testing

@testable import AccountDiscovery

/// The XML reader's subset and its caps.
@Suite struct XMLReaderTests {
    func parse(_ text: String) throws -> XMLElementNode { try XMLReader.parse(Array(text.utf8)) }

    @Test func readsElementsAttributesTextAndReferences() throws {
        let root = try parse("\u{FEFF}<?xml version='1.0'?><a:root xmlns:a='x' k=\"v &lt;1&gt;\"><b>x &#65;&#x42; <![CDATA[<c>]]></b><e/></a:root>")
        #expect(root.name == "root")
        #expect(root.attributes["k"] == "v <1>")
        #expect(root.child(named: "b")?.text == "x AB <c>")
        #expect(root.children.map(\.name) == ["b", "e"])
    }

    @Test func refusesWhatIsNotWellFormed() {
        for text in [
            "<a><b></a></b>", "<a>", "</a>", "<a x=1/>", "<a>&bogus;</a>", "<a>&#0;</a>", "<a/><b/>", "text<a/>", "", "<a><!-- x</a>",
            "<a x='<'/>"
        ] {
            #expect(throws: XMLReadError.self, "\(text)") { try parse(text) }
        }
    }

    @Test func declaredEntitiesAreNeverExpanded() {
        let laughs = "<!DOCTYPE a [<!ENTITY l \"lol\"><!ENTITY l2 \"&l;&l;&l;&l;\">]><a>&l2;</a>"
        #expect(throws: XMLReadError.malformed("the reference &l2; is not one of XML's own")) { try parse(laughs) }
    }

    @Test func depthAndSizeAreCapped() {
        let deep = String(repeating: "<a>", count: XMLReader.maxDepth + 1) + String(repeating: "</a>", count: XMLReader.maxDepth + 1)
        #expect(throws: XMLReadError.tooLarge("elements nested over \(XMLReader.maxDepth) deep")) { try parse(deep) }
        let wide = "<a>" + String(repeating: "<b/>", count: XMLReader.maxElements) + "</a>"
        #expect(throws: XMLReadError.tooLarge("over \(XMLReader.maxElements) elements")) { try parse(wide) }
        #expect(throws: XMLReadError.self) { try XMLReader.parse([UInt8](repeating: 0x20, count: XMLReader.maxBytes + 1)) }
    }
}
