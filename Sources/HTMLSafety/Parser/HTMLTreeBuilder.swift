/// The tree construction stage of the WHATWG HTML parser (section 13.2.6): insertion modes, the
/// stack of open elements, active formatting elements with the adoption agency algorithm, foster
/// parenting, foreign content (SVG, MathML), templates and fragment parsing. Scripting is off:
/// Tern never runs scripts, so `<noscript>` content is parsed as markup, as a browser with
/// scripting disabled does.
public struct HTMLParser {
    public enum QuirksMode: Sendable { case noQuirks, quirks, limitedQuirks }

    /// Parses a whole document.
    public static func parseDocument(_ bytes: [UInt8]) -> HTMLNode {
        parseDocumentTree(bytes).tree.makeDOM()
    }

    /// The document as the sanitizer reads it; also tells how many HTML `style` elements the tree
    /// builder created: the sanitizer's search for them ends once it has found that many (there
    /// can be no more in the tree).
    static func parseDocumentTree(_ bytes: [UInt8]) -> (tree: HTMLTree, htmlStyleElements: Int) {
        var builder = TreeBuilder(tokenizer: HTMLTokenizer(bytes), inputLength: bytes.count)
        builder.run()
        return (builder.tree, builder.htmlStyleElements)
    }

    /// How many nodes the parser makes for `bytes`: parsing alone, for the benchmark's phases.
    public static func parsedNodeCount(_ bytes: [UInt8]) -> Int {
        parseDocumentTree(bytes).tree.count
    }

    /// Parses a fragment in the context of an element (innerHTML), as section 13.4 describes.
    /// Returns the fragment's root `html` element's children wrapped in a fragment node.
    public static func parseFragment(_ bytes: [UInt8], context: String, contextNamespace: HTMLNamespace = .html) -> HTMLNode {
        var builder = TreeBuilder(tokenizer: HTMLTokenizer(bytes), inputLength: bytes.count)
        let contextElement = builder.tree.makeElement(context, namespace: contextNamespace)
        builder.prepareFragment(context: builder.tree.element(contextElement))
        builder.run()
        let fragment = HTMLNode.fragment()
        let root = builder.tree[HTMLTree.document].firstChild
        if root.exists {
            builder.tree.makeDOM(root).moveChildren(to: fragment)
        }
        return fragment
    }
}

enum InsertionMode {
    case initial, beforeHTML, beforeHead, inHead, inHeadNoscript, afterHead, inBody, text, inTable, inTableText
    case inCaption, inColumnGroup, inTableBody, inRow, inCell, inSelect, inSelectInTable, inTemplate
    case afterBody, inFrameset, afterFrameset, afterAfterBody, afterAfterFrameset
}

/// A character run cut into pieces that every insertion mode treats alike char by char.
enum CharacterKind { case whitespace, null, other }

struct TreeBuilder {
    var tokenizer: HTMLTokenizer
    var tree: HTMLTree
    let document = HTMLTree.document
    var mode: InsertionMode = .initial
    var originalMode: InsertionMode = .initial
    var templateModes: [InsertionMode] = []
    var openElements = OpenElementStack()
    /// nil entries are markers.
    var activeFormatting: [FormattingEntry] = []
    /// Elements the reconstruction of the active formatting elements may still create (see
    /// `reconstructActiveFormatting`).
    var reconstructionBudget: Int
    var headElement: ElementRef?
    var formElement: ElementRef?
    var framesetOK = true
    var quirks: HTMLParser.QuirksMode = .noQuirks
    var fosterParenting = false
    /// The pending table character tokens (section 13.2.6.4.10) as one run, nulls dropped: a list
    /// of pieces took 40 bytes a piece, and `<table>x x x…` makes a piece of every byte (400 MB for
    /// a 10 MiB body; issue 21 review).
    var pendingTableText: [UInt8] = []
    /// Whether every pending character is ASCII whitespace.
    var pendingTableTextIsWhitespace = true
    var skipNextNewline = false
    var contextElement: ElementRef?
    var stopped = false
    /// HTML `style` elements created (`HTMLParser.parseDocumentTree`).
    var htmlStyleElements = 0

    struct FormattingEntry {
        var node: ElementRef?
        var tag: HTMLTag?
        static var marker: FormattingEntry { FormattingEntry(node: nil, tag: nil) }
    }

