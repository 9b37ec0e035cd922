import Foundation

/// What the caller decides for one message (FR-ED-04): remote images load only when the user
/// allowed them for this message or its sender (TrustedSender). Trackers go either way.
public struct SanitizeOptions: Sendable {
    public var allowRemoteImages: Bool
    public var blocklist: TrackerBlocklist
    /// Issue 37: links lose their tracking parameters, redirectors are unwrapped, opaque click
    /// trackers are marked (`LinkCleaner`). Off only to measure what it costs.
    public var cleanLinks: Bool
    public var linkRules: LinkTrackingRules

    public init(
        allowRemoteImages: Bool = false, blocklist: TrackerBlocklist = .bundled, cleanLinks: Bool = true,
        linkRules: LinkTrackingRules = .bundled
    ) {
        self.allowRemoteImages = allowRemoteImages
        self.blocklist = blocklist
        self.cleanLinks = cleanLinks
        self.linkRules = linkRules
    }
}

/// Trackers blocked, by what would have loaded them (issue 37); `SanitizedHTML.trackersBlocked` is their sum.
public struct TrackerKinds: Sendable, Hashable, Codable {
    /// Pixels and blocklisted images (`img`, `background`).
    public var images = 0
    /// Style that loads on interaction (`:hover`, `:active`, `:focus`… backgrounds) or fills in
    /// content (`content: url()`): blocked even when remote images are allowed.
    public var css = 0
    /// `@font-face` rules with a remote source: blocked always, the app's fonts stand in.
    public var fonts = 0

    public init(images: Int = 0, css: Int = 0, fonts: Int = 0) {
        self.images = images
        self.css = css
        self.fonts = fonts
    }
}

/// What link cleaning did to a message's links (issue 37).
public struct LinkCleaning: Sendable, Hashable, Codable {
    /// Links that lost tracking parameters.
    public var cleaned = 0
    /// Links whose redirector was unwrapped to the destination it held.
    public var unwrapped = 0
    /// Links through an opaque click tracker (marked "tracked link: goes through HOST first").
    public var tracked = 0
    /// The click trackers those links go through, sorted.
    public var trackedHosts: [String] = []

    public init(cleaned: Int = 0, unwrapped: Int = 0, tracked: Int = 0, trackedHosts: [String] = []) {
        self.cleaned = cleaned
        self.unwrapped = unwrapped
        self.tracked = tracked
        self.trackedHosts = trackedHosts
    }
}

/// The sanitized body and what was done to it, for the UI's notices ("3 trackers blocked").
public struct SanitizedHTML: Sendable, Hashable, Codable {
    public var html: String
    public var trackersBlocked: Int
    public var trackerHosts: [String]
    public var remoteImagesBlocked: Int
    public var hasQuotedText: Bool
    /// FR-ED-04: "if sanitization fails or produces empty output", show the plain-text body.
    public var fallbackToPlainText: Bool
    /// Links whose visible text names another host than their destination.
    public var suspiciousLinks: Int
    public var trackerKinds = TrackerKinds()
    public var links = LinkCleaning()
    /// Issue 37: remote loads that are not trackers, by host: blocked ones (what the message would
    /// contact if allowed) and, when remote images are allowed, the ones kept.
    public var remoteHostCounts: [String: Int] = [:]
}

/// FR-ED-04's sanitizer, on the tree the WHATWG parser builds (what a browser would build), with an
/// allow-list of elements and attributes. Its output is its own fixed point: the markup is parsed
/// and cleaned a second time, so what the web view parses is exactly what was checked.
public enum HTMLSanitizer {
    public static func sanitize(_ html: [UInt8], options: SanitizeOptions = SanitizeOptions()) -> SanitizedHTML {
        sanitize(html, options: options, alwaysSecondPass: false)
    }

    /// `alwaysSecondPass` is for the tests that hold the single pass to what two give.
    static func sanitize(_ html: [UInt8], options: SanitizeOptions, alwaysSecondPass: Bool) -> SanitizedHTML {
        var first = SanitizerPass(options: options)
        let parsed = HTMLParser.parseDocumentTree(html)
        var markup = first.run(parsed.tree, htmlStyleElements: parsed.htmlStyleElements, inputLength: html.count)
        var settled = first
        // A tree no markup can produce (foster parenting, misnested formatting, an unwrapped
        // element, a quote wrapped inside a paragraph) settles into the one its markup does in
        // another pass on the parse of the last pass's output; each pass tells when it wrote one.
        // Nearly always one more pass settles it; some nestings (headings inside ruby text inside
        // a heading) take another, so passes go on until one writes markup that reads back as it
        // is, up to a bound no real message comes near.
        var passes = 1
        while settled.reparseChanges || (alwaysSecondPass && passes == 1), passes < Self.maximumPasses {
            var next = SanitizerPass(options: options)
            let parsed = HTMLParser.parseDocumentTree(markup)
            markup = next.run(parsed.tree, htmlStyleElements: parsed.htmlStyleElements, inputLength: markup.count)
            settled = next
            passes += 1
        }
        let text = String(decoding: markup, as: UTF8.self)
        // Only asked when nothing visible was kept (a scan of the whole input).
        let fallback = settled.visibleContent == 0 && html.contains { $0 > 32 && $0 != 60 && $0 != 62 }
        return SanitizedHTML(
            html: text, trackersBlocked: first.trackersBlocked, trackerHosts: first.trackerHosts.sorted(),
            remoteImagesBlocked: first.remoteImagesBlocked, hasQuotedText: settled.quotesFound > 0,
            fallbackToPlainText: fallback, suspiciousLinks: first.suspiciousLinks, trackerKinds: first.trackerKinds,
            links: LinkCleaning(
                cleaned: first.links.cleaned, unwrapped: first.links.unwrapped, tracked: first.links.tracked,
                trackedHosts: first.trackedLinkHosts.sorted()),
            remoteHostCounts: first.remoteHostCounts)
    }

