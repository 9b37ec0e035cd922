/// Follows the markup a sanitizer pass writes, tag by tag, and tells whether the HTML tree builder,
/// reading it back, would build exactly the tree it was written from.
///
/// Sanitizing must be a fixed point (issue 5: sanitize(sanitize(x)) == sanitize(x)). The cleaned
/// tree can be one that no markup produces: it keeps what the parser made of misnested input, and
/// unwrapping an element (a `<button>`, a `<form>`) or wrapping a quote changes which elements
/// contain which. A second parse-and-clean pass settles such a tree, and it costs as much as the
/// first. Most mail needs none: this check runs alongside the first pass's writing, and the second
/// pass runs only when it finds a tag the tree builder would not simply append to the current node.
///
/// What it follows is the markup a pass writes, never arbitrary input: HTML elements only, every
/// element closed by its own end tag in order, no comments, doctypes, foreign content or raw text,
/// and no document-level tags; read back without a doctype, so in quirks mode. For that markup the
/// list of active formatting elements always mirrors the open formatting elements, so
/// reconstruction and the adoption agency never move anything; what remains are the start-tag
/// rules of "in body" (section 13.2.6.4.7) that close open elements, the table insertion modes'
/// foster parenting and implied elements, and the tags "in body" ignores.
struct ReparseCheck {
    /// The elements the pass has opened and not yet closed (below them: html and body).
    private var open = OpenTags()
    /// Set once a tag would be placed anywhere but inside the current node.
    private(set) var restructures = false

    static let tableContexts: HTMLTagSet = ["table", "tbody", "thead", "tfoot", "tr", "colgroup"]
    static let tableParts: HTMLTagSet = ["caption", "col", "colgroup", "tbody", "td", "tfoot", "th", "thead", "tr"]
    static let closesParagraph = TreeBuilder.closesParagraph.union(["pre", "listing", "hr", "li", "dd", "dt"])
        .union(TreeBuilder.headings)
    /// The markers of the list of active formatting elements.
    static let formattingMarkers: HTMLTagSet = ["applet", "caption", "marquee", "object", "td", "th", "template"]

    /// A start tag the pass writes; `isVoid` for elements without an end tag.
    mutating func start(_ tag: HTMLTagName, isVoid: Bool = false) {
        // Read back, html and body are below what the pass opened; a start tag that finds the
        // parser's stack full closes the current node first (`OpenElementStack.capacity`). A tree
        // at the cap that a pass wraps deeper (a quote's `details`) reads back as another tree.
        if !restructures, 2 + open.tags.count >= OpenElementStack.capacity { restructures = true }
        if !restructures, placesOutsideCurrentNode(tag) { restructures = true }
        if !isVoid { open.push(tag) }
    }

    /// How many elements the pass has open.
    var depth: Int { open.tags.count }

    /// An `a` is open since the last marker: another `a` written here would be closed by the
    /// adoption agency when read back (links nested by the parser's own recovery).
    var insideLink: Bool { open.topmost(.a) > open.topmost(Self.formattingMarkers) }

    /// Something written would be cleaned differently when read back (a style sheet that is not
    /// yet its own fixed point).
    mutating func changesWhenCleanedAgain() {
        restructures = true
    }

    /// The end tag of the element opened last.
    mutating func end() {
        open.pop()
    }

    /// Text the pass writes: in a table (not in a cell or caption) anything but whitespace is
    /// fostered out in front of the table.
    mutating func text(_ bytes: some Collection<UInt8>) {
        guard !restructures, let current = open.last, Self.tableContexts.contains(index: current.rawValue) else { return }
        if bytes.contains(where: { !ASCIIBytes.isSpace($0) }) { restructures = true }
    }

    private func placesOutsideCurrentNode(_ tag: HTMLTagName) -> Bool {
        let current = open.last ?? .body
        switch current {
        case .table: return !(tag == .caption || tag == .colgroup || tag == .tbody || tag == .thead || tag == .tfoot)
        case .tbody, .thead, .tfoot: return tag != .tr
        case .tr: return tag != .td && tag != .th
        case .colgroup: return tag != .col
        default: break
        }
        // "In body", "in cell" and "in caption": table parts are ignored or close the cell.
        if Self.tableParts.contains(index: tag.rawValue) { return true }
        if Self.closesParagraph.contains(index: tag.rawValue), inScope(.p, extraBoundary: .button) { return true }
        switch tag {
        case .h1, .h2, .h3, .h4, .h5, .h6:
            return TreeBuilder.headings.contains(index: current.rawValue)
        case .li:
            return closesOpenItem(.li, .li)
        case .dd, .dt:
            return closesOpenItem(.dd, .dt)
        case .a:
            // An open `a` since the last marker is closed by the adoption agency.
            return open.topmost(.a) > open.topmost(Self.formattingMarkers)
        case .rp, .rt:
            return inScope(.ruby) && TreeBuilder.impliedEndTags.contains(index: current.rawValue) && current != .rtc
        default:
            return false
        }
    }

    /// "In body" for li, dd and dt: an open item of the kind is closed, looking down the stack
    /// until a special element other than address, div and p (an item is one: at the same place,
    /// the item counts).
    private func closesOpenItem(_ item: HTMLTagName, _ sibling: HTMLTagName) -> Bool {
        let topmostItem = max(open.topmost(item), open.topmost(sibling))
        return topmostItem >= 0 && topmostItem >= open.topmost(TreeBuilder.listItemStops)
    }

    /// "Has an element in scope" (button scope with `extraBoundary: .button`) over the open elements.
    private func inScope(_ target: HTMLTagName, extraBoundary: HTMLTagName? = nil) -> Bool {
        let boundary = max(open.topmost(TreeBuilder.defaultScope), extraBoundary.map { open.topmost($0) } ?? -1)
        return open.topmost(target) > boundary
    }
}

/// The element names a sanitizer pass has open, with where the topmost of each name is: the
/// checks above read positions instead of walking the list, which made writing deeply nested
/// markup quadratic (issue 21; the same index as `OpenElementStack`'s).
struct OpenTags {
    private(set) var tags: [HTMLTagName] = []
    /// For each entry, the position of the next one below with the same name, or -1.
    private var belowSameTag: [Int32] = []
    private var topmostByTag = [Int32](repeating: -1, count: 256)

    var last: HTMLTagName? { tags.last }

    mutating func push(_ tag: HTMLTagName) {
        belowSameTag.append(topmostByTag[Int(tag.rawValue)])
        topmostByTag[Int(tag.rawValue)] = Int32(tags.count)
        tags.append(tag)
    }

    mutating func pop() {
        guard let tag = tags.popLast() else { return }
        topmostByTag[Int(tag.rawValue)] = belowSameTag.removeLast()
    }

    /// The position of the topmost open element with this name, or -1.
    func topmost(_ tag: HTMLTagName) -> Int { tag == .unknown ? -1 : Int(topmostByTag[Int(tag.rawValue)]) }

    /// The position of the topmost open element named in `names`, or -1.
    func topmost(_ names: HTMLTagSet) -> Int {
        var result: Int32 = -1
        names.forEachIndex { result = Swift.max(result, topmostByTag[$0]) }
        return Int(result)
    }
}