    init(tokenizer: HTMLTokenizer, inputLength: Int) {
        self.tokenizer = tokenizer
        // Mail averages a node per 30 to 40 bytes of markup.
        tree = HTMLTree(expectedNodes: inputLength / 32)
        reconstructionBudget = Self.reconstructionAllowance + inputLength / 16
    }

    // MARK: - Driving

    mutating func run() {
        while !stopped {
            let token = tokenizer.next()
            dispatch(token)
            tokenizer.allowsCDATA = adjustedCurrentNode.map { $0.namespace != .html } ?? false
            if case .endOfFile = token { break }
        }
    }

    mutating func prepareFragment(context: ElementRef) {
        contextElement = context
        let rootID = tree.makeElement("html")
        let root = tree.element(rootID)
        tree.append(root.id, to: document)
        openElements = OpenElementStack()
        openElements.append(root)
        if context.namespace == .html {
            switch context.tagName {
            case .title, .textarea: tokenizer.state = .rcdata
            case .style, .xmp, .iframe, .noembed, .noframes: tokenizer.state = .rawtext
            case .script: tokenizer.state = .scriptData
            case .plaintext: tokenizer.state = .plaintext
            default: break
            }
        }
        if context.isHTML(.template) { templateModes.append(.inTemplate) }
        resetInsertionMode()
        var node = context.id
        while node.exists {
            if tree[node].isHTML(.form) {
                formElement = tree.element(node)
                break
            }
            node = tree[node].parent
        }
    }

    var currentNode: ElementRef? { openElements.last }

    var adjustedCurrentNode: ElementRef? {
        if let contextElement, openElements.count == 1 { return contextElement }
        return currentNode
    }

    /// Tree construction dispatcher (section 13.2.6): foreign content or the insertion mode.
    mutating func dispatch(_ token: HTMLToken) {
        if skipNextNewline {
            skipNextNewline = false
            if case .characters(let bytes) = token, bytes.first == 10 {
                guard bytes.count > 1 else { return }
                dispatch(.characters(Array(bytes.dropFirst())))
                return
            }
        }
        // Almost every token of a message arrives with an HTML element current: that case is
        // decided without taking a reference to the node.
        let htmlCurrent = contextElement == nil && openElements.currentNamespace == .html
        if !htmlCurrent, shouldUseForeignContent(token) {
            processForeign(token)
        } else {
            process(token, in: mode)
        }
    }

    func shouldUseForeignContent(_ token: HTMLToken) -> Bool {
        guard let node = adjustedCurrentNode, node.namespace != .html else { return false }
        if Self.isMathMLTextIntegrationPoint(node) {
            if case .startTag(let tag) = token, tag.name != Array("mglyph".utf8), tag.name != Array("malignmark".utf8) { return false }
            if case .characters = token { return false }
        }
        if node.namespace == .mathml, tree[node.id].name == "annotation-xml", case .startTag(let tag) = token, tag.name == Array("svg".utf8) {
            return false
        }
        if isHTMLIntegrationPoint(node) {
            if case .startTag = token { return false }
            if case .characters = token { return false }
        }
        if case .endOfFile = token { return false }
        return true
    }

    static func isMathMLTextIntegrationPoint(_ node: ElementRef) -> Bool {
        node.isHTML(known: Self.mathMLTextIntegrationPoints, in: .mathml)
    }

    func isHTMLIntegrationPoint(_ node: ElementRef) -> Bool {
        if node.namespace == .mathml, tree[node.id].name == "annotation-xml" {
            let encoding = tree.attribute(node.id, "encoding")?.lowercased()
            return encoding == "text/html" || encoding == "application/xhtml+xml"
        }
        return node.isHTML(known: Self.svgIntegrationPoints, in: .svg)
    }

    // MARK: - Characters

    static func pieces(_ bytes: [UInt8]) -> [(bytes: ArraySlice<UInt8>, kind: CharacterKind)] {
        var result: [(ArraySlice<UInt8>, CharacterKind)] = []
        var start = 0
        var kind: CharacterKind?
        for (index, byte) in bytes.enumerated() {
            let current: CharacterKind =
                byte == 0 ? .null : (byte == 9 || byte == 10 || byte == 12 || byte == 13 || byte == 32) ? .whitespace : .other
            if current != kind {
                if let kind, index > start { result.append((bytes[start..<index], kind)) }
                start = index
                kind = current
            }
        }
        if let kind, bytes.count > start { result.append((bytes[start..<bytes.count], kind)) }
        return result
    }

