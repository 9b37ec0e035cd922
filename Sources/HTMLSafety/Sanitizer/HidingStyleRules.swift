/// The rules of a message's own style sheets that hide what they select, so that a tracking pixel
/// hidden by a class, id or element rule is found like one hidden by its inline style (issue 21,
/// privacy: a pixel in `<div class="hide">` with `.hide { display: none }` loaded when remote
/// images were allowed). The same declarations count as hiding as inline: `display: none`,
/// `visibility: hidden`, `opacity: 0`, a zero `max-height` or `max-width`
/// (`TrackerDetector.hides(style:)`), and for an image, a width or height of 1px or less.
///
/// Only top-level rules whose selector is one compound of a type, classes and ids (`.hide`,
/// `#pixel`, `img`, `img.open`) count: they apply whatever the screen, which is what the inline
/// check assumes too. Rules inside `@media` are the responsive layout (a column hidden on phones)
/// and are not read.
struct HidingStyleRules {
    /// `tag` is a `KnownElementName` index, 0 for any element; classes and ids are compared
    /// ASCII-case-insensitively, as quirks mode (most mail) does.
    struct Compound {
        var tag: UInt8 = 0
        var classes: [[UInt8]] = []
        var ids: [[UInt8]] = []
    }

    /// What the rules that select an element do to it.
    struct Effect {
        var hides = false
        var width: Double?
        var height: Double?

        mutating func combine(_ other: Effect) {
            hides = hides || other.hides
            if let size = other.width { width = min(width ?? size, size) }
            if let size = other.height { height = min(height ?? size, size) }
        }
    }

    private var rules: [(compound: Compound, effect: Effect)] = []
    /// Each rule is found under one key: its first class, else its first id, else its type.
    private var byClass = NameIndex()
    private var byID = NameIndex()
    private var byTag: [UInt8: [Int]] = [:]
    private var universal: [Int] = []
    private var indexedCount = 0

    var isEmpty: Bool { rules.isEmpty }

    /// What a rule's cleaned declarations do, or nil when they neither hide nor size to a pixel.
    static func effect(of declarations: [UInt8]) -> Effect? {
        var effect = Effect(hides: TrackerDetector.hides(style: declarations))
        ASCIIBytes.forEachDeclaration(in: declarations[...]) { property, value in
            if ASCIIBytes.equals(property, "width") || ASCIIBytes.equals(property, "max-width"), let size = TrackerDetector.dimension(value) {
                effect.width = min(effect.width ?? size, size)
            }
            if ASCIIBytes.equals(property, "height") || ASCIIBytes.equals(property, "max-height"), let size = TrackerDetector.dimension(value) {
                effect.height = min(effect.height ?? size, size)
            }
        }
        // A size above a pixel never makes an image one (sizes combine by their minimum).
        if let width = effect.width, width > 1 { effect.width = nil }
        if let height = effect.height, height > 1 { effect.height = nil }
        return effect.hides || effect.width != nil || effect.height != nil ? effect : nil
    }

    /// A kept rule's selectors that are one compound each, with what its declarations do.
    mutating func add(_ compounds: [Compound], effect: Effect) {
        for compound in compounds { rules.append((compound, effect)) }
    }

    /// Builds the lookup keys when rules came since the last time.
    mutating func indexIfNeeded() {
        guard indexedCount != rules.count else { return }
        indexedCount = rules.count
        byClass = NameIndex()
        byID = NameIndex()
        byTag = [:]
        universal = []
        for (position, rule) in rules.enumerated() {
            if let first = rule.compound.classes.first {
                byClass.add(first, rule: position)
            } else if let first = rule.compound.ids.first {
                byID.add(first, rule: position)
            } else if rule.compound.tag != 0 {
                byTag[rule.compound.tag, default: []].append(position)
            } else {
                universal.append(position)
            }
        }
        byClass.finish()
        byID.finish()
    }

