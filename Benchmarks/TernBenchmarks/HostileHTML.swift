/// Markup built to make an HTML parser, sanitizer or text extractor slow, deep or large, for
/// `tern-bench hostile-html`, the tests and the fuzz seeds (issue 21). Each input is about `size`
/// bytes; the cost of handling it must grow with its size, not faster.
public enum HostileHTML {
    public struct Shape: Sendable {
        public let name: String
        public let make: @Sendable (_ size: Int) -> [UInt8]
    }

    public static let shapes: [Shape] = [
        Shape(name: "nested div") { repeated("<div>", toFill: $0) },
        Shape(name: "nested mixed") { repeated("<div><span><b><blockquote><ul><li><i><font><em><section>", toFill: $0) },
        Shape(name: "nested with tables") { repeated("<div><span><b><blockquote><ul><li><i><table><tr><td><font><p><em>", toFill: $0) },
        Shape(name: "attributes") { size in
            // One tag with as many distinct attributes as fit.
            var bytes = Array("<p".utf8)
            var index = 0
            while bytes.count < size - 16 {
                bytes += " a\(index)=x".utf8
                index += 1
            }
            return bytes + Array(">text</p>".utf8)
        },
        Shape(name: "html attributes twice") { size in
            var attributes = ""
            var index = 0
            while attributes.utf8.count < size / 2 - 16 {
                attributes += " a\(index)=x"
                index += 1
            }
            return Array("<html\(attributes)><html\(attributes)>x".utf8)
        },
        Shape(name: "p in button, divs") { Array("<p><button>".utf8) + repeated("<div>", toFill: $0 - 11) },
        Shape(name: "formatting reopened") { size in
            // Formatting elements that differ in an attribute, implicitly closed by `</p>` and
            // reconstructed before each character.
            var bytes = Array("<p>".utf8)
            var index = 0
            while bytes.count < size / 2 {
                bytes += "<b id=\(index)>".utf8
                index += 1
            }
            return bytes + repeated("</p><p>x", toFill: size - bytes.count)
        },
        Shape(name: "distinct formatting") { size in
            var bytes: [UInt8] = []
            var index = 0
            while bytes.count < size {
                bytes += "<b id=\(index)>".utf8
                index += 1
            }
            return bytes
        },
        Shape(name: "unknown end tags") {
            Array("<x>".utf8) + repeated("<span>", count: 510) + repeated("</y>", toFill: $0 - 3 - 510 * 6)
        },
        Shape(name: "unknown nested, end tags") { repeated("<x>", count: 510) + repeated("</y>", toFill: $0 - 1530) },
        Shape(name: "fostered siblings") { Array("<table>".utf8) + repeated("<a></a>x", toFill: $0 - 7) },
        // Text and spaces alternating in a table: fostered before it a piece at a time (a node per
        // piece stayed in the tree's array until issue 21's review).
        Shape(name: "fostered text pieces") { Array("<table>".utf8) + repeated("x ", toFill: $0 - 7) },
        Shape(name: "foreign end tags") { Array("<svg>".utf8) + repeated("<g>", count: 510) + repeated("</x>", toFill: $0 - 5 - 1530) },
        Shape(name: "links in tables") { repeated("<a href=https://a.example/><table><tr><td>", toFill: $0 / 2) + repeated("x", toFill: $0 / 2) },
        Shape(name: "quotes, then breaks") { repeated("<blockquote>", count: 510) + repeated("<br>", toFill: $0 - 510 * 12) },
        Shape(name: "attribution lines") { repeated("<div>On Monday Bob wrote:<blockquote>", toFill: $0 / 2) + repeated("x", toFill: $0 / 2) }
    ]

    public static func shape(named name: String) -> Shape? { shapes.first { $0.name == name } }

    static func repeated(_ unit: String, count: Int) -> [UInt8] {
        let bytes = Array(unit.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count * max(count, 0))
        for _ in 0..<max(count, 0) { result += bytes }
        return result
    }

    static func repeated(_ unit: String, toFill size: Int) -> [UInt8] {
        repeated(unit, count: max(size, 0) / max(unit.utf8.count, 1))
    }
}
