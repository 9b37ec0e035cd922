/// The stack of open elements (WHATWG HTML, section 13.2.4.3), indexed by element name and bounded
/// in depth.
///
/// Issue 21: the tree builder asks "is an element with one of these names in scope" on most start
/// tags, and walking the whole stack for the answer made deep markup quadratic (10,000 nested
/// `<div>`: 9 s in a debug build). Here each entry keeps the position of the next entry below it
/// with the same key, and each key the position of its topmost entry, so a push or a pop stays
/// O(1) and "the topmost element of these names" reads one number per name in the set. A change in
/// the middle of the stack (the adoption agency, a `form` or `head` taken off it) rebuilds the
/// index; those are rare and the stack is at most `capacity` long.
///
/// Keys: an HTML element's `nameIndex` (0 for a name Tern does not know), then one key for the
/// foreign elements that bound every scope and are special (MathML text integration points and
/// `annotation-xml`, SVG `foreignObject`, `desc`, `title`), and one for other foreign elements.
/// Elements whose names have no index (HTML names Tern does not know, foreign names) are also
/// chained by a hash of their name, so that an end tag looks only at the elements that may have
/// its name, and HTML elements by namespace, for the topmost HTML element.
struct OpenElementStack: RandomAccessCollection {
    /// WebKit's and Chromium's limit on the depth of the tree the parser builds: the root and 512
    /// levels below it. A start tag that finds the stack full first closes the current node, so the
    /// new element becomes its sibling (WebKit's `fast/parser/block-nesting-cap.html` tree: with 514
    /// nested `div`, the 512th and 513th are children of the 511th). Bounding the stack, not only the
    /// tree, bounds every walk of it, of the list of active formatting elements' reconstruction, and
    /// the recursion of anything that walks the tree. Hostile depth aside, mail nests a few dozen
    /// levels at most.
    static let capacity = 513

    static let foreignBoundaryKey = 256
    static let otherForeignKey = 257
    static let keyCount = 258

    static let bucketCount = 64

    /// For each entry, the position of the next entry below it in each chain it is in, or -1.
    private struct Links {
        var belowSameKey: Int32
        var belowHTML: Int32 = -1
        /// -1: not chained by name (a known HTML name).
        var bucket: Int16 = -1
        var belowSameBucket: Int32 = -1
    }

    private(set) var elements: [ElementRef] = []
    /// For each node of the tree (by index), how many times it is on the stack (0 or 1), so that
    /// "is it open" is not a search of the stack.
    private var entriesByNode: [UInt16] = []
    private var links: [Links] = []
    /// For each key, the position of its topmost entry, or -1.
    private var topmostByKey = [Int32](repeating: -1, count: keyCount)
    private var topmostByBucket = [Int32](repeating: -1, count: bucketCount)
    private var topmostHTMLPosition: Int32 = -1

    init() {
        elements.reserveCapacity(32)
        links.reserveCapacity(32)
    }

    var startIndex: Int { 0 }
    var endIndex: Int { elements.count }
    subscript(position: Int) -> ElementRef { elements[position] }

    var isFull: Bool { elements.count >= Self.capacity }

    static func key(of node: ElementRef) -> Int {
        switch node.namespace {
        case .html: Int(node.nameIndex)
        case .mathml: node.isHTML(known: TreeBuilder.mathMLScopeBoundaries, in: .mathml) ? foreignBoundaryKey : otherForeignKey
        case .svg: node.isHTML(known: TreeBuilder.svgIntegrationPoints, in: .svg) ? foreignBoundaryKey : otherForeignKey
        default: otherForeignKey
        }
    }

    // MARK: - Changes at the top

    /// Callers make room first (`isFull`): the tree builder closes the current node before it
    /// decides where the new element goes.
    mutating func append(_ node: ElementRef) {
        index(node, at: Int32(elements.count))
        elements.append(node)
        countEntry(of: node, 1)
    }

    private mutating func countEntry(of node: ElementRef, _ change: Int) {
        let index = Int(node.id.index)
        if index >= entriesByNode.count {
            entriesByNode.append(contentsOf: repeatElement(0, count: Swift.max(index + 1 - entriesByNode.count, entriesByNode.count)))
        }
        entriesByNode[index] = UInt16(Int(entriesByNode[index]) + change)
    }

    /// Chains the entry at the top, `position`.
    private mutating func index(_ node: ElementRef, at position: Int32) {
        let key = Self.key(of: node)
        var link = Links(belowSameKey: topmostByKey[key])
        topmostByKey[key] = position
        if node.namespace == .html {
            link.belowHTML = topmostHTMLPosition
            topmostHTMLPosition = position
        }
        if node.nameBucket >= 0 {
            let bucket = Int(node.nameBucket)
            link.bucket = node.nameBucket
            link.belowSameBucket = topmostByBucket[bucket]
            topmostByBucket[bucket] = position
        }
        links.append(link)
    }