    /// Every pass is a whole sanitize, so the output is safe whatever the count; the bound only
    /// limits the time a hostile message can take.
    static let maximumPasses = 8

    public static func sanitize(_ html: String, options: SanitizeOptions = SanitizeOptions()) -> SanitizedHTML {
        sanitize(Array(html.utf8), options: options)
    }
}

/// One parse-and-clean pass: walks the parsed tree and writes the cleaned markup straight out,
/// byte for byte what serializing a cleaned copy of the tree would give (`HTMLSerializer`'s
/// escaping), without building that copy.
struct SanitizerPass {
    let options: SanitizeOptions
    var css: CSSSanitizer
    var trackersBlocked = 0
    var trackerHosts: Set<String> = []
    var remoteImagesBlocked = 0
    var quotesFound = 0
    var suspiciousLinks = 0
    var trackerKinds = TrackerKinds()
    var links = LinkCleaning()
    var trackedLinkHosts: Set<String> = []
    var remoteHostCounts: [String: Int] = [:]
    /// Text characters and images kept: zero means there is nothing to show.
    var visibleContent = 0
    private var output: [UInt8] = []
    /// A link's escaped URL, written as its href and its title.
    private var escapedURL: [UInt8] = []
    /// A link's shown text (`appendShownText`), in a buffer the pass reuses.
    private var shownText: [UInt8] = []
    /// Where the body's markup starts (after the style sheets).
    private var bodyStart = 0
    private var reparse = ReparseCheck()
    /// For each quote wrapper open, the reparse check as it was before it (`Closing.quote`).
    private var checksBeforeQuotes: [ReparseCheck] = []
    /// Mail repeats a handful of style attributes on every cell (the benchmark's newsletters hold
    /// about 140 style attributes and ten distinct values): each value is cleaned, and read for
    /// hiding, once per document. Values whose cleaning blocked a remote load are not kept, so
    /// every occurrence is counted.
    private var cleanStyles: [StyleKey: [UInt8]] = [:]
    private var hidingStyles: [StyleKey: Bool] = [:]
    /// Whether the markup written reads back as a different tree (`ReparseCheck`).
    var reparseChanges: Bool { reparse.restructures }

    /// The element sets asked for every node, held by the pass: a `static let` is reached
    /// through a one-time-initialisation check on every read.
    private let tagSets = (
        droppedWithContent: Self.droppedWithContent, allowedElements: Self.allowedElements,
        voidElements: Self.voidElements
    )

    init(options: SanitizeOptions) {
        self.options = options
        self.css = CSSSanitizer(allowRemote: options.allowRemoteImages)
    }

    static let allowedElements: HTMLTagSet = [
        "a", "abbr", "acronym", "address", "article", "aside", "b", "bdi", "bdo", "big", "blockquote", "br", "caption", "center",
        "cite", "code", "col", "colgroup", "dd", "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "font",
        "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "i", "ins", "kbd", "li", "main", "mark", "nav",
        "ol", "p", "pre", "q", "rp", "rt", "ruby", "s", "samp", "section", "small", "span", "strike", "strong", "sub", "summary",
        "sup", "table", "tbody", "td", "tfoot", "th", "thead", "time", "tr", "tt", "u", "ul", "var", "wbr"
    ]

    /// Removed together with everything inside them (FR-ED-04 table, plus what can load or run).
    static let droppedWithContent: HTMLTagSet = [
        "script", "noscript", "template", "iframe", "frame", "frameset", "noframes", "object", "embed", "applet", "param",
        "select", "textarea", "option", "optgroup", "datalist", "input", "meta", "base", "link", "title", "head", "canvas",
        "source", "track", "map", "area", "portal", "noembed", "style", "audio", "math", "svg", "keygen", "fencedframe"
    ]

    static let allowedAttributes = ASCIIKeywordSet([
        "align", "bgcolor", "border", "cellpadding", "cellspacing", "class", "color", "colspan", "dir", "face", "height", "hspace",
        "lang", "rowspan", "size", "span", "title", "valign", "vspace", "width", "nowrap", "start", "type", "reversed", "alt",
        "datetime", "abbr", "headers", "scope", "summary", "open", "role", "aria-label", "aria-hidden", "aria-describedby",
        "frame", "rules", "charoff", "char", "clear", "noshade", "compact", "value"
    ])

    static let voidElements: HTMLTagSet = ["br", "col", "hr", "img", "wbr"]
    static let htmlElement: HTMLTagSet = ["html"]
    static let bodyElement: HTMLTagSet = ["body"]
    static let styleElement: HTMLTagSet = ["style"]

