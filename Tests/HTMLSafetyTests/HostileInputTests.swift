import Foundation
import TernBenchmarks
import Testing

@testable import HTMLSafety

/// Issue 21: hostile-input costs in the parser, the tree walks, text extraction and linkify.
/// Time bounds here are generous (these tests run in debug builds, several times slower than the
/// release build `tern-bench hostile-html` measures); each is far below what the quadratic or
/// unbounded code took on the same input.
struct HostileInputTests {
    static func seconds(_ work: () -> Void) -> Double {
        let elapsed = ContinuousClock().measure(work)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    static func parseSanitizeAndExtract(_ bytes: [UInt8]) {
        _ = HTMLParser.parseDocument(bytes)
        _ = HTMLSanitizer.sanitize(bytes)
        _ = HTMLTextExtractor.text(fromHTML: bytes)
    }

    // MARK: - Tree building

    /// 10,000 nested `<div>` took 9 s in a debug build (the scope checks walked the whole stack on
    /// every start tag); these 24,000 took about a minute.
    @Test func nestedMarkupParsesInLinearTime() {
        let html = HostileHTML.shape(named: "nested div")!.make(120_000)
        #expect(Self.seconds { _ = HTMLParser.parseDocument(html) } < 8)
    }

    /// 10,000 attributes on one tag took 4.8 s (a search of the tag's attributes per attribute);
    /// these 33,000, close to a minute.
    @Test func manyAttributesParseInLinearTime() {
        let html = HostileHTML.shape(named: "attributes")!.make(300_000)
        var tag: HTMLTag?
        let time = Self.seconds {
            var tokenizer = HTMLTokenizer(html)
            if case .startTag(let first) = tokenizer.next() { tag = first }
        }
        #expect(time < 5)
        #expect(tag?.attributes.count ?? 0 > 30_000)
    }

    /// Past the threshold the names are in a set: a repeated name is still dropped, the first kept.
    @Test func repeatedAttributeNamesPastTheSetThresholdKeepTheFirst() {
        let names = (0..<40).map { " a\($0)=\($0)" }.joined()
        var tokenizer = HTMLTokenizer(Array("<p\(names) a3=late a39=late b=new>".utf8))
        guard case .startTag(let tag) = tokenizer.next() else {
            Issue.record("no start tag")
            return
        }
        #expect(tag.attributes.count == 41)
        #expect(tag.attribute("a3") == Array("3".utf8))
        #expect(tag.attribute("a39") == Array("39".utf8))
        #expect(tag.attribute("b") == Array("new".utf8))
    }

    /// A second `<html>` or `<body>` tag adds the attributes the element lacks (a search per
    /// attribute before: quadratic on a tag with many).
    @Test func aSecondHTMLTagAddsOnlyMissingAttributes() {
        let tree = HTMLParser.parseDocument(Array("<html a=1 b=2><body><html b=3 c=4>x".utf8))
        let html = tree.children.first { $0.isHTML("html") }
        #expect(
            html?.attributes.map { "\(String(decoding: $0.name, as: UTF8.self))=\(String(decoding: $0.value, as: UTF8.self))" }
                == ["a=1", "b=2", "c=4"])
        #expect(Self.seconds { _ = HTMLParser.parseDocument(HostileHTML.shape(named: "html attributes twice")!.make(300_000)) } < 5)
    }

    /// WebKit's `block-nesting-cap` test: with 514 nested `div`, the 512th and 513th are
    /// children of the 511th, one after the other.
    @Test func nestingPastTheCapMakesSiblingsAsWebKitDoes() {
        let markup = (0..<514).map { "<div id=d\($0)>" }.joined()
        let fragment = HTMLParser.parseFragment(Array(markup.utf8), context: "body")
        var byID: [String: HTMLNode] = [:]
        for node in fragment.descendants() { if let id = node.attribute("id") { byID[id] = node } }
        #expect(byID["d512"]?.parent === byID["d510"])
        #expect(byID["d511"]?.parent === byID["d510"])
        let siblings = byID["d510"]?.children ?? []
        #expect(siblings.count == 3 && siblings[1] === byID["d512"] && siblings[0] === byID["d511"])
    }

    /// Text after the cap still lands in the document, and the stack never holds more than the cap.
    @Test func theStackOfOpenElementsStaysWithinItsCapacity() {
        var builder = TreeBuilder(
            tokenizer: HTMLTokenizer(HostileHTML.shape(named: "nested mixed")!.make(100_000) + Array("end".utf8)),
            inputLength: 100_000)
        var deepest = 0
        while !builder.stopped {
            let token = builder.tokenizer.next()
            builder.dispatch(token)
            builder.tokenizer.allowsCDATA = builder.adjustedCurrentNode.map { $0.namespace != .html } ?? false
            deepest = max(deepest, builder.openElements.count)
            if case .endOfFile = token { break }
        }
        #expect(deepest <= OpenElementStack.capacity)
        #expect(builder.tree.textContent(builder.document).hasSuffix("end"))
    }

    /// Formatting elements that differ in an attribute escape Noah's Ark: `</p><p>x` made every
    /// one of them be recreated for each character (here 2,700 of them, 3,700 times).
    @Test func reconstructionOfFormattingElementsIsBounded() {
        let html = HostileHTML.shape(named: "formatting reopened")!.make(60_000)
        var tree: HTMLNode?
        #expect(Self.seconds { tree = HTMLParser.parseDocument(html) } < 10)
        // About one element per tag of input, and a few thousand reconstructed.
        #expect((tree?.descendants().count ?? .max) < 30_000)
    }

