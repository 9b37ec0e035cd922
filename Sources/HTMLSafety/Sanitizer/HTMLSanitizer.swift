import Foundation

/// What the caller decides for one message (FR-ED-04): remote images load only when the user
/// allowed them for this message or its sender (TrustedSender). Trackers go either way.
public struct SanitizeOptions: Sendable {
    public var allowRemoteImages: Bool
    public var blocklist: TrackerBlocklist

    public init(allowRemoteImages: Bool = false, blocklist: TrackerBlocklist = .bundled) {
        self.allowRemoteImages = allowRemoteImages
        self.blocklist = blocklist
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
}

/// FR-ED-04's sanitizer, on the tree the WHATWG parser builds (what a browser would build), with an
/// allow-list of elements and attributes. Its output is its own fixed point: the markup is parsed
/// and cleaned a second time, so what the web view parses is exactly what was checked.
public enum HTMLSanitizer {
    public static func sanitize(_ html: [UInt8], options: SanitizeOptions = SanitizeOptions()) -> SanitizedHTML {
        var first = SanitizerPass(options: options)
        let firstMarkup = first.run(HTMLParser.parseDocument(html))
        // Second pass on the parse of the first pass's output: a tree no markup can produce (foster
        // parenting, misnested formatting) settles into the one its markup does.
        var second = SanitizerPass(options: options)
        let markup = second.run(HTMLParser.parseDocument(firstMarkup))
        let text = String(decoding: markup, as: UTF8.self)
        let inputHasText = html.contains { $0 > 32 && $0 != 60 && $0 != 62 }
        return SanitizedHTML(
            html: text, trackersBlocked: first.trackersBlocked, trackerHosts: first.trackerHosts.sorted(),
            remoteImagesBlocked: first.remoteImagesBlocked, hasQuotedText: second.quotesFound > 0,
            fallbackToPlainText: second.visibleContent == 0 && inputHasText, suspiciousLinks: first.suspiciousLinks)
    }

    public static func sanitize(_ html: String, options: SanitizeOptions = SanitizeOptions()) -> SanitizedHTML {
        sanitize(Array(html.utf8), options: options)
    }
}

struct SanitizerPass {
    let options: SanitizeOptions
    var css: CSSSanitizer
    var trackersBlocked = 0
    var trackerHosts: Set<String> = []
    var remoteImagesBlocked = 0
    var quotesFound = 0
    var suspiciousLinks = 0
    /// Text characters and images kept: zero means there is nothing to show.
    var visibleContent = 0

    init(options: SanitizeOptions) {
        self.options = options
        self.css = CSSSanitizer(allowRemote: options.allowRemoteImages)
    }

    static let allowedElements: Set<String> = [
        "a", "abbr", "acronym", "address", "article", "aside", "b", "bdi", "bdo", "big", "blockquote", "br", "caption", "center",
        "cite", "code", "col", "colgroup", "dd", "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "font",
        "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "i", "ins", "kbd", "li", "main", "mark", "nav",
        "ol", "p", "pre", "q", "rp", "rt", "ruby", "s", "samp", "section", "small", "span", "strike", "strong", "sub", "summary",
        "sup", "table", "tbody", "td", "tfoot", "th", "thead", "time", "tr", "tt", "u", "ul", "var", "wbr",
    ]

    /// Removed together with everything inside them (FR-ED-04 table, plus what can load or run).
    static let droppedWithContent: Set<String> = [
        "script", "noscript", "template", "iframe", "frame", "frameset", "noframes", "object", "embed", "applet", "param",
        "select", "textarea", "option", "optgroup", "datalist", "input", "meta", "base", "link", "title", "head", "canvas",
        "source", "track", "map", "area", "portal", "noembed", "style", "audio", "math", "svg", "keygen", "fencedframe",
    ]