    /// The combined effect of the rules that select `element` (after `indexIfNeeded`). The
    /// interface's markers are never selected, as in a browser, and the mail's own `tern-`
    /// classes are not read: the output has neither, and the next pass must see what this one saw.
    func effect(on element: NodeID, in tree: HTMLTree) -> Effect {
        guard !rules.isEmpty, tree[element].isElement, tree[element].namespace == .html else { return Effect() }
        // Methods rather than closures: a closure capturing `self` copied the whole rule set
        // (its arrays retained and released) for every element the sanitizer asked about.
        var found = Found()
        if !universal.isEmpty { consider(universal, element, tree, &found) }
        if !byTag.isEmpty, let tagged = byTag[tree[element].tagName.rawValue] { consider(tagged, element, tree, &found) }
        if !byID.isEmpty, let id = tree.attributeBytes(element, "id"), let listed = byID.rules(named: id) {
            consider(listed, element, tree, &found)
        }
        if !byClass.isEmpty, let classes = tree.attributeBytes(element, "class") {
            // A class the attribute lists twice applies its rules twice, which changes nothing.
            var tokens = ClassTokens(classes)
            while let name = tokens.next() {
                if !InterfaceMarkers.isReserved(name), let listed = byClass.rules(named: name) { consider(listed, element, tree, &found) }
            }
        }
        return found.matched && InterfaceMarkers.isMarker(element, in: tree) ? Effect() : found.effect
    }

    private struct Found {
        var effect = Effect()
        var matched = false
    }

    private func consider(_ positions: [Int], _ element: NodeID, _ tree: HTMLTree, _ found: inout Found) {
        for position in positions where matches(rules[position].compound, element, tree) {
            found.effect.combine(rules[position].effect)
            found.matched = true
        }
    }

    private func matches(_ compound: Compound, _ element: NodeID, _ tree: HTMLTree) -> Bool {
        if compound.tag != 0, tree[element].tagName.rawValue != compound.tag { return false }
        if !compound.ids.isEmpty {
            guard let id = tree.attributeBytes(element, "id") else { return false }
            for wanted in compound.ids where !Self.equalIgnoringASCIICase(id[...], wanted) { return false }
        }
        guard !compound.classes.isEmpty else { return true }
        guard let classes = tree.attributeBytes(element, "class") else { return false }
        for wanted in compound.classes {
            var tokens = ClassTokens(classes)
            var present = false
            while let name = tokens.next() {
                if !InterfaceMarkers.isReserved(name), Self.equalIgnoringASCIICase(name, wanted) {
                    present = true
                    break
                }
            }
            if !present { return false }
        }
        return true
    }

    static func equalIgnoringASCIICase(_ bytes: ArraySlice<UInt8>, _ other: [UInt8]) -> Bool {
        bytes.count == other.count && zip(bytes, other).allSatisfy { URLPolicy.lowercased($0) == URLPolicy.lowercased($1) }
    }
}

/// Rules found under a name (a class or an id), looked up on an attribute's bytes without
/// building a string, ASCII-case-insensitively.
private struct NameIndex {
    private var names: [String] = []
    private var slots: [String: Int] = [:]
    private var lists: [[Int]] = []
    private var keys = ASCIIKeywordSet([])

    var isEmpty: Bool { lists.isEmpty }

    mutating func add(_ name: [UInt8], rule: Int) {
        let key = String(decoding: name.map(URLPolicy.lowercased), as: UTF8.self)
        if let slot = slots[key] {
            lists[slot].append(rule)
        } else {
            slots[key] = names.count
            names.append(key)
            lists.append([rule])
        }
    }

    /// Builds the lookup, after the last `add`.
    mutating func finish() { keys = ASCIIKeywordSet(names) }

    func rules(named name: some Collection<UInt8>) -> [Int]? { keys.index(of: name).map { lists[$0] } }
}

/// The names of a `class` attribute, split at ASCII whitespace, without a closure per name.
struct ClassTokens {
    private let value: [UInt8]
    private var position: Int

    init(_ value: [UInt8]) {
        self.value = value
        position = value.startIndex
    }

    mutating func next() -> ArraySlice<UInt8>? {
        while position < value.endIndex, ASCIIBytes.isSpace(value[position]) { position += 1 }
        guard position < value.endIndex else { return nil }
        let start = position
        while position < value.endIndex, !ASCIIBytes.isSpace(value[position]) { position += 1 }
        return value[start..<position]
    }
}