    // MARK: - Document

    /// `htmlStyleElements`: how many the parser created, when known (the search for them stops
    /// there); `inputLength`: the size of the markup parsed. Room for the output is reserved at
    /// once instead of grown by copies: one and a half times the input (links gain their target,
    /// rel and title; the benchmark's output is 1.03 to 1.30 times its input).
    mutating func run(_ tree: HTMLTree, htmlStyleElements: Int = .max, inputLength: Int = 32_768) -> [UInt8] {
        output = []
        guard let html = tree.firstChild(of: HTMLTree.document, where: { $0.isHTML(known: Self.htmlElement, in: .html) }) else {
            return []
        }
        output.reserveCapacity(max(inputLength + inputLength / 2, 4_096))
        // Style sheets from the head first (mail clients put the layout there), then the body.
        for style in htmlStyleElements == 0 ? [] : Self.styleElements(in: html, of: tree, atMost: htmlStyleElements) {
            var source: [UInt8] = []
            tree.appendText(of: style, to: &source)
            let sheet = css.sanitizeStyleSheet(bytes: source[...])
            // The second pass would clean the sheet again: it runs when that changes anything.
            var again = CSSSanitizer(allowRemote: options.allowRemoteImages)
            if again.sanitizeStyleSheet(bytes: sheet[...]) != sheet { reparse.changesWhenCleanedAgain() }
            if !sheet.isEmpty {
                // A raw text element: the sheet is written as it is (it cannot contain `<`).
                output += "<style>".utf8
                output += sheet
                output += "</style>".utf8
            }
        }
        bodyStart = output.count
        if let body = tree.firstChild(of: html, where: { $0.isHTML(known: Self.bodyElement, in: .html) }) {
            cleanChildren(of: body, in: tree, hidden: hides(body, in: tree), insideQuote: false)
        }
        remoteImagesBlocked += css.remoteReferencesBlocked
        trackerKinds.css = css.cssTrackersBlocked
        trackerKinds.fonts = css.fontTrackersBlocked
        trackersBlocked += css.cssTrackersBlocked + css.fontTrackersBlocked
        trackerHosts.formUnion(css.trackerHosts)
        remoteHostCounts.merge(css.remoteHostCounts, uniquingKeysWith: +)
        return output
    }

    /// The `<style>` elements of a document in document order, without collecting every node.
    static func styleElements(in node: NodeID, of tree: HTMLTree, atMost limit: Int = .max) -> [NodeID] {
        var found: [NodeID] = []
        tree.walkDescendants(of: node) { child, _ in
            let header = tree[child].header // not the whole node, copied in this closure (`HTMLTree.Header`)
            guard header.isElement else { return .skipChildren }
            guard header.isHTML(known: styleElement, in: .html) else { return .descend }
            found.append(child)
            return found.count >= limit ? .stop : .skipChildren
        }
        return found
    }

    // MARK: - Nodes

    /// One level of the walk: a run of siblings to clean in order, and what to write once they are.
    /// The walk keeps its levels on an explicit stack: recursing once per level of the tree
    /// overflowed a secondary thread's 512 KiB stack at about 600 nested elements (issue 21).
    private struct Level {
        /// The next node to clean: a parent's children from the first, Outlook's separator and the
        /// siblings after it, or what one quote wrapper holds (an attribution and its quote).
        var next: NodeID
        /// The node cleaned after `next` instead of its next sibling: a quote, after its
        /// attribution (the blank nodes between them are cleaned before the wrapper).
        var then = NodeID.none
        /// The last node of the level; `.none`: the last sibling.
        let last: NodeID
        let hidden: Bool
        let insideQuote: Bool
        /// Whether Outlook's reply separator starts a quote here (outside a quote); see `cleanChildren`.
        var watchesOutlookQuote: Bool
        let closing: Closing
    }

    private enum Closing {
        /// The body, or an element unwrapped.
        case nothing
        /// `contentStart`: where the element's content starts in the output.
        case element(NodeID, contentStart: Int)
        /// Our own quote wrapper from an earlier pass, kept as it is.
        case ownQuote
        /// A quote wrapper this pass opened at `mark`; the reparse check as it was before it is
        /// the last of `checksBeforeQuotes` (kept there, not here: a level is copied as the walk
        /// goes, and this payload made every copy of every level heavier).
        case quote(mark: Int)
    }

    /// The level of `parent`'s children. Outside a quote, Outlook's reply separator
    /// (`#appendonsend`, `#divRplyFwdMsg`) starts a quote that runs to the end of the parent.
    private func childrenLevel(of parent: NodeID, in tree: HTMLTree, hidden: Bool, insideQuote: Bool, closing: Closing) -> Level {
        Level(
            next: tree[parent].firstChild, last: .none, hidden: hidden, insideQuote: insideQuote, watchesOutlookQuote: !insideQuote,
            closing: closing)
    }