    static let allowedAttributes: Set<String> = [
        "align", "bgcolor", "border", "cellpadding", "cellspacing", "class", "color", "colspan", "dir", "face", "height", "hspace",
        "lang", "rowspan", "size", "span", "title", "valign", "vspace", "width", "nowrap", "start", "type", "reversed", "alt",
        "datetime", "abbr", "headers", "scope", "summary", "open", "role", "aria-label", "aria-hidden", "aria-describedby",
        "frame", "rules", "charoff", "char", "clear", "noshade", "compact", "value",
    ]

    // MARK: - Document

    mutating func run(_ document: HTMLNode) -> [UInt8] {
        let root = HTMLNode.fragment()
        guard let html = document.children.first(where: { $0.isHTML("html") }) else { return [] }
        // Style sheets from the head first (mail clients put the layout there), then the body.
        for style in Self.styleElements(in: html) {
            let sheet = css.sanitizeStyleSheet(style.textContent)
            if !sheet.isEmpty {
                let clean = HTMLNode.element("style")
                clean.append(HTMLNode.text(Array(sheet.utf8)))
                root.append(clean)
            }
        }
        if let body = html.children.first(where: { $0.isHTML("body") }) {
            let hidden = TrackerDetector.hides(body)
            for node in cleanChildren(of: body, hidden: hidden, insideQuote: false) { root.append(node) }
        }
        remoteImagesBlocked += css.remoteReferencesBlocked
        return HTMLSerializer.serialize(children: root)
    }

    /// The `<style>` elements of a document in document order, without collecting every node.
    static func styleElements(in node: HTMLNode) -> [HTMLNode] {
        var found: [HTMLNode] = []
        func walk(_ parent: HTMLNode) {
            for child in parent.children where child.isElement {
                if child.isHTML("style") { found.append(child) } else { walk(child) }
            }
        }
        walk(node)
        return found
    }

    // MARK: - Nodes

    /// The cleaned children of `parent`; Outlook's reply separator (`#appendonsend`,
    /// `#divRplyFwdMsg`) starts a quote that runs to the end of the parent.
    mutating func cleanChildren(of parent: HTMLNode, hidden: Bool, insideQuote: Bool) -> [HTMLNode] {
        var result: [HTMLNode] = []
        var quoteStart: Int?
        if !insideQuote {
            quoteStart = parent.children.firstIndex { QuoteDetector.startsOutlookQuote($0) }
        }
        for (index, child) in parent.children.enumerated() {
            if let quoteStart, index == quoteStart {
                let quoted = parent.children[index...].flatMap { clean($0, hidden: hidden, insideQuote: true) }
                if !quoted.isEmpty { result.append(wrapQuote(quoted)) }
                break
            }
            if !insideQuote, QuoteDetector.isAttribution(child, followedBy: parent.children.dropFirst(index + 1)) {
                continue  // moved into the quote that follows
            }
            if !insideQuote, QuoteDetector.isQuote(child) {
                var quoted: [HTMLNode] = []
                if let attribution = QuoteDetector.attribution(before: index, in: parent.children) {
                    quoted += clean(attribution, hidden: hidden, insideQuote: true)
                }
                quoted += clean(child, hidden: hidden, insideQuote: true)
                if !quoted.isEmpty { result.append(wrapQuote(quoted)) }
                continue
            }
            result += clean(child, hidden: hidden, insideQuote: insideQuote)
        }
        return result
    }

    /// Collapsed by default, expanded without any request or script (FR-ED-01).
    mutating func wrapQuote(_ nodes: [HTMLNode]) -> HTMLNode {
        quotesFound += 1
        let details = HTMLNode.element("details", attributes: [HTMLAttribute("class", "tern-quote")])
        let summary = HTMLNode.element("summary")
        summary.append(HTMLNode.text(Array("Show quoted text".utf8)))
        details.append(summary)
        for node in nodes { details.append(node) }
        return details
    }

