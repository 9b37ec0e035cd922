/// A token of the HTML tokenizer (WHATWG HTML, section 13.2.5). Text is UTF-8 bytes: the
/// tokenizer works on bytes, and names are ASCII-lowercased as the standard says.
public enum HTMLToken: Sendable, Hashable {
    case doctype(HTMLDoctype)
    case startTag(HTMLTag)
    case endTag(HTMLTag)
    case comment([UInt8])
    /// A run of characters (consecutive character tokens, merged).
    case characters([UInt8])
    case endOfFile
}

public struct HTMLDoctype: Sendable, Hashable {
    public var name: [UInt8]?
    public var publicIdentifier: [UInt8]?
    public var systemIdentifier: [UInt8]?
    public var forceQuirks = false
}

public struct HTMLAttribute: Sendable, Hashable {
    public var name: [UInt8]
    public var value: [UInt8]
    /// For foreign elements: `xlink`, `xml`, `xmlns` (set by the tree builder).
    public var prefix: [UInt8]?
    public var namespace: HTMLNamespace?

    public init(name: [UInt8], value: [UInt8], prefix: [UInt8]? = nil, namespace: HTMLNamespace? = nil) {
        self.name = name
        self.value = value
        self.prefix = prefix
        self.namespace = namespace
    }

    public init(_ name: String, _ value: String) {
        self.init(name: Array(name.utf8), value: Array(value.utf8))
    }
}

public struct HTMLTag: Sendable, Hashable {
    public var name: [UInt8] { didSet { knownName = nil } }
    /// In source order; a repeated name keeps its first value (the standard drops the others).
    public var attributes: [HTMLAttribute]
    public var selfClosing: Bool
    /// `name` looked up once by the tokenizer (when it emits the tag), so that the insertion modes a
    /// token passes through do not each look it up again. Not part of the tag's identity.
    var knownName: HTMLTagName?

    public init(name: [UInt8], attributes: [HTMLAttribute] = [], selfClosing: Bool = false) {
        self.name = name
        self.attributes = attributes
        self.selfClosing = selfClosing
    }

    public func attribute(_ name: String) -> [UInt8]? {
        let key = Array(name.utf8)
        return attributes.first { $0.name == key }?.value
    }

    init(name: [UInt8], knownName: HTMLTagName) {
        self.name = name
        attributes = []
        selfClosing = false
        self.knownName = knownName
    }

    public static func == (lhs: HTMLTag, rhs: HTMLTag) -> Bool {
        lhs.name == rhs.name && lhs.attributes == rhs.attributes && lhs.selfClosing == rhs.selfClosing
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(attributes)
        hasher.combine(selfClosing)
    }
}

public enum HTMLNamespace: Sendable, Hashable {
    case html, svg, mathml, xlink, xml, xmlns
}