    /// The hash of the ASCII-lowercased name (foreign end tags match names so) picks the bucket;
    /// `Hasher` is seeded per process, so markup cannot choose names that share one.
    static func bucket(of name: String) -> Int {
        var hasher = Hasher()
        for byte in name.utf8 { hasher.combine(byte >= 65 && byte <= 90 ? byte | 0x20 : byte) }
        return hasher.finalize() & (bucketCount - 1)
    }

    mutating func removeLast() {
        let node = elements.removeLast()
        let link = links.removeLast()
        topmostByKey[Self.key(of: node)] = link.belowSameKey
        if node.namespace == .html { topmostHTMLPosition = link.belowHTML }
        if link.bucket >= 0 { topmostByBucket[Int(link.bucket)] = link.belowSameBucket }
        countEntry(of: node, -1)
    }

    mutating func popLast() -> ElementRef? {
        guard let node = elements.last else { return nil }
        removeLast()
        return node
    }

    /// Removes the entries from `position` to the top.
    mutating func removeAll(from position: Int) {
        while elements.count > position { removeLast() }
    }

    // MARK: - Changes in the middle

    mutating func remove(at position: Int) {
        if position == elements.count - 1 {
            removeLast()
            return
        }
        countEntry(of: elements.remove(at: position), -1)
        rebuildIndex()
    }

    mutating func insert(_ node: ElementRef, at position: Int) {
        if position == elements.count {
            append(node)
            return
        }
        elements.insert(node, at: position)
        countEntry(of: node, 1)
        rebuildIndex()
    }

    mutating func replace(at position: Int, with node: ElementRef) {
        countEntry(of: elements[position], -1)
        elements[position] = node
        countEntry(of: node, 1)
        rebuildIndex()
    }

    /// Takes `node` off the stack wherever it is.
    mutating func remove(_ node: ElementRef) {
        guard contains(node), let position = elements.lastIndex(where: { $0 == node }) else { return }
        remove(at: position)
    }

    private mutating func rebuildIndex() {
        for key in topmostByKey.indices { topmostByKey[key] = -1 }
        for bucket in topmostByBucket.indices { topmostByBucket[bucket] = -1 }
        topmostHTMLPosition = -1
        links.removeAll(keepingCapacity: true)
        for (position, node) in elements.enumerated() { index(node, at: Int32(position)) }
    }

    // MARK: - Questions

    /// Whether `node` is on the stack, without searching it (asked on every character token by the
    /// reconstruction of the active formatting elements).
    func contains(_ node: ElementRef) -> Bool {
        Int(node.id.index) < entriesByNode.count && entriesByNode[Int(node.id.index)] > 0
    }

    /// Whether an HTML element with this name is on the stack.
    func contains(_ name: HTMLTagName) -> Bool { name != .unknown && topmostByKey[Int(name.rawValue)] >= 0 }

    /// The position of the topmost HTML element named in `names`, or -1.
    func topmost(_ names: HTMLTagSet) -> Int {
        var result: Int32 = -1
        names.forEachIndex { result = Swift.max(result, topmostByKey[$0]) }
        return Int(result)
    }

    /// The position of the topmost HTML element with this name, or -1.
    func topmost(_ name: HTMLTagName) -> Int {
        name == .unknown ? -1 : Int(topmostByKey[Int(name.rawValue)])
    }

    /// The position of the topmost foreign element that bounds scopes and is special, or -1.
    var topmostForeignBoundary: Int { Int(topmostByKey[Self.foreignBoundaryKey]) }

    /// The position of the topmost HTML element, or -1.
    var topmostHTML: Int { Int(topmostHTMLPosition) }

    /// The position of the topmost element above `floor` that is not an HTML element with a known
    /// name and that `matches`, or -1. Only the elements whose name hashes as `name` are asked.
    func topmostUnindexed(named name: String, above floor: Int, where matches: (ElementRef) -> Bool) -> Int {
        var position = topmostByBucket[Self.bucket(of: name)]
        while position > floor {
            if matches(elements[Int(position)]) { return Int(position) }
            position = links[Int(position)].belowSameBucket
        }
        return -1
    }

    /// The namespace of the current node (HTML when the stack is empty), without retaining it: asked
    /// for every token.
    var currentNamespace: HTMLNamespace {
        elements.withUnsafeBufferPointer { $0.last?.namespace ?? .html }
    }
}