    /// Writes the cleaned children of `parent`, depth first. Outside a quote, a quote container
    /// and the "On … wrote:" line before it are wrapped together, and so is everything from
    /// Outlook's separator on.
    mutating func cleanChildren(of parent: NodeID, in tree: HTMLTree, hidden: Bool, insideQuote: Bool) {
        var outer: [Level] = []
        var current = childrenLevel(of: parent, in: tree, hidden: hidden, insideQuote: insideQuote, closing: .nothing)
        while true {
            guard current.next.exists else {
                close(current.closing, in: tree)
                guard let level = outer.popLast() else { return }
                current = level
                continue
            }
            let child = current.next
            if child == current.last {
                current.next = .none
            } else if current.then.exists {
                current.next = current.then
                current.then = .none
            } else {
                current.next = tree[child].nextSibling
            }
            var inner: Level?
            // A quote is wrapped only where `details` and its `summary` fit under the output's depth
            // limit (the same for every child of a level).
            let roomForQuote = reparse.depth + 2 <= Self.maximumOutputDepth
            // Only the first separator of a level starts a quote.
            let startsOutlookQuote = current.watchesOutlookQuote && QuoteDetector.startsOutlookQuote(child, in: tree)
            if startsOutlookQuote { current.watchesOutlookQuote = false }
            if startsOutlookQuote, roomForQuote {
                inner = Level(
                    next: child, last: current.last, hidden: current.hidden, insideQuote: true, watchesOutlookQuote: false,
                    closing: openQuote())
                current.next = .none
            } else if !current.insideQuote, roomForQuote, QuoteDetector.isAttribution(child, in: tree) {
                // Outside a quote a level is all of a parent's children, so the siblings are the level's.
                assert(!current.last.exists && !current.then.exists, "a level outside a quote is a parent's children")
                continue // moved into the quote that follows
            } else if !current.insideQuote, roomForQuote, QuoteDetector.isQuote(child, in: tree) {
                let attribution = QuoteDetector.attribution(before: child, in: tree)
                inner = Level(
                    next: attribution ?? child, then: attribution == nil ? .none : child, last: child, hidden: current.hidden,
                    insideQuote: true, watchesOutlookQuote: false, closing: openQuote())
            } else {
                inner = clean(child, in: tree, hidden: current.hidden, insideQuote: current.insideQuote)
            }
            guard let inner else { continue }
            if !inner.next.exists {
                close(inner.closing, in: tree)
            } else {
                outer.append(current)
                current = inner
            }
        }
    }

    /// How deep the cleaned markup nests: half the parser's cap (`OpenElementStack.capacity`, 513),
    /// far beyond what mail uses (a few dozen levels). Near the cap, where the parser closes
    /// elements early, anything a pass changes (a quote wrapped, a button unwrapped) moved where the
    /// cap fell when the output was read back, and the output was never its own fixed point
    /// (fuzz finds, issue 21).
    static let maximumOutputDepth = 256

