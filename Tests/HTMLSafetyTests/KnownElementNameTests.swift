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