    mutating func clean(_ node: HTMLNode, hidden: Bool, insideQuote: Bool) -> [HTMLNode] {
        switch node.kind {
        case .text:
            if node.data.contains(where: { $0 > 32 }) { visibleContent += 1 }
            return [HTMLNode.text(node.data)]
        case .comment, .doctype, .document, .fragment:
            return []
        case .element:
            break
        }
        guard node.namespace == .html else { return [] }
        let name = node.name
        if Self.droppedWithContent.contains(name) { return [] }
        let hiddenHere = hidden || TrackerDetector.hides(node)
        // Our own quote wrapper, from an earlier pass: kept as it is, not wrapped again.
        if name == "details", node.attribute("class")?.split(separator: " ").contains("tern-quote") == true {
            quotesFound += 1
            let copy = HTMLNode.element("details", attributes: [HTMLAttribute("class", "tern-quote")])
            for child in cleanChildren(of: node, hidden: hiddenHere, insideQuote: true) { copy.append(child) }
            return [copy]
        }
        switch name {
        case "img": return cleanImage(node, hidden: hiddenHere)
        case "video": return node.attribute("poster").map { cleanImage(HTMLNode.element("img", attributes: [HTMLAttribute("src", $0)]), hidden: hiddenHere) } ?? []
        case "xmp", "plaintext", "listing":
            let pre = HTMLNode.element("pre")
            pre.append(HTMLNode.text(Array(node.textContent.utf8)))
            visibleContent += 1
            return [pre]
        default: break
        }
        let children = cleanChildren(of: node, hidden: hiddenHere, insideQuote: insideQuote)
        guard Self.allowedElements.contains(name) else { return children }  // unknown or unwanted: unwrap
        let element = HTMLNode.element(name, attributes: cleanAttributes(of: node))
        if name == "a" { cleanLink(element, original: node) }
        if name == "hr" || name == "br" { visibleContent += 0 }
        for child in children { element.append(child) }
        return [element]
    }

    mutating func cleanAttributes(of node: HTMLNode) -> [HTMLAttribute] {
        var kept: [HTMLAttribute] = []
        for attribute in node.attributes where attribute.namespace == nil {
            let name = String(decoding: attribute.name, as: UTF8.self)
            let value = String(decoding: attribute.value, as: UTF8.self)
            switch name {
            case "style":
                let clean = css.sanitizeDeclarations(value)
                if !clean.isEmpty { kept.append(HTMLAttribute("style", clean)) }
            case "background":
                switch URLPolicy.classify(value) {
                case .dataImage: kept.append(HTMLAttribute("background", value))
                case .remote(let host):
                    if options.blocklist.matches(url: value) {
                        trackersBlocked += 1
                        trackerHosts.insert(host)
                    } else if options.allowRemoteImages {
                        kept.append(HTMLAttribute("background", URLPolicy.normalize(value)))
                    } else {
                        remoteImagesBlocked += 1
                    }
                default: break
                }
            case _ where Self.allowedAttributes.contains(name):
                kept.append(HTMLAttribute(name: attribute.name, value: attribute.value))
            default: break  // event handlers, id, name, href/src (handled), data-*, anything unknown
            }
        }
        return kept
    }

    // MARK: - Images