    static let quoteOpening = Array(#"<details class="tern-quote"><summary>Show quoted text</summary>"#.utf8)
    static let quoteClosing = Array("</details>".utf8)

    /// Collapsed by default, expanded without any request or script (FR-ED-01); `close` writes
    /// nothing at all when the quote has nothing left after cleaning.
    private mutating func openQuote() -> Closing {
        let closing = Closing.quote(mark: output.count)
        checksBeforeQuotes.append(reparse)
        output += Self.quoteOpening
        reparse.start(.details)
        reparse.start(.summary)
        reparse.end()
        return closing
    }

    private mutating func close(_ closing: Closing, in tree: HTMLTree) {
        switch closing {
        case .nothing:
            return
        case .element(let node, let contentStart):
            if tree[node].tagName == .pre, output.count > contentStart, output[contentStart] == 10 {
                output.insert(10, at: contentStart) // keep a leading newline the parser would drop
            }
            output.append(60)
            output.append(47)
            writeName(of: node, in: tree)
            output.append(62)
            reparse.end()
        case .ownQuote:
            output += Self.quoteClosing
            reparse.end()
        case .quote(let mark):
            let before = checksBeforeQuotes.removeLast()
            if output.count == mark + Self.quoteOpening.count {
                output.removeSubrange(mark...)
                reparse = before
                return
            }
            quotesFound += 1
            output += Self.quoteClosing
            reparse.end()
        }
    }

    /// The element's name, copied from its UTF-8 (appending the `String.UTF8View` went byte by byte).
    private mutating func writeName(of node: NodeID, in tree: HTMLTree) {
        var name = tree[node].name
        name.withUTF8 { output.append(contentsOf: $0) }
    }

    /// Writes what `node` starts; returns the level of its children when they are to be cleaned.
    private mutating func clean(_ node: NodeID, in tree: HTMLTree, hidden: Bool, insideQuote: Bool) -> Level? {
        switch tree[node].kind {
        case .text:
            if tree[node].data.contains(where: { $0 > 32 }) { visibleContent += 1 }
            var text = tree[node].data
            if output.count == bodyStart {
                // Whitespace before the body's first content goes to the head when read back.
                guard let first = text.firstIndex(where: { !ASCIIBytes.isSpace($0) }) else { return nil }
                if first > 0 { text = Array(text[first...]) }
            }
            reparse.text(text)
            HTMLSerializer.escape(text, inAttribute: false, into: &output)
            return nil
        case .comment, .doctype, .document, .fragment:
            return nil
        case .element:
            break
        }
        guard tree[node].namespace == .html, !tree[node].isHTML(tagSets.droppedWithContent) else { return nil }
        let hiddenHere = hidden || hides(node, in: tree)
        let tagName = tree[node].tagName
        // Our own quote wrapper, from an earlier pass: kept as it is, not wrapped again.
        if tagName == .details, reparse.depth < Self.maximumOutputDepth, QuoteDetector.hasClass(node, in: tree, "tern-quote") {
            quotesFound += 1
            output += Array(#"<details class="tern-quote">"#.utf8)
            reparse.start(.details)
            return childrenLevel(of: node, in: tree, hidden: hiddenHere, insideQuote: true, closing: .ownQuote)
        }
        switch tagName {
        case .img:
            cleanImage(node, in: tree, hidden: hiddenHere)
            return nil
        case .video:
            if let poster = tree.attributeBytes(node, "poster") {
                // The poster as an image, in a tree of its own: the parsed tree is read, never changed.
                var image = HTMLTree()
                let element = image.makeElement("img", attributes: [HTMLAttribute(name: Array("src".utf8), value: poster)])
                cleanImage(element, in: image, hidden: hiddenHere)
            }
            return nil
        case .xmp, .plaintext, .listing:
            var text: [UInt8] = []
            tree.appendText(of: node, to: &text)
            if text.contains(where: { $0 > 32 }) { visibleContent += 1 }
            guard reparse.depth < Self.maximumOutputDepth else {
                reparse.text(text)
                HTMLSerializer.escape(text, inAttribute: false, into: &output)
                return nil
            }
            output += "<pre>".utf8
            reparse.start(.pre)
            if text.first == 10 { output.append(10) } // the parser drops one newline after <pre>
            HTMLSerializer.escape(text, inAttribute: false, into: &output)
            output += "</pre>".utf8
            reparse.end()
            return nil
        default: break
        }
        // Past the output's depth limit every element is unwrapped (its content kept), so the
        // markup written never reaches the parser's cap when it is read back.
        guard tree[node].isHTML(tagSets.allowedElements), reparse.depth < Self.maximumOutputDepth else {
            // Unknown or unwanted: unwrapped.
            return childrenLevel(of: node, in: tree, hidden: hiddenHere, insideQuote: insideQuote, closing: .nothing)
        }
        // A link inside a link exists only as the parser's recovery from misnested markup (the
        // adoption agency, formatting reconstructed in each nested block); written out it reads
        // back as other links, one level per pass, so deep nesting never settled (a fuzz find:
        // seed `regression-links-nested-by-recovery`). The inner one is unwrapped: its text stays,
        // inside the outer link.
        if tagName == .a, reparse.insideLink {
            return childrenLevel(of: node, in: tree, hidden: hiddenHere, insideQuote: insideQuote, closing: .nothing)
        }
        output.append(60)
        writeName(of: node, in: tree)
        if tagName == .a {
            writeLinkAttributes(of: node, in: tree)
        } else {
            writeCleanAttributes(of: node, in: tree)
        }
        output.append(62)
        let isVoid = tree[node].isHTML(tagSets.voidElements)
        reparse.start(tagName, isVoid: isVoid)
        if isVoid { return nil }
        return childrenLevel(
            of: node, in: tree, hidden: hiddenHere, insideQuote: insideQuote,
            closing: .element(node, contentStart: output.count))
    }

    /// `TrackerDetector.hides`, with each distinct style read once, or a rule of the message's
    /// style sheets (`HidingStyleRules`).
    mutating func hides(_ element: NodeID, in tree: HTMLTree) -> Bool {
        if css.ruleEffect(on: element, in: tree).hides { return true }
        guard !tree[element].attributes.isEmpty else { return false }
        if tree.attributeBytes(element, "hidden") != nil { return true }
        guard let style = tree.attributeBytes(element, "style") else { return false }
        let key = StyleKey(style)
        if let known = hidingStyles[key] { return known }
        let hiding = TrackerDetector.hides(style: style)
        hidingStyles[key] = hiding
        return hiding
    }

    // MARK: - Attributes

    mutating func writeEscapedAttribute(_ name: [UInt8], _ escaped: [UInt8]) {
        output.append(32)
        output += name
        output.append(61)
        output.append(34)
        output += escaped
        output.append(34)
    }

    mutating func writeAttribute(_ name: [UInt8], _ value: [UInt8]) {
        output.append(32)
        output += name
        output.append(61)
        output.append(34)
        HTMLSerializer.escape(value, inAttribute: true, into: &output)
        output.append(34)
    }

    mutating func writeCleanAttributes(of node: NodeID, in tree: HTMLTree) {
        for attribute in tree[node].attributes where attribute.namespace == nil {
            if attribute.name == Self.className, InterfaceMarkers.isPlaceholder(node, in: tree) {
                writeAttribute(attribute.name, attribute.value) // a placeholder an earlier pass wrote
                continue
            }
            if let value = cleanAttributeValue(attribute) { writeAttribute(attribute.name, value) }
        }
    }

    /// The value to keep, nil to drop the attribute: event handlers, id, name, href/src (handled
    /// by their elements), data-*, anything unknown.
    mutating func cleanAttributeValue(_ attribute: HTMLAttribute) -> [UInt8]? {
        let name = attribute.name[...]
        if ASCIIBytes.equals(name, "style") {
            let key = StyleKey(attribute.value)
            if let clean = cleanStyles[key] { return clean.isEmpty ? nil : clean }
            let blockedBefore = css.loadsBlocked + css.remoteLoads
            let clean = css.sanitizeDeclarations(attribute.value[...])
            if css.loadsBlocked + css.remoteLoads == blockedBefore { cleanStyles[key] = clean }
            return clean.isEmpty ? nil : clean
        }
        if ASCIIBytes.equals(name, "background") {
            switch URLPolicy.classify(bytes: attribute.value) {
            case .dataImage: return attribute.value
            case .remote(let host):
                if options.blocklist.matches(url: attribute.value, lowercasedHost: host) {
                    trackersBlocked += 1
                    trackerKinds.images += 1
                    trackerHosts.insert(host)
                } else if options.allowRemoteImages {
                    remoteHostCounts[host, default: 0] += 1
                    return URLPolicy.normalize(bytes: attribute.value)
                } else {
                    remoteHostCounts[host, default: 0] += 1
                    remoteImagesBlocked += 1
                }
                return nil
            default: return nil
            }
        }
        if attribute.name == Self.className { return InterfaceMarkers.withoutReservedClasses(attribute.value) }
        return Self.allowedAttributes.contains(name) ? attribute.value : nil
    }

    // MARK: - Images

    mutating func cleanImage(_ image: NodeID, in tree: HTMLTree, hidden: Bool) {
        let srcset = tree.attributeBytes(image, "srcset").map { String(decoding: $0, as: UTF8.self) }
        let sourceBytes = tree.attributeBytes(image, "src") ?? srcset.flatMap { $0.split(separator: " ").first.map { Array($0.utf8) } } ?? []
        let policy = URLPolicy.classify(bytes: sourceBytes)
        if case .cid = policy {
            visibleContent += 1
            writePlaceholder(
                text: Self.inlineImageText, label: Self.inlineImageText, alt: tree.attributeBytes(image, "alt") ?? [],
                kind: Self.inlineImageKind)
            return
        }
        if case .dataImage = policy {
            visibleContent += 1
            writeImage(image, in: tree, source: sourceBytes, srcset: nil)
            return
        }
        guard case .remote(let host) = policy else { return }
        let sized = css.ruleEffect(on: image, in: tree)
        let isTracker =
            options.blocklist.matches(url: sourceBytes, lowercasedHost: host)
            || TrackerDetector.isPixelSized(image, in: tree, ruleWidth: sized.width, ruleHeight: sized.height) || hidden
            || (srcset.map { Self.candidates($0).contains { options.blocklist.matches(url: $0) } } ?? false)
        if isTracker {
            trackersBlocked += 1
            trackerKinds.images += 1
            trackerHosts.insert(host)
            return
        }
        remoteHostCounts[host, default: 0] += 1
        guard options.allowRemoteImages else {
            remoteImagesBlocked += 1
            visibleContent += 1
            let alt = tree.attributeBytes(image, "alt") ?? []
            writePlaceholder(text: alt.isEmpty ? Self.imageText : alt, label: Self.blockedImageLabel, alt: alt, kind: Self.blockedImageKind)
            return
        }
        visibleContent += 1
        let remoteSrcset = srcset.flatMap { srcset in
            Self.candidates(srcset).allSatisfy { if case .remote = URLPolicy.classify($0) { true } else { false } } ? srcset : nil
        }
        writeImage(image, in: tree, source: sourceBytes, srcset: remoteSrcset)
    }

    mutating func writeImage(_ image: NodeID, in tree: HTMLTree, source: [UInt8], srcset: String?) {
        output += "<img".utf8
        reparse.start(.img, isVoid: true)
        writeCleanAttributes(of: image, in: tree)
        writeAttribute(Array("src".utf8), URLPolicy.normalize(bytes: source))
        if let srcset { writeAttribute(Array("srcset".utf8), Array(srcset.utf8)) }
        output.append(62)
    }

    static func candidates(_ srcset: String) -> [String] {
        srcset.split(separator: ",").compactMap { $0.trimmingASCIIWhitespace.split(separator: " ").first.map(String.init) }
    }

    static let inlineImageText = Array("Inline image not available".utf8), inlineImageKind = Array("tern-inline-image".utf8)
    static let imageText = Array("Image".utf8), blockedImageLabel = Array("Remote image blocked".utf8)
    static let blockedImageKind = Array("tern-blocked-image".utf8)

    /// An inert stand-in: text, no URL, nothing to load. Its label is `label`, then ": " and the
    /// image's `alt` when it has one.
    mutating func writePlaceholder(text: [UInt8], label: [UInt8], alt: [UInt8], kind: [UInt8]) {
        guard reparse.depth < Self.maximumOutputDepth else {
            // Past the depth limit the next pass unwraps the span: its text alone reads the same.
            reparse.text(text)
            HTMLSerializer.escape(text, inAttribute: false, into: &output)
            return
        }
        output += "<span".utf8
        reparse.start(.span)
        var labelBytes = label
        if !alt.isEmpty {
            labelBytes += ": ".utf8
            labelBytes += alt
        }
        writeAttribute(Self.className, kind)
        writeAttribute(Self.roleName, Self.imageRole)
        writeAttribute(Self.ariaLabelName, labelBytes)
        writeAttribute(Self.titleName, labelBytes)
        output.append(62)
        HTMLSerializer.escape(text, inAttribute: false, into: &output)
        output += "</span>".utf8
        reparse.end()
    }

    // MARK: - Links

    /// The link's own text as the cleaned link shows it, read the same on this pass and on the
    /// next: elements removed with their content (a style sheet, a script, SVG) and videos give
    /// none, and neither do images nor what a pass writes for them or for a quote (placeholders,
    /// the quote's summary). At most `LinkSafety.shownTextLimit` bytes of it: links nested in
    /// tables nested in links each read the text of all the others inside them. (Each still walks
    /// the elements inside it; the parser's depth cap leaves room for at most a few hundred links
    /// one inside another.)
    func appendShownText(of link: NodeID, in tree: HTMLTree, to output: inout [UInt8]) {
        let end = output.count + LinkSafety.shownTextLimit
        // Most links hold one text: read without a walk.
        if let only = tree.onlyChild(of: link), tree[only].isText {
            output.appendBytes(of: tree[only].data.prefix(end - output.count))
            return
        }
        tree.walkDescendants(of: link) { child, parent in
            if tree[child].isText {
                output.appendBytes(of: tree[child].data.prefix(end - output.count))
                return output.count >= end ? .stop : .skipChildren
            }
            guard tree[child].isElement, tree[child].namespace == .html, !tree[child].isHTML(tagSets.droppedWithContent) else {
                return .skipChildren
            }
            switch tree[child].tagName {
            case .img, .video: return .skipChildren
            case .span where InterfaceMarkers.isPlaceholder(child, in: tree):
                return .skipChildren
            case .summary where tree[parent].tagName == .details && QuoteDetector.hasClass(parent, in: tree, "tern-quote"):
                return .skipChildren
            default: return .descend
            }
        }
    }

    /// http(s) and mailto links open outside (`target=_blank`, no opener, no referrer) and show
    /// their real destination; every other scheme loses its href. An http(s) link is cleaned of
    /// its tracking first (issue 37, `LinkCleaner`): the destination shown, and compared with the
    /// link's text, is the one it has after unwrapping; a link through an opaque click tracker
    /// names it (`data-tern-tracked-host`, shown by the body's style sheet on hover and focus).
    mutating func writeLinkAttributes(of link: NodeID, in tree: HTMLTree) {
        guard var href = tree.attributeBytes(link, "href") else {
            writeCleanAttributes(of: link, in: tree)
            return
        }
        var policy = URLPolicy.classify(bytes: href)
        var trackedHost: String?
        if options.cleanLinks, case .remote(let host) = policy {
            let cleaned = LinkCleaner.clean(bytes: href, host: host, rules: options.linkRules)
            guard let url = cleaned.bytes else {
                // A wrapper around a `javascript:` (or another refused) destination: a dead link.
                writeCleanAttributes(of: link, in: tree)
                return
            }
            if cleaned.unwraps > 0 {
                links.unwrapped += 1
                policy = cleaned.host.map { .remote(host: $0) } ?? .mailto
            }
            if cleaned.parametersRemoved > 0 { links.cleaned += 1 }
            if let tracked = cleaned.trackedHost {
                links.tracked += 1
                trackedLinkHosts.insert(tracked)
                trackedHost = tracked
            }
            href = url
        }
        var realHost: String?
        switch policy {
        case .remote(let host):
            var text = shownText // taken out: `appendShownText` reads the pass
            shownText = []
            text.removeAll(keepingCapacity: true)
            appendShownText(of: link, in: tree, to: &text)
            if !LinkSafety.showsSameAuthority(text, as: href), let shown = LinkSafety.hostShown(in: text), !LinkSafety.sameSite(shown, host) {
                realHost = host
            }
            shownText = text
        case .mailto:
            break
        default:
            writeCleanAttributes(of: link, in: tree)
            return
        }
        // The link's own attributes go last and in this order whatever the input's order, so
        // that cleaning the output again writes the same bytes. Of these names only title and
        // class pass the allow-list.
        var existingClass: [UInt8]?
        for attribute in tree[link].attributes where attribute.namespace == nil {
            if attribute.name == Self.titleName { continue }
            if realHost != nil, attribute.name == Self.className {
                existingClass = attribute.value
                continue
            }
            if let value = cleanAttributeValue(attribute) { writeAttribute(attribute.name, value) }
        }
        // The title repeats the href: the value is escaped once (into a buffer the pass reuses).
        escapedURL.removeAll(keepingCapacity: true)
        HTMLSerializer.escape(URLPolicy.normalize(bytes: href), inAttribute: true, into: &escapedURL)
        writeEscapedAttribute(Self.hrefName, escapedURL)
        output += Self.targetAndRel
        writeEscapedAttribute(Self.titleName, escapedURL)
        if let trackedHost { writeAttribute(Self.trackedHostName, Array(trackedHost.utf8)) }
        guard let realHost else { return }
        suspiciousLinks += 1
        writeAttribute(Self.realHostName, Array(realHost.utf8))
        // After the mail's own classes (trailing whitespace aside: taking the mark out again
        // must give back what it was added to).
        var existing = existingClass.flatMap(InterfaceMarkers.withoutReservedClasses) ?? []
        while let last = existing.last, ASCIIBytes.isSpace(last) { existing.removeLast() }
        let marked = existing.isEmpty ? "tern-link-mismatch" : String(decoding: existing, as: UTF8.self) + " tern-link-mismatch"
        writeAttribute(Self.className, Array(marked.utf8))
    }

    static let hrefName = Array("href".utf8)
    /// What every http(s) and mailto link gets, written as it is (nothing in it needs escaping).
    static let targetAndRel = Array(#" target="_blank" rel="noopener noreferrer""#.utf8)
    static let titleName = Array("title".utf8), className = Array("class".utf8), realHostName = Array("data-tern-real-host".utf8)
    static let trackedHostName = Array("data-tern-tracked-host".utf8)
    static let roleName = Array("role".utf8), imageRole = Array("img".utf8), ariaLabelName = Array("aria-label".utf8)
}

/// A style attribute's bytes as a dictionary key. The hash reads the length and the first and
/// last eight bytes only (a document's styles differ there, and a collision costs one more
/// comparison); equality compares every byte.
struct StyleKey: Hashable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.count)
        bytes.withUnsafeBytes { raw in
            guard raw.count >= 8 else {
                hasher.combine(bytes: raw)
                return
            }
            hasher.combine(raw.loadUnaligned(as: UInt64.self))
            hasher.combine(raw.loadUnaligned(fromByteOffset: raw.count - 8, as: UInt64.self))
        }
    }