    // MARK: - Inserting

    /// The deepest the tree gets below the document's root element: the stack of open elements
    /// holds the root and this many levels (`OpenElementStack.capacity`).
    static let maximumDepth = OpenElementStack.capacity - 1

    /// The appropriate place for inserting a node (section 13.2.6.1), with foster parenting.
    func insertionPlace(overriding target: ElementRef? = nil) -> (parent: NodeID, before: NodeID) {
        let target = target ?? currentNode
        var place: (parent: NodeID, before: NodeID)
        if fosterParenting, let target, target.isHTML(Self.fosterParents) {
            let lastTemplate = openElements.topmost(.template)
            let lastTable = openElements.topmost(.table)
            if lastTemplate >= 0, lastTemplate > lastTable {
                place = (tree[openElements[lastTemplate].id].templateContents, .none)
            } else if lastTable >= 0 {
                let table = openElements[lastTable].id
                let parent = tree[table].parent
                place = parent.exists ? (parent, table) : (openElements[lastTable - 1].id, .none)
            } else {
                place = (openElements[0].id, .none)
            }
        } else {
            place = (target?.id ?? document, .none)
        }
        let contents = tree[place.parent].templateContents
        if contents.exists, tree[place.parent].namespace == .html { place = (contents, .none) }
        return place
    }

    mutating func insert(_ node: NodeID, at place: (parent: NodeID, before: NodeID)) {
        tree.insert(node, before: place.before, in: place.parent)
    }

    mutating func insertCharacters(_ bytes: ArraySlice<UInt8>) {
        let place = insertionPlace()
        if case .document = tree[place.parent].kind { return }
        // Text after or before text extends it rather than making a node to merge.
        tree.insertText(bytes, before: place.before, in: place.parent)
    }

    /// The same for a whole token's text, which becomes the node's without a copy.
    mutating func insertCharacters(_ bytes: [UInt8]) {
        let place = insertionPlace()
        if case .document = tree[place.parent].kind { return }
        let last = tree[place.parent].lastChild
        if !place.before.exists, last.exists, tree[last].isText {
            tree[last].data += bytes
            return
        }
        guard !place.before.exists else {
            tree.insertText(bytes[...], before: place.before, in: place.parent)
            return
        }
        let text = tree.makeText(bytes)
        insert(text, at: place)
    }

    mutating func insertComment(_ data: [UInt8], into parent: NodeID? = nil) {
        let comment = tree.makeComment(data)
        if let parent {
            tree.append(comment, to: parent)
        } else {
            insert(comment, at: insertionPlace())
        }
    }

    mutating func createElement(_ tag: HTMLTag, namespace: HTMLNamespace) -> ElementRef {
        let known = tag.tagName
        if known == .style, namespace == .html { htmlStyleElements += 1 }
        // HTML names are lowercase; SVG ones may have been given their camel case (`foreignObject`).
        let name =
            known == .unknown || namespace != .html
            ? String(decoding: tag.name, as: UTF8.self) : KnownElementName.lowercaseNames[Int(known.rawValue)]
        let id = tree.makeElement(name: name, nameIndex: known.rawValue, namespace: namespace, attributes: tag.attributes)
        return ElementRef(id: id, namespace: namespace, nameIndex: known.rawValue, name: name)
    }

    @discardableResult
    mutating func insertHTMLElement(_ tag: HTMLTag) -> ElementRef {
        insertForeignElement(tag, namespace: .html)
    }

    @discardableResult
    mutating func insertForeignElement(_ tag: HTMLTag, namespace: HTMLNamespace) -> ElementRef {
        makeRoomOnStack()
        let node = createElement(tag, namespace: namespace)
        insert(node.id, at: insertionPlace())
        openElements.append(node)
        return node
    }

    /// The elements whose closing changes the insertion mode (those "reset the insertion mode
    /// appropriately" stops at).
    static let modeElements: HTMLTagSet = [
        "select", "td", "th", "tr", "tbody", "thead", "tfoot", "caption", "colgroup", "table", "template", "head", "body", "frameset", "html"
    ]

