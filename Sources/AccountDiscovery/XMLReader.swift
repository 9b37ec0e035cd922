/// An element of a small XML document, as `XMLReader` gives it: the local name (any namespace
/// prefix dropped), attributes, the text directly inside it, and child elements.
public struct XMLElementNode: Sendable, Hashable {
    public var name: String
    public var attributes: [String: String]
    public var text: String
    public var children: [XMLElementNode]

    public init(name: String, attributes: [String: String] = [:], text: String = "", children: [XMLElementNode] = []) {
        self.name = name
        self.attributes = attributes
        self.text = text
        self.children = children
    }

    public func children(named name: String) -> [XMLElementNode] { children.filter { $0.name == name } }
    public func child(named name: String) -> XMLElementNode? { children.first { $0.name == name } }
    /// The first child's text, trimmed of white space.
    public func value(of name: String) -> String? {
        child(named: name).map { $0.text.trimmingWhitespace }
    }
}

public enum XMLReadError: Error, Sendable, Hashable {
    case malformed(String)
    case tooLarge(String)
}

/// Reads the well-formed subset of XML 1.0 that documents such as Thunderbird's clientConfig use:
/// elements, attributes, character and the five predefined entity references, CDATA sections;
/// comments, processing instructions and the document type declaration are skipped. Entities a
/// document declares are never expanded (no "billion laughs"); the input, the depth and the number
/// of elements are capped, and the reader is iterative, so a stranger's document (issue 35's
/// autoconfig and online database answers) costs bounded time and memory.
public enum XMLReader {
    public static let maxBytes = 256 * 1024
    public static let maxDepth = 32
    public static let maxElements = 4096

    public static func parse(_ bytes: [UInt8]) throws(XMLReadError) -> XMLElementNode {
        guard bytes.count <= maxBytes else { throw .tooLarge("the document is over \(maxBytes) bytes") }
        var scanner = Scanner(bytes: bytes)
        return try scanner.document()
    }

    struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var open: [XMLElementNode] = []
        var root: XMLElementNode?
        var elementCount = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
            // A UTF-8 byte order mark.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        }