    mutating func cleanImage(_ image: HTMLNode, hidden: Bool) -> [HTMLNode] {
        let alt = image.attribute("alt") ?? ""
        let source = image.attribute("src") ?? image.attribute("srcset")?.split(separator: " ").first.map(String.init) ?? ""
        let policy = URLPolicy.classify(source)
        if case .cid = policy {
            visibleContent += 1
            return [placeholder(text: "Inline image not available", label: alt.isEmpty ? "Inline image not available" : "Inline image not available: \(alt)",
                                kind: "tern-inline-image")]
        }
        if case .dataImage = policy {
            visibleContent += 1
            let element = HTMLNode.element("img", attributes: cleanAttributes(of: image))
            element.setAttribute("src", URLPolicy.normalize(source))
            return [element]
        }
        guard case .remote(let host) = policy else { return [] }
        let isTracker = options.blocklist.matches(url: source) || TrackerDetector.isPixelSized(image) || hidden
            || (image.attribute("srcset").map { srcset in Self.candidates(srcset).contains { options.blocklist.matches(url: $0) } } ?? false)
        if isTracker {
            trackersBlocked += 1
            trackerHosts.insert(host)
            return []
        }
        guard options.allowRemoteImages else {
            remoteImagesBlocked += 1
            visibleContent += 1
            return [placeholder(text: alt.isEmpty ? "Image" : alt, label: alt.isEmpty ? "Remote image blocked" : "Remote image blocked: \(alt)",
                                kind: "tern-blocked-image")]
        }
        visibleContent += 1
        let element = HTMLNode.element("img", attributes: cleanAttributes(of: image))
        element.setAttribute("src", URLPolicy.normalize(source))
        if let srcset = image.attribute("srcset") {
            let remote = Self.candidates(srcset).allSatisfy { if case .remote = URLPolicy.classify($0) { true } else { false } }
            if remote { element.setAttribute("srcset", srcset) }
        }
        return [element]
    }

    static func candidates(_ srcset: String) -> [String] {
        srcset.split(separator: ",").compactMap { $0.trimmingASCIIWhitespace.split(separator: " ").first.map(String.init) }
    }

    /// An inert stand-in: text, no URL, nothing to load.
    func placeholder(text: String, label: String, kind: String) -> HTMLNode {
        let span = HTMLNode.element("span", attributes: [
            HTMLAttribute("class", kind), HTMLAttribute("role", "img"), HTMLAttribute("aria-label", label), HTMLAttribute("title", label),
        ])
        span.append(HTMLNode.text(Array(text.utf8)))
        return span
    }

    // MARK: - Links

    /// http(s) and mailto links open outside (`target=_blank`, no opener, no referrer) and show
    /// their real destination; every other scheme loses its href.
    mutating func cleanLink(_ element: HTMLNode, original: HTMLNode) {
        guard let href = original.attribute("href") else { return }
        let url = URLPolicy.normalize(href)
        switch URLPolicy.classify(href) {
        case .remote(let host):
            element.setAttribute("href", url)
            element.setAttribute("target", "_blank")
            element.setAttribute("rel", "noopener noreferrer")
            element.setAttribute("title", url)
            if let shown = LinkSafety.hostShown(in: original.textContent), !LinkSafety.sameSite(shown, host) {
                suspiciousLinks += 1
                element.setAttribute("data-tern-real-host", host)
                let existing = element.attribute("class") ?? ""
                if !existing.split(separator: " ").contains("tern-link-mismatch") {
                    element.setAttribute("class", existing.isEmpty ? "tern-link-mismatch" : existing + " tern-link-mismatch")
                }
            }
        case .mailto:
            element.setAttribute("href", url)
            element.setAttribute("target", "_blank")
            element.setAttribute("rel", "noopener noreferrer")
            element.setAttribute("title", url)
        default:
            break
        }
    }
}

/// FR-ED-04 link safety: a link whose text reads as a URL for another site.
enum LinkSafety {
    /// The host a link's visible text names, when the text is a URL or a bare domain.
    static func hostShown(in text: String) -> String? {
        let trimmed = text.trimmingASCIIWhitespace
        guard !trimmed.isEmpty, !trimmed.contains(" ") else { return nil }
        let lower = trimmed.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            if case .remote(let host) = URLPolicy.classify(trimmed) { return host }
            return nil
        }
        if lower.hasPrefix("www.") {
            return URLPolicy.host(of: Substring(lower))
        }
        return nil
    }

    /// `www.` and letter case aside, the same host or one a subdomain of the other.
    static func sameSite(_ a: String, _ b: String) -> Bool {
        func strip(_ host: String) -> String { host.hasPrefix("www.") ? String(host.dropFirst(4)) : host }
        let (x, y) = (strip(a.lowercased()), strip(b.lowercased()))
        return x == y || x.hasSuffix("." + y) || y.hasSuffix("." + x)
    }
}
