/// HTML serialization (WHATWG section 13.3, "serializing HTML fragments"): the markup whose
/// parse gives back the tree, for the trees the sanitizer produces.
public enum HTMLSerializer {
    static let voidElements: HTMLTagSet = [
        "area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "img", "input", "keygen", "link", "meta",
        "param", "source", "track", "wbr"
    ]
    static let rawTextElements: HTMLTagSet = ["style", "script", "xmp", "iframe", "noembed", "noframes", "plaintext"]

    /// The children of `node` (a document, fragment or element), serialized.
    public static func serialize(children node: HTMLNode) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(4096)
        write(descendantsOf: node, into: &output)
        return output
    }

    public static func serialize(_ node: HTMLNode) -> [UInt8] {
        var output: [UInt8] = []
        if writeStart(of: node, parent: nil, into: &output) {
            write(descendantsOf: node, into: &output)
            writeEnd(of: node, into: &output)
        }
        return output
    }

    /// Depth first with an explicit stack, not recursion (issue 21: deep trees).
    private static func write(descendantsOf root: HTMLNode, into output: inout [UInt8]) {
        root.walkDescendants(templates: true) { node, parent in
            writeStart(of: node, parent: parent, into: &output) ? .descend : .skipChildren
        } leave: { node in
            writeEnd(of: node, into: &output)
        }
    }

    /// Writes the node, or an element's start tag; true when its children and end tag follow.
    private static func writeStart(of node: HTMLNode, parent: HTMLNode?, into output: inout [UInt8]) -> Bool {
        switch node.kind {
        case .element:
            let name = node.name
            output.append(60)
            output += Array(name.utf8)
            for attribute in node.attributes {
                output.append(32)
                if let prefix = attribute.prefix {
                    output += prefix
                    output.append(58)
                }
                output += attribute.name
                output += [61, 34]
                escape(attribute.value, inAttribute: true, into: &output)
                output.append(34)
            }
            output.append(62)
            if node.namespace == .html, voidElements.contains(name) { return false }
            let children = node.templateContents?.children ?? node.children
            if node.namespace == .html, ["pre", "textarea", "listing"].contains(name), let first = children.first, first.isText,
                first.data.first == 10
            {
                // The parser drops one newline right after these start tags; keep the real one.
                output.append(10)
            }
            return true
        case .text:
            if let parent, parent.namespace == .html, rawTextElements.contains(parent.name) {
                output += node.data
            } else {
                escape(node.data, inAttribute: false, into: &output)
            }
            return false
        case .comment:
            output += [60, 33, 45, 45]
            output += node.data
            output += [45, 45, 62]
            return false
        case .doctype:
            output += Array("<!DOCTYPE \(node.doctype?.name ?? "")>".utf8)
            return false
        case .document, .fragment:
            return true
        }
    }

    private static func writeEnd(of node: HTMLNode, into output: inout [UInt8]) {
        guard node.isElement else { return }
        output += [60, 47]
        output += Array(node.name.utf8)
        output.append(62)
    }

    /// The ASCII bytes `escape` may replace, one bit each (all are below 64; the other byte it
    /// looks at is 0xC2, the lead of a no-break space): one test per byte on the common path.
    static let textStops: UInt64 = 1 << 38 | 1 << 60 | 1 << 62 | 1 << 13
    static let attributeStops: UInt64 = textStops | 1 << 34

    private static let lanes: UInt64 = 0x0101_0101_0101_0101

    /// Nonzero when a lane (byte) of `word` is zero; may also mark lanes above a zero one.
    @inline(__always) private static func zeroLanes(_ word: UInt64) -> UInt64 {
        (word &- lanes) & ~word & 0x8080_8080_8080_8080
    }

    /// `&` `<` `>` and no-break space in text; `&` `"` and no-break space in attribute values.
    /// `<` and `>` are escaped in attributes too: harmless, and it defeats mXSS through
    /// re-parsing in other contexts.
    static func escape(_ bytes: [UInt8], inAttribute: Bool, into output: inout [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let count = buffer.count
            // Runs without anything to escape are copied whole: most text has none. (Rebased to
            // buffers: appending a slice of one took the generic path.)
            var runStart = 0
            var index = 0
            let stops = inAttribute ? attributeStops : textStops
            // Four lane tests find every byte that may need escaping (SWAR: a lane of `word ^ target`
            // is zero where the byte is the target): `<` and `>` differ in one bit (0x02), as do `"`
            // and `&` (0x04, set only for attribute values); the scalar step below decides.
            let ampersandOrQuote = inAttribute ? 0x04 &* lanes : 0
            let angleBrackets = 0x02 &* lanes
            /// Escapes the byte at `index` when it needs it, and moves past it.
            @inline(__always) func scalarStep() {
                let byte = base[index]
                // Letters, digits, spaces and most punctuation: nothing to escape.
                if byte < 64 ? stops >> byte & 1 == 0 : byte != 0xC2 {
                    index += 1
                    return
                }
                let replacement: StaticString
                var width = 1
                switch byte {
                case 38: replacement = "&amp;"
                case 60: replacement = "&lt;"
                case 62: replacement = "&gt;"
                case 34 where inAttribute: replacement = "&quot;"
                // A carriage return read back is a line feed (input stream preprocessing): only a
                // character reference keeps one that came from `&#13;`.
                case 13: replacement = "&#13;"
                case 0xC2 where index + 1 < count && base[index + 1] == 0xA0:
                    replacement = "&nbsp;"
                    width = 2
                default:
                    index += 1
                    return
                }
                output.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: index - runStart))
                replacement.withUTF8Buffer { output.append(contentsOf: $0) }
                index += width
                runStart = index
            }
            while index + 8 <= count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                let found =
                    zeroLanes((word | ampersandOrQuote) ^ (38 &* lanes)) | zeroLanes((word | angleBrackets) ^ (62 &* lanes))
                    | zeroLanes(word ^ (13 &* lanes)) | zeroLanes(word ^ (0xC2 &* lanes))
                if found == 0 {
                    index += 8
                    continue
                }
                // These eight bytes one by one (a no-break space may end one past them).
                let end = index + 8
                while index < end { scalarStep() }
            }
            while index < count { scalarStep() }
            output.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: count - runStart))
        }
    }
}