        mutating func document() throws(XMLReadError) -> XMLElementNode {
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: "<") {
                    try markup()
                } else {
                    try characterData()
                }
            }
            guard open.isEmpty, let root else { throw .malformed(root == nil ? "no root element" : "an element is not closed") }
            return root
        }

        func startsWith(_ text: String) -> Bool {
            let pattern = Array(text.utf8)
            return bytes.count - index >= pattern.count && bytes[index..<index + pattern.count].elementsEqual(pattern)
        }

        /// Moves past the next `terminator`; the bytes before it.
        mutating func take(until terminator: String, what: String) throws(XMLReadError) -> ArraySlice<UInt8> {
            let pattern = Array(terminator.utf8)
            var position = index
            while position + pattern.count <= bytes.count {
                if bytes[position] == pattern[0] && bytes[position..<position + pattern.count].elementsEqual(pattern) {
                    let taken = bytes[index..<position]
                    index = position + pattern.count
                    return taken
                }
                position += 1
            }
            throw .malformed("\(what) is not closed")
        }

        mutating func markup() throws(XMLReadError) {
            if startsWith("<?") {
                _ = try take(until: "?>", what: "a processing instruction")
            } else if startsWith("<!--") {
                _ = try take(until: "-->", what: "a comment")
            } else if startsWith("<![CDATA[") {
                index += 9
                let text = try take(until: "]]>", what: "a CDATA section")
                try appendText(String(decoding: text, as: UTF8.self), raw: false)
            } else if startsWith("<!") {
                try skipDeclaration()
            } else if startsWith("</") {
                try endTag()
            } else {
                try startTag()
            }
        }

        /// `<!DOCTYPE …>` with its internal subset in brackets: skipped, never interpreted.
        mutating func skipDeclaration() throws(XMLReadError) {
            guard root == nil, open.isEmpty else { throw .malformed("a declaration inside the document") }
            var depth = 0
            var quote: UInt8?
            index += 2
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if let closing = quote {
                    if byte == closing { quote = nil }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: "[") {
                    depth += 1
                } else if byte == UInt8(ascii: "]") {
                    depth -= 1
                } else if byte == UInt8(ascii: ">") && depth <= 0 {
                    return
                }
            }
            throw .malformed("a declaration is not closed")
        }

        static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

        static func isNameByte(_ byte: UInt8) -> Bool {
            !isSpace(byte) && !"<>/=\"'&!?".utf8.contains(byte)
        }

        mutating func skipSpaces() {
            while index < bytes.count && Self.isSpace(bytes[index]) { index += 1 }
        }

        mutating func name(_ what: String) throws(XMLReadError) -> String {
            let start = index
            while index < bytes.count && Self.isNameByte(bytes[index]) { index += 1 }
            guard index > start else { throw .malformed("\(what) has no name") }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        static func localName(_ qualified: String) -> String {
            qualified.split(separator: ":", omittingEmptySubsequences: false).last.map(String.init) ?? qualified
        }

        mutating func startTag() throws(XMLReadError) {
            guard root == nil else { throw .malformed("content after the root element") }
            index += 1
            let qualified = try name("an element")
            var element = XMLElementNode(name: Self.localName(qualified))
            while true {
                skipSpaces()
                guard index < bytes.count else { throw .malformed("the tag <\(qualified)> is not closed") }
                if bytes[index] == UInt8(ascii: ">") {
                    index += 1
                    try push(element)
                    return
                }
                if startsWith("/>") {
                    index += 2
                    try push(element)
                    try close()
                    return
                }
                let attribute = try name("an attribute of <\(qualified)>")
                skipSpaces()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { throw .malformed("the attribute \(attribute) has no value") }
                index += 1
                skipSpaces()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
                    throw .malformed("the attribute \(attribute) is not quoted")
                }
                let quote = String(Character(UnicodeScalar(bytes[index])))
                index += 1
                let raw = try take(until: quote, what: "the attribute \(attribute)")
                guard !raw.contains(UInt8(ascii: "<")) else { throw .malformed("'<' in the attribute \(attribute)") }
                element.attributes[Self.localName(attribute)] = try Self.decodeReferences(raw)
            }
        }

        mutating func push(_ element: XMLElementNode) throws(XMLReadError) {
            elementCount += 1
            guard elementCount <= XMLReader.maxElements else { throw .tooLarge("over \(XMLReader.maxElements) elements") }
            guard open.count < XMLReader.maxDepth else { throw .tooLarge("elements nested over \(XMLReader.maxDepth) deep") }
            open.append(element)
        }

        /// Ends the innermost open element: it becomes its parent's last child, or the root.
        mutating func close() throws(XMLReadError) {
            guard let element = open.popLast() else { throw .malformed("an end tag without its start") }
            if open.isEmpty {
                root = element
            } else {
                open[open.count - 1].children.append(element)
            }
        }

        mutating func endTag() throws(XMLReadError) {
            index += 2
            let qualified = try name("an end tag")
            skipSpaces()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else { throw .malformed("the end tag </\(qualified)> is not closed") }
            index += 1
            guard let current = open.last, current.name == Self.localName(qualified) else {
                throw .malformed("the end tag </\(qualified)> does not match its start")
            }
            try close()
        }

        mutating func characterData() throws(XMLReadError) {
            let start = index
            while index < bytes.count && bytes[index] != UInt8(ascii: "<") { index += 1 }
            try appendText(try Self.decodeReferences(bytes[start..<index]), raw: true)
        }

        mutating func appendText(_ text: String, raw: Bool) throws(XMLReadError) {
            guard !open.isEmpty else {
                if text.utf8.allSatisfy(Self.isSpace) { return }
                throw .malformed("text outside the root element")
            }
            open[open.count - 1].text += text
        }

        /// Text with `&lt;`, `&gt;`, `&amp;`, `&quot;`, `&apos;` and `&#…;` replaced; any other
        /// reference is an entity the reader does not expand, so the document is refused.
        static func decodeReferences(_ raw: ArraySlice<UInt8>) throws(XMLReadError) -> String {
            guard raw.contains(UInt8(ascii: "&")) else { return String(decoding: raw, as: UTF8.self) }
            var output: [UInt8] = []
            output.reserveCapacity(raw.count)
            var position = raw.startIndex
            while position < raw.endIndex {
                let byte = raw[position]
                guard byte == UInt8(ascii: "&") else {
                    output.append(byte)
                    position += 1
                    continue
                }
                guard let semicolon = raw[position...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                    throw .malformed("an '&' that starts no reference")
                }
                let reference = String(decoding: raw[(position + 1)..<semicolon], as: UTF8.self)
                switch reference {
                case "lt": output.append(UInt8(ascii: "<"))
                case "gt": output.append(UInt8(ascii: ">"))
                case "amp": output.append(UInt8(ascii: "&"))
                case "quot": output.append(UInt8(ascii: "\""))
                case "apos": output.append(UInt8(ascii: "'"))
                default:
                    guard reference.hasPrefix("#"), let scalar = characterReference(reference.dropFirst()) else {
                        throw .malformed("the reference &\(reference); is not one of XML's own")
                    }
                    output.append(contentsOf: Array(String(Character(scalar)).utf8))
                }
                position = semicolon + 1
            }
            return String(decoding: output, as: UTF8.self)
        }

        static func characterReference(_ digits: Substring) -> Unicode.Scalar? {
            let value: UInt32? =
                digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            guard let value, value != 0 else { return nil }
            return Unicode.Scalar(value)
        }
    }
}

extension String {
    var trimmingWhitespace: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