    /// Before an element is pushed on a full stack of open elements (`OpenElementStack.capacity`),
    /// the current node is closed, so the new element becomes its sibling: what WebKit and Chromium
    /// build for markup nested deeper than 512. Closed as an end tag would close it: a formatting
    /// element leaves the list of active formatting elements (not to be reopened), others clear
    /// that list back to their marker, a template its insertion mode, and the insertion mode is
    /// reset.
    mutating func makeRoomOnStack() {
        guard openElements.isFull, let current = openElements.popLast(), current.namespace == .html else { return }
        if let entry = formattingIndex(of: current) { activeFormatting.remove(at: entry) }
        switch current.tagName {
        case .applet, .object, .marquee, .td, .th, .caption:
            clearFormattingToLastMarker()
        case .template:
            clearFormattingToLastMarker()
            _ = templateModes.popLast()
        default: break
        }
        if Self.modeElements.contains(index: current.nameIndex) { resetInsertionMode() }
    }

    @discardableResult
    mutating func insertHTMLElement(named name: String) -> ElementRef {
        insertHTMLElement(HTMLTag(name: Array(name.utf8)))
    }

    // MARK: - Stack helpers

    static let specialHTML: HTMLTagSet = [
        "address", "applet", "area", "article", "aside", "base", "basefont", "bgsound", "blockquote", "body", "br", "button",
        "caption", "center", "col", "colgroup", "dd", "details", "dir", "div", "dl", "dt", "embed", "fieldset", "figcaption",
        "figure", "footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hgroup", "hr",
        "html", "iframe", "img", "input", "keygen", "li", "link", "listing", "main", "marquee", "menu", "meta", "nav", "noembed",
        "noframes", "noscript", "object", "ol", "p", "param", "plaintext", "pre", "script", "search", "section", "select", "source",
        "style", "summary", "table", "tbody", "td", "template", "textarea", "tfoot", "th", "thead", "title", "tr", "track", "ul",
        "wbr", "xmp"
    ]

    static func isSpecial(_ node: ElementRef) -> Bool {
        switch node.namespace {
        case .html: specialHTML.contains(index: node.nameIndex)
        case .mathml: node.isHTML(known: mathMLScopeBoundaries, in: .mathml)
        case .svg: node.isHTML(known: svgIntegrationPoints, in: .svg)
        default: false
        }
    }

    static let mathMLTextIntegrationPoints: HTMLTagSet = ["mi", "mo", "mn", "ms", "mtext"]
    static let mathMLScopeBoundaries: HTMLTagSet = ["mi", "mo", "mn", "ms", "mtext", "annotation-xml"]
    static let svgIntegrationPoints: HTMLTagSet = ["foreignObject", "desc", "title"]
    static let fosterParents: HTMLTagSet = ["table", "tbody", "tfoot", "thead", "tr"]
    static let tableScopeBoundaries: HTMLTagSet = ["html", "table", "template"]
    static let selectScopeMembers: HTMLTagSet = ["optgroup", "option"]
    static let listItemScope: HTMLTagSet = ["ol", "ul"]
    static let buttonScope: HTMLTagSet = ["button"]
    static let defaultScope: HTMLTagSet = ["applet", "caption", "html", "table", "td", "th", "marquee", "object", "template"]

    static func isScopeBoundary(_ node: ElementRef, extra: HTMLTagSet) -> Bool {
        isScopeBoundary(node, in: defaultScope, extra: extra)
    }

    static func isScopeBoundary(_ node: ElementRef, in boundaries: HTMLTagSet, extra: HTMLTagSet) -> Bool {
        switch node.namespace {
        case .html: boundaries.contains(index: node.nameIndex) || extra.contains(index: node.nameIndex)
        case .mathml: node.isHTML(known: mathMLScopeBoundaries, in: .mathml)
        case .svg: node.isHTML(known: svgIntegrationPoints, in: .svg)
        default: false
        }
    }

    enum Scope { case normal, listItem, button, table, select }

    static let defaultScopeWithListItems = defaultScope.union(listItemScope)
    static let defaultScopeWithButton = defaultScope.union(buttonScope)