    static func == (lhs: StyleKey, rhs: StyleKey) -> Bool {
        lhs.bytes.count == rhs.bytes.count
            && lhs.bytes.withUnsafeBytes { left in
                rhs.bytes.withUnsafeBytes { right in left.count == 0 || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0 }
            }
    }
}

/// FR-ED-04 link safety: a link whose text reads as a URL for another site.
enum LinkSafety {
    /// How much of a link's text is read for the host it shows: a URL's host is at its start, and
    /// longer text (with a space after this) is read as if it ended here.
    static let shownTextLimit = 4096

    static func hostShown(in text: String) -> String? { hostShown(in: Array(text.utf8)) }

    /// Whether the text is the href's own scheme-and-authority, byte for byte (`https://host/…`
    /// showing `https://host/…`): then the host it shows is the href's, found without reading
    /// either host (most links that show a URL show their own). Either holding a byte the URL
    /// reading would drop (≤ 0x20) takes the full reading.
    static func showsSameAuthority(_ text: [UInt8], as href: [UInt8]) -> Bool {
        guard let shown = plainHTTPAuthority(ASCIIBytes.trimmed(text[...])), let real = plainHTTPAuthority(href[...]) else { return false }
        return shown.elementsEqual(real)
    }

    /// The authority of an `http:` or `https:` URL as `URLPolicy.authority` reads it, for one
    /// without bytes ≤ 0x20.
    private static func plainHTTPAuthority(_ url: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        guard let colon = url.firstIndex(of: 58), ASCIIBytes.equals(url[..<colon], "https") || ASCIIBytes.equals(url[..<colon], "http"),
            !url.contains(where: { $0 <= 0x20 })
        else { return nil }
        return URLPolicy.authority(of: url[(colon + 1)...])
    }