    /// Every shape of hostile markup, parsed, sanitized and read as text (small inputs: debug
    /// builds are slow; `tern-bench hostile-html` times a megabyte of each in a release build).
    @Test(arguments: HostileHTML.shapes.map(\.name))
    func everyHostileShapeIsHandledInBoundedTime(_ name: String) {
        let html = HostileHTML.shape(named: name)!.make(24_000)
        #expect(Self.seconds { Self.parseSanitizeAndExtract(html) } < 20, "\(name)")
    }

    // MARK: - Walks on a small stack

    /// Runs `work` on a thread with the stack a secondary thread gets on macOS (512 KiB); returns
    /// the seconds it took.
    static func onSmallStack(_ work: @escaping @Sendable () -> Void) -> Double {
        final class Timing: @unchecked Sendable { var seconds = 0.0 }
        let timing = Timing()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            timing.seconds = seconds(work)
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
        return timing.seconds
    }

    /// The recursive walks crashed on a 512 KiB stack at about 600 nested elements. 100,000
    /// here, of ten kinds (the bound is for debug builds; release times are in BENCHMARKS.md).
    @Test func deepMarkupIsSanitizedAndReadOnASmallStack() {
        let html = Array(String(repeating: "<div><span><b><blockquote><ul><li><i><font><em><section>", count: 10_000).utf8) + Array("deep".utf8)
        let seconds = Self.onSmallStack {
            let clean = HTMLSanitizer.sanitize(html)
            precondition(clean.html.contains("deep"))
            precondition(HTMLTextExtractor.text(fromHTML: html).hasSuffix("deep"))
        }
        #expect(seconds < 60)
    }

    /// A tree deeper than any the parser builds (100,000 levels, by hand): every walk over it and
    /// its teardown go without recursion. No links: each reads the text of the elements inside it,
    /// which the parser's depth cap bounds (a few hundred nested links at most) and a hand-built
    /// tree does not.
    @Test func everyWalkOfAVeryDeepTreeRunsOnASmallStack() {
        let seconds = Self.onSmallStack {
            let document = HTMLNode.document()
            let html = HTMLNode.element("html")
            let body = HTMLNode.element("body")
            document.append(html)
            html.append(body)
            var parent = body
            let kinds = ["div", "blockquote", "span", "font", "p", "td", "b", "details"]
            for level in 0..<100_000 {
                let node = HTMLNode.element(kinds[level % kinds.count], attributes: level % 8 == 3 ? [HTMLAttribute("style", "color: red")] : [])
                parent.append(node)
                parent = node
            }
            parent.append(HTMLNode.text(Array("deep".utf8)))
            precondition(document.textContent == "deep")
            precondition(String(decoding: HTMLSerializer.serialize(children: document), as: UTF8.self).contains("deep"))
            let tree = HTMLTree(dom: document)
            precondition(tree.textContent(HTMLTree.document) == "deep")
            var pass = SanitizerPass(options: SanitizeOptions())
            precondition(String(decoding: pass.run(tree), as: UTF8.self).contains("deep"))
            guard let treeHTML = tree.firstChild(of: HTMLTree.document, where: { $0.isHTML(.html) }),
                let treeBody = tree.firstChild(of: treeHTML, where: { $0.isHTML(.body) })
            else { preconditionFailure("no body") }
            var output = HTMLTextExtractor.Output(limit: HTMLTextExtractor.maximumTextBytes)
            HTMLTextExtractor.walk(treeBody, in: tree, into: &output)
            precondition(output.finished().hasSuffix("deep"))
            precondition(QuoteDetector.shortText(of: treeBody, in: tree) == "deep")
            // The trees are released here, at the end of the closure.
        }
        #expect(seconds < 60)
    }

    // MARK: - Text extraction

    /// 510 nested blockquotes, then line breaks: each line was prefixed with 510 `> `, and 2
    /// million breaks made about 2 GB of text.
    @Test func quotePrefixesAndTextAreBounded() {
        let html = HostileHTML.shape(named: "quotes, then breaks")!.make(400_000) + Array("<p>x".utf8)
        var text = ""
        // The unbounded form made 2 GB of text; a bound with room for a loaded machine still tells them apart.
        #expect(Self.seconds { text = HTMLTextExtractor.text(fromHTML: html) } < 30)
        let deepest = String(repeating: "> ", count: HTMLTextExtractor.maximumQuoteDepth)
        #expect(text.contains(deepest + "x"))
        #expect(!text.contains(deepest + ">"))
        #expect(text.utf8.count <= HTMLTextExtractor.maximumTextBytes)
    }

    @Test func extractedTextStopsAtItsLimit() {
        let words = String(repeating: "<p>wörd and more words</p>", count: 10_000)
        let text = HTMLTextExtractor.text(fromHTML: words, limit: 1_001)
        #expect(text.utf8.count <= 1_001 && text.utf8.count > 900)
        #expect(text.hasPrefix("wörd and more words\nwörd"))
        // One long text node: cut at a character boundary.
        let long = HTMLTextExtractor.text(fromHTML: String(repeating: "é", count: 5_000), limit: 1_001)
        #expect(long == String(repeating: "é", count: 500))
    }
}
