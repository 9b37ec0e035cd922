/// The element names the parser and the sanitizer test for, numbered once so that "is this one
/// of these elements" is a bit test instead of hashing a string: the tree builder asks it for
/// every element of the stack of open elements on most start tags (scope checks), which made
/// string sets the largest cost of parsing.
enum KnownElementName {
    /// Index 0 is "not a known name"; it is never a member of a set. The names are the
    /// `HTMLTagName` cases, so the enum and the table cannot disagree.
    static let names: [String] = HTMLTagName.allCases.map(\.elementName)

    static func index(of name: String) -> UInt8 { index(ofBytes: name.utf8) }

    /// `names` as the tokenizer spells them (lowercase, so `foreignobject`): an element's name
    /// without decoding its bytes again. Foreign elements get their adjusted case afterwards.
    static let lowercaseNames: [String] = names.map { $0.lowercased() }
}

/// A set of known element names as a 256-bit bitset.
struct HTMLTagSet: ExpressibleByArrayLiteral, Sendable {
    private var words = SIMD4<UInt64>()

    init(arrayLiteral names: String...) {
        for name in names { insert(name) }
    }

    init(single name: String) { insert(name) }

    init(_ name: HTMLTagName) {
        if name != .unknown { words[Int(name.rawValue >> 6)] |= UInt64(1) << UInt64(name.rawValue & 63) }
    }

    init(_ names: [String]) {
        for name in names { insert(name) }
    }

    private mutating func insert(_ name: String) {
        let index = KnownElementName.index(of: name)
        precondition(index != 0 && KnownElementName.names[Int(index)] == name, "\(name) is missing from KnownElementName.names")
        words[Int(index >> 6)] |= UInt64(1) << UInt64(index & 63)
    }

    func contains(index: UInt8) -> Bool {
        index != 0 && words[Int(index >> 6)] & (UInt64(1) << UInt64(index & 63)) != 0
    }

    func contains(_ name: String) -> Bool { contains(index: KnownElementName.index(of: name)) }

    /// Calls `body` with the index of each member, in increasing order.
    @inline(__always) func forEachIndex(_ body: (Int) -> Void) {
        for word in 0..<4 {
            var bits = words[word]
            while bits != 0 {
                body(word << 6 | bits.trailingZeroBitCount)
                bits &= bits &- 1
            }
        }
    }

    func subtracting(_ other: HTMLTagSet) -> HTMLTagSet {
        var result = self
        result.words = words & ~other.words
        return result
    }

    func union(_ other: HTMLTagSet) -> HTMLTagSet {
        var result = self
        result.words = words | other.words
        return result
    }
}

/// The known element names as an enum whose raw value is the name's index in
/// `KnownElementName.names`, so the tree builder's "a start tag whose tag name is one of …"
/// rules compile to jump tables instead of string comparisons.
enum HTMLTagName: UInt8, Sendable, CaseIterable {
    case unknown = 0
    case a, abbr, acronym, address, applet, area, article, aside, audio, b,
        base, basefont, bdi, bdo, bgsound, big, blink, blockquote, body, br,
        button, canvas, caption, center, cite, code, col, colgroup, data, datalist,
        dd, del, details, dfn, dialog, dir, div, dl, dt, em,
        embed, fencedframe, fieldset, figcaption, figure, font, footer, form, frame, frameset,
        h1, h2, h3, h4, h5, h6, head, header, hgroup, hr,
        html, i, iframe, image, img, input, ins, isindex, kbd, keygen,
        label, legend, li, link, listing, main, map, mark, marquee, math,
        menu, menuitem, meta, meter, multicol, nav, nextid, nobr, noembed, noframes,
        noscript, object, ol, optgroup, option, output, p, param, picture, plaintext,
        portal, pre, progress, q, rb, rp, rt, rtc, ruby, s,
        samp, script, search, section, select, selectedcontent, slot, small, source, spacer,
        span, strike, strong, style, sub, summary, sup, svg, table, tbody,
        td, template, textarea, tfoot, th, thead, time, title, tr, track,
        tt, u, ul, `var`, video, wbr, xmp, mi, mo, mn,
        ms, mtext, annotationXml, mglyph, malignmark, foreignObject, desc
}

extension HTMLTagName {
    /// The element's name as markup spells it.
    var elementName: String {
        switch self {
        case .unknown: ""
        case .annotationXml: "annotation-xml"
        default: String(describing: self)
        }
    }
}

extension KnownElementName {
    static let keywords: ASCIIKeywordSet = {
        precondition(names.count <= 256, "a tag set holds 256 names")
        return ASCIIKeywordSet(Array(names.dropFirst()))
    }()

    /// The name's index, from its bytes (tag names from the tokenizer are lowercase already).
    static func index<Bytes: Collection<UInt8>>(ofBytes bytes: Bytes) -> UInt8 {
        guard let position = keywords.index(of: bytes) else { return 0 }
        return UInt8(position + 1)
    }
}

extension HTMLTag {
    var tagName: HTMLTagName { knownName ?? HTMLTagName(rawValue: KnownElementName.index(ofBytes: name)) ?? .unknown }
}

/// An element's numbered name, asked alike of the parser's nodes (`HTMLTree.Header`), the tree
/// builder's `ElementRef` and the public `HTMLNode`.
protocol NumberedElementName {
    var namespace: HTMLNamespace { get }
    /// The name numbered for `HTMLTagSet` tests (0: a name Tern does not know, or not an element).
    var nameIndex: UInt8 { get }
    var isElement: Bool { get }
}

extension NumberedElementName {
    var tagName: HTMLTagName { HTMLTagName(rawValue: nameIndex) ?? .unknown }
    /// Whether this is an HTML element named in `names`.
    func isHTML(_ names: HTMLTagSet) -> Bool { namespace == .html && isElement && names.contains(index: nameIndex) }
    /// For a set of names that are all `KnownElementName.names`.
    func isHTML(known names: HTMLTagSet, in namespace: HTMLNamespace) -> Bool {
        self.namespace == namespace && isElement && names.contains(index: nameIndex)
    }
    func isHTML(_ name: HTMLTagName) -> Bool { namespace == .html && isElement && nameIndex == name.rawValue && name != .unknown }
}

extension HTMLNode: NumberedElementName {}