    /// "Has an element in scope" (section 13.2.4.2): the topmost element named in `names` is above
    /// the topmost boundary of the scope (or is it). Read from the stack's index of positions, not
    /// by walking the stack (issue 21).
    func inScope(_ names: HTMLTagSet, _ scope: Scope = .normal) -> Bool {
        let target = openElements.topmost(names)
        guard target >= 0 else { return false }
        let boundary: Int
        switch scope {
        case .normal: boundary = max(openElements.topmost(Self.defaultScope), openElements.topmostForeignBoundary)
        case .listItem: boundary = max(openElements.topmost(Self.defaultScopeWithListItems), openElements.topmostForeignBoundary)
        case .button: boundary = max(openElements.topmost(Self.defaultScopeWithButton), openElements.topmostForeignBoundary)
        case .table: boundary = openElements.topmost(Self.tableScopeBoundaries)
        case .select:
            // Every element but optgroup and option bounds it: the walk stops at the first other.
            for node in openElements.reversed() {
                if node.isHTML(names) { return true }
                if !node.isHTML(Self.selectScopeMembers) { return false }
            }
            return false
        }
        return target >= boundary
    }

    func inScope(_ name: String, _ scope: Scope = .normal) -> Bool { inScope(HTMLTagSet(single: name), scope) }
    func inScope(_ name: HTMLTagName, _ scope: Scope = .normal) -> Bool { inScope(HTMLTagSet(name), scope) }

    func nodeInScope(_ target: ElementRef) -> Bool {
        guard openElements.contains(target), let position = openElements.lastIndex(where: { $0 == target }) else { return false }
        return position >= max(openElements.topmost(Self.defaultScope), openElements.topmostForeignBoundary)
    }

    mutating func popUntil(_ names: HTMLTagSet) {
        while let node = openElements.popLast() {
            if node.isHTML(names) { return }
        }
    }

    mutating func popUntil(_ name: String) { popUntil(HTMLTagSet(single: name)) }
    mutating func popUntil(_ name: HTMLTagName) { popUntil(HTMLTagSet(name)) }

    mutating func pop(_ node: ElementRef) {
        while let popped = openElements.popLast(), popped != node {}
    }

    mutating func remove(fromStack node: ElementRef) {
        openElements.remove(node)
    }

    static let impliedEndTags: HTMLTagSet = ["dd", "dt", "li", "optgroup", "option", "p", "rb", "rp", "rt", "rtc"]

    mutating func generateImpliedEndTags(except: HTMLTagName? = nil) {
        // Every implied-end-tag element is a known name, so comparing indexes is comparing names.
        while let node = currentNode, node.isHTML(Self.impliedEndTags), node.tagName != except {
            openElements.removeLast()
        }
    }

    mutating func generateImpliedEndTags(except: String) {
        generateImpliedEndTags(except: HTMLTagName(rawValue: KnownElementName.index(of: except)) ?? .unknown)
    }

    static let impliedEndTagsThoroughly = impliedEndTags.union(["caption", "colgroup", "tbody", "td", "tfoot", "th", "thead", "tr"])

    mutating func generateAllImpliedEndTagsThoroughly() {
        while let node = currentNode, node.isHTML(Self.impliedEndTagsThoroughly) { openElements.removeLast() }
    }

    mutating func closePElement() {
        generateImpliedEndTags(except: .p)
        popUntil(.p)
    }

    mutating func clearStackBack(to names: HTMLTagSet) {
        while let node = currentNode, !node.isHTML(names) { openElements.removeLast() }
    }

    /// Section 13.2.4.1: "reset the insertion mode appropriately". The walk starts at the topmost
    /// element that can decide the mode (the ones above it all fall through).
    mutating func resetInsertionMode() {
        let start = max(openElements.topmost(Self.modeElements), 0)
        guard start < openElements.count else {
            mode = .inBody
            return
        }
        for index in (0...start).reversed() {
            var node = openElements[index]
            let last = index == 0
            if last, let contextElement { node = contextElement }
            guard node.namespace == .html else {
                if last {
                    mode = .inBody
                    return
                }
                continue
            }
            switch node.tagName {
            case .select:
                // The topmost table below the select, unless a template is closer.
                let table = openElements.topmost(.table)
                let template = openElements.topmost(.template)
                mode = !last && table >= 0 && table < index && table > template ? .inSelectInTable : .inSelect
                return
            case .td, .th:
                if !last {
                    mode = .inCell
                    return
                }
            case .tr:
                mode = .inRow
                return
            case .tbody, .thead, .tfoot:
                mode = .inTableBody
                return
            case .caption:
                mode = .inCaption
                return
            case .colgroup:
                mode = .inColumnGroup
                return
            case .table:
                mode = .inTable
                return
            case .template:
                mode = templateModes.last ?? .inTemplate
                return
            case .head:
                if !last {
                    mode = .inHead
                    return
                }
            case .body:
                mode = .inBody
                return
            case .frameset:
                mode = .inFrameset
                return
            case .html:
                mode = headElement == nil ? .beforeHead : .afterHead
                return
            default: break
            }
            if last {
                mode = .inBody
                return
            }
        }
        mode = .inBody
    }

