/// One header field as received: its name and its unfolded raw value (still bytes: a header may
/// carry 8-bit text in any charset, decoded only where its meaning is known).
public struct HeaderField: Sendable, Hashable {
    public var name: String
    /// Lowercased name, for lookups.
    public var key: String
    public var rawValue: ArraySlice<UInt8>

    /// The value as text: RFC 2047 decoded, 8-bit bytes read as UTF-8 or else Latin-1.
    public var decodedValue: String {
        var problems: [String] = []
        return EncodedWordDecoder.decode(rawValue.trimmingWhitespace(), problems: &problems)
    }
}

/// The header section of a message or body part (RFC 5322 section 2.2, with the obsolete syntax
/// of section 4.5: whitespace before the colon, and tolerance for lines that are not fields).
public struct HeaderSection: Sendable {
    /// Fields kept per header section (a message's or a part's); the rest are dropped and reported,
    /// and the section is still read to its end, so the body starts where it should. Real mail has
    /// tens, a long relay chain a few hundred (docs/decisions.md, issue 21).
    public static let maxFields = 1_000

    public var fields: [HeaderField]

    public init(fields: [HeaderField]) { self.fields = fields }

    public func first(_ lowercaseName: String) -> HeaderField? {
        fields.first { $0.key == lowercaseName }
    }

    public func all(_ lowercaseName: String) -> [HeaderField] {
        fields.filter { $0.key == lowercaseName }
    }

    /// Parses from `start` to the blank line that ends the header section. Returns the section and
    /// the index where the body starts.
    static func parse(_ bytes: [UInt8], from start: Int, to end: Int, problems: inout [ParseProblem], partId: String)
        -> (HeaderSection, bodyStart: Int)
    {
        var fields: [HeaderField] = []
        fields.reserveCapacity(24)
        var index = start
        var current: (name: ArraySlice<UInt8>, valueStart: Int, lines: [ArraySlice<UInt8>])? = nil
        var reportedJunk = false
        var reportedLimit = false

        func finish() {
            guard let field = current else { return }
            current = nil
            guard fields.count < maxFields else {
                if !reportedLimit {
                    problems.append(ParseProblem(.limit, partId: partId, "more than \(maxFields) header fields; the rest dropped"))
                    reportedLimit = true
                }
                return
            }
            let value: ArraySlice<UInt8>
            if field.lines.count == 1 {
                value = field.lines[0]
            } else {
                // Unfold (RFC 5322 section 2.2.3): the line break goes, the whitespace after it stays.
                var joined: [UInt8] = []
                for line in field.lines { joined.append(contentsOf: line) }
                value = joined[...]
            }
            let name = String(headerBytes: field.name)
            fields.append(HeaderField(name: name, key: name.lowercasedASCII, rawValue: value))
        }

        bytes.withUnsafeBufferPointer { buffer in
            while index < end {
                // One line: [index, lineEnd) without its CRLF / LF.
                var lineEnd = index
                while lineEnd < end, buffer[lineEnd] != ASCII.lf { lineEnd += 1 }
                let next = lineEnd < end ? lineEnd + 1 : end
                var contentEnd = lineEnd
                if contentEnd > index, buffer[contentEnd - 1] == ASCII.cr { contentEnd -= 1 }
                if contentEnd == index {
                    index = next // blank line: the body follows
                    finish()
                    return
                }
                let first = buffer[index]
                if first == ASCII.space || first == ASCII.tab {
                    if current != nil {
                        current!.lines.append(bytes[index..<contentEnd])
                    } else if !reportedJunk {
                        problems.append(ParseProblem(.malformedHeader, partId: partId, "continuation line before any header field"))
                        reportedJunk = true
                    }
                    index = next
                    continue
                }
                finish()
                var colon = index
                while colon < contentEnd, buffer[colon] != ASCII.colon { colon += 1 }
                var nameEnd = colon
                while nameEnd > index, buffer[nameEnd - 1] == ASCII.space || buffer[nameEnd - 1] == ASCII.tab { nameEnd -= 1 }
                let nameIsValid =
                    colon < contentEnd && nameEnd > index
                    && bytes[index..<nameEnd].allSatisfy { $0 > 32 && $0 < 127 }
                if nameIsValid {
                    current = (bytes[index..<nameEnd], colon + 1, [bytes[(colon + 1)..<contentEnd]])
                } else if fields.isEmpty && index == start && !bytes[index..<contentEnd].contains(ASCII.colon) {
                    // No header at all: the message is body only (seen from broken generators).
                    problems.append(ParseProblem(.malformedHeader, partId: partId, "no header section"))
                    return
                } else if !reportedJunk {
                    problems.append(
                        ParseProblem(
                            .malformedHeader, partId: partId,
                            "line is not a header field: \(String(headerBytes: bytes[index..<min(contentEnd, index + 60)]))"))
                    reportedJunk = true
                }
                index = next
            }
            finish()
        }
        return (HeaderSection(fields: fields), index)
    }
}