    /// The host a link's visible text names, when the text is a URL or a bare domain.
    static func hostShown(in text: [UInt8]) -> String? {
        let trimmed = ASCIIBytes.trimmed(text[...])
        guard !trimmed.isEmpty, !trimmed.contains(32) else { return nil }
        func hasPrefix(_ prefix: StaticString) -> Bool {
            trimmed.count >= prefix.utf8CodeUnitCount && ASCIIBytes.equals(trimmed.prefix(prefix.utf8CodeUnitCount), prefix)
        }
        if hasPrefix("http://") || hasPrefix("https://") {
            if case .remote(let host) = URLPolicy.classify(bytes: Array(trimmed)) { return host }
            return nil
        }
        if hasPrefix("www.") {
            return URLPolicy.host(of: trimmed)
        }
        return nil
    }

    /// `www.` and letter case aside, the same host or one a subdomain of the other. Compared on
    /// UTF-8 bytes: host names are ASCII (IDNs in punycode) or compared as written.
    static func sameSite(_ a: String, _ b: String) -> Bool {
        func needsLowercasing(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool { bytes.contains { $0 >= 65 && $0 <= 90 || $0 >= 0x80 } }
        var first = a
        var second = b
        if first.withUTF8(needsLowercasing) { first = a.lowercased() }
        if second.withUTF8(needsLowercasing) { second = b.lowercased() }
        return first.withUTF8 { x in
            second.withUTF8 { y in
                func strip(_ host: UnsafeBufferPointer<UInt8>) -> Slice<UnsafeBufferPointer<UInt8>> {
                    host.starts(with: "www.".utf8) ? host.dropFirst(4) : host[...]
                }
                /// `inner` is `outer` or ends in "." followed by `outer`.
                func isWithin(_ inner: Slice<UnsafeBufferPointer<UInt8>>, _ outer: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
                    guard inner.count >= outer.count, inner.suffix(outer.count).elementsEqual(outer) else { return false }
                    return inner.count == outer.count || inner[inner.endIndex - outer.count - 1] == 46
                }
                let (host, other) = (strip(x), strip(y))
                return isWithin(host, other) || isWithin(other, host)
            }
        }
    }
}