    // MARK: - Active formatting elements

    static let formattingNames: HTMLTagSet = ["a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u"]

    /// Bounds of the list of active formatting elements beyond Noah's Ark, which only limits equal
    /// entries: elements that differ in an attribute (`<b id=1><b id=2>…`) made the list, each
    /// Noah's Ark comparison and each reconstruction as long as the input allowed (issue 21). Past
    /// `formattingSectionLimit` entries after the last marker the earliest of them goes, as Noah's
    /// Ark drops the earliest equal one; past `formattingListLimit` entries in all (markers too)
    /// the first goes. Mail nests a handful of formatting elements.
    static let formattingSectionLimit = 64
    static let formattingListLimit = 512

    mutating func pushFormatting(_ node: ElementRef, _ tag: HTMLTag) {
        // Noah's Ark: at most three equal entries after the last marker.
        var equal: [Int] = []
        var sectionStart = activeFormatting.count
        for index in activeFormatting.indices.reversed() {
            guard let existing = activeFormatting[index].node else { break }
            sectionStart = index
            // Formatting elements have known names: the index compares the name.
            if existing.nameIndex == node.nameIndex, existing.namespace == node.namespace, tree[existing.id].name == tree[node.id].name,
                Self.sameAttributes(tree[existing.id].attributes, tree[node.id].attributes)
            {
                equal.append(index)
            }
        }
        if equal.count >= 3, let earliest = equal.last {
            activeFormatting.remove(at: earliest)
        } else if activeFormatting.count - sectionStart >= Self.formattingSectionLimit {
            activeFormatting.remove(at: sectionStart)
        }
        if activeFormatting.count >= Self.formattingListLimit { activeFormatting.removeFirst() }
        activeFormatting.append(FormattingEntry(node: node, tag: tag))
    }

    /// Whether two elements' attributes are the same set (names are unique per element and
    /// namespace); a set for many, not a search per attribute.
    static func sameAttributes(_ a: [HTMLAttribute], _ b: [HTMLAttribute]) -> Bool {
        guard a.count == b.count else { return false }
        guard a.count > 8 else {
            return a.allSatisfy { attribute in
                b.contains { $0.name == attribute.name && $0.value == attribute.value && $0.namespace == attribute.namespace }
            }
        }
        return Set(a) == Set(b)
    }

    /// What reconstruction may create in one parse, beyond one element per 16 bytes of input.
    static let reconstructionAllowance = 4096

    /// Reconstruction re-opens, on each text or formatting tag, every formatting element implicitly
    /// closed since: markup that closes many at once (`</p>`) between each character recreated them
    /// all each time, quadratic in the input (issue 21). What it may create in one parse is bounded
    /// by `reconstructionBudget` (`reconstructionAllowance` plus one element per 16 bytes of input,
    /// far more than mail uses); past it the text goes in without its formatting.
    mutating func reconstructActiveFormatting() {
        guard let last = activeFormatting.last, let lastNode = last.node, !openElements.contains(lastNode) else { return }
        var index = activeFormatting.count - 1
        while index > 0 {
            let previous = activeFormatting[index - 1]
            guard let node = previous.node, !openElements.contains(node) else { break }
            index -= 1
        }
        guard reconstructionBudget >= activeFormatting.count - index else { return }
        reconstructionBudget -= activeFormatting.count - index
        while index < activeFormatting.count {
            let entry = activeFormatting[index]
            let entries = activeFormatting.count
            let node = insertHTMLElement(entry.tag!)
            // With the stack full, inserting first closed the current node, and closing a cell or a
            // caption clears the list back to its marker: the entries being reopened may be gone
            // (a fuzz find: indexing past the list's end).
            guard activeFormatting.count == entries else { break }
            activeFormatting[index] = FormattingEntry(node: node, tag: entry.tag)
            index += 1
        }
    }

    mutating func appendFormattingMarker() {
        if activeFormatting.count >= Self.formattingListLimit { activeFormatting.removeFirst() }
        activeFormatting.append(.marker)
    }

    mutating func clearFormattingToLastMarker() {
        while let entry = activeFormatting.popLast(), entry.node != nil {}
    }

    /// Searched from the end in place: a closure over the entries copied each one, its tag's
    /// attributes with it.
    func formattingIndex(of node: ElementRef) -> Int? {
        activeFormatting.withUnsafeBufferPointer { entries in
            var index = entries.count - 1
            while index >= 0 {
                if entries[index].node?.id == node.id { return index }
                index -= 1
            }
            return nil
        }
    }

    /// Section 13.2.6.4.7: the adoption agency algorithm. Returns false for "any other end tag".
    mutating func adoptionAgency(_ subject: HTMLTagName) -> Bool {
        if let current = currentNode, current.isHTML(subject), formattingIndex(of: current) == nil {
            openElements.removeLast()
            return true
        }
        for _ in 0..<8 {
            var formattingEntryIndex: Int?
            for index in activeFormatting.indices.reversed() {
                guard let node = activeFormatting[index].node else { break }
                if node.isHTML(subject) {
                    formattingEntryIndex = index
                    break
                }
            }
            guard let entryIndex = formattingEntryIndex, let formattingElement = activeFormatting[entryIndex].node else { return false }
            guard openElements.contains(formattingElement), let stackIndex = openElements.lastIndex(where: { $0 == formattingElement }) else {
                activeFormatting.remove(at: entryIndex)
                return true
            }
            guard nodeInScope(formattingElement) else { return true }
            var furthestBlockIndex: Int?
            for index in (stackIndex + 1)..<openElements.count where Self.isSpecial(openElements[index]) {
                furthestBlockIndex = index
                break
            }
            guard let furthestIndex = furthestBlockIndex else {
                while let popped = openElements.popLast(), popped != formattingElement {}
                activeFormatting.remove(at: entryIndex)
                return true
            }
            let furthestBlock = openElements[furthestIndex]
            let commonAncestor = openElements[stackIndex - 1]
            var bookmark = entryIndex
            var node = furthestBlock
            var lastNode = furthestBlock
            var nodeIndex = furthestIndex
            var innerCounter = 0
            while true {
                innerCounter += 1
                nodeIndex -= 1
                node = openElements[nodeIndex]
                if node == formattingElement { break }
                var nodeFormattingIndex = formattingIndex(of: node)
                if innerCounter > 3, let index = nodeFormattingIndex {
                    activeFormatting.remove(at: index)
                    if index < bookmark { bookmark -= 1 }
                    nodeFormattingIndex = nil
                }
                guard let formattingIndexOfNode = nodeFormattingIndex else {
                    openElements.remove(at: nodeIndex)
                    continue
                }
                let tag = activeFormatting[formattingIndexOfNode].tag!
                let replacement = createElement(tag, namespace: .html)
                activeFormatting[formattingIndexOfNode] = FormattingEntry(node: replacement, tag: tag)
                openElements.replace(at: nodeIndex, with: replacement)
                node = replacement
                if lastNode == furthestBlock { bookmark = formattingIndexOfNode + 1 }
                tree.append(lastNode.id, to: node.id)
                lastNode = node
            }
            insert(lastNode.id, at: insertionPlace(overriding: commonAncestor))
            let tag = activeFormatting[entryIndex].tag!
            let newElement = createElement(tag, namespace: .html)
            tree.moveChildren(of: furthestBlock.id, to: newElement.id)
            tree.append(newElement.id, to: furthestBlock.id)
            activeFormatting.remove(at: entryIndex)
            if entryIndex < bookmark { bookmark -= 1 }
            activeFormatting.insert(FormattingEntry(node: newElement, tag: tag), at: min(bookmark, activeFormatting.count))
            remove(fromStack: formattingElement)
            if openElements.contains(furthestBlock), let index = openElements.lastIndex(where: { $0 == furthestBlock }) {
                openElements.insert(newElement, at: index + 1)
            }
        }
        return true
    }
}
