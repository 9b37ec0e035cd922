import Foundation
import MIME

/// Parses one complete response (as cut by `ResponseFramer`) into an `IMAPResponse`, rule by rule
/// after RFC 9051's grammar. Known server quirks are accepted in small, commented alternatives:
/// NIL where a string is due (Exchange), `()` for an empty parameter list, atoms with odd characters
/// (Yahoo), lowercase keywords, missing text after a status.
public struct ResponseParser: Sendable {
    public var maxDepth = 64

    public init() {}

    public func parse(_ bytes: [UInt8]) throws(IMAPProtocolError) -> IMAPResponse {
        var cursor = Cursor(bytes: bytes, maxDepth: maxDepth)
        do {
            return try cursor.response()
        } catch let error as IMAPProtocolError {
            throw error
        } catch {
            throw .malformed(reason: "\(error)", bytes: bytes)
        }
    }
}

struct ParseFailure: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}

struct Cursor {
    let bytes: [UInt8]
    var index = 0
    var depth = 0
    let maxDepth: Int

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    var atEnd: Bool { index >= bytes.count }
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    func fail(_ reason: String) -> ParseFailure {
        ParseFailure(reason: "\(reason) at byte \(index)")
    }

    mutating func expect(_ byte: UInt8) throws {
        guard peek == byte else { throw fail("expected '\(Character(UnicodeScalar(byte)))'") }
        index += 1
    }

    mutating func skipSpaces() {
        while peek == 32 { index += 1 }
    }

    /// SP, tolerating several (servers pad) and none before `)`.
    mutating func space() throws {
        guard peek == 32 else { throw fail("expected space") }
        skipSpaces()
    }

    mutating func optionalSpace() -> Bool {
        guard peek == 32 else { return false }
        skipSpaces()
        return true
    }

    mutating func restOfLine() -> String {
        let text = String(decoding: bytes[min(index, bytes.count)...], as: UTF8.self)
        index = bytes.count
        return text
    }

    // MARK: - Basic values

    static func isAtomChar(_ byte: UInt8) -> Bool {
        // atom-specials: ( ) { SP CTL % * " \ ]; we allow % * ] outside lists as servers do (flags like \*).
        !(byte <= 32 || byte == 127 || byte == 40 || byte == 41 || byte == 123 || byte == 34)
    }

    /// An atom (flags like `\Seen` included), stopping at `]` inside a response code and at `[` for `BODY[`.
    mutating func atom(stopAtBracket: Bool = false) throws -> String {
        let start = index
        while let byte = peek, Self.isAtomChar(byte), !(stopAtBracket && (byte == 93 || byte == 91)) { index += 1 }
        guard index > start else { throw fail("expected atom") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// A keyword compared case-insensitively: uppercased as bytes, without Unicode case mapping.
    mutating func atomUppercased(stopAtBracket: Bool = false) throws -> String {
        let start = index
        while let byte = peek, Self.isAtomChar(byte), !(stopAtBracket && (byte == 93 || byte == 91)) { index += 1 }
        guard index > start else { throw fail("expected atom") }
        return Self.asciiCased(bytes[start..<index], upper: true)
    }

    static func asciiCased(_ slice: ArraySlice<UInt8>, upper: Bool) -> String {
        var needsWork = false
        for byte in slice where upper ? (byte >= 97 && byte <= 122) : (byte >= 65 && byte <= 90) {
            needsWork = true
            break
        }
        guard needsWork else { return String(headerBytes: slice) }
        return String(
            headerBytes: slice.map { byte in
                if upper, byte >= 97, byte <= 122 { return byte - 32 }
                if !upper, byte >= 65, byte <= 90 { return byte + 32 }
                return byte
            })
    }

    /// An nstring as lowercased text (MIME type, subtype, encoding, disposition), or nil for NIL.
    mutating func lowercasedText() throws -> String? {
        guard let value = try nstring() else { return nil }
        return Self.asciiCased(value[...], upper: false)
    }

    mutating func number() throws -> UInt64 {
        let start = index
        var value: UInt64 = 0
        while let byte = peek, byte >= 48, byte <= 57 {
            let (multiplied, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (added, overflow2) = multiplied.addingReportingOverflow(UInt64(byte - 48))
            guard !overflow1, !overflow2 else { throw fail("number too large") }
            value = added
            index += 1
        }
        guard index > start else { throw fail("expected number") }
        return value
    }

    mutating func number32() throws -> UInt32 {
        let value = try number()
        guard value <= UInt64(UInt32.max) else { throw fail("number over 32 bits") }
        return UInt32(value)
    }

    mutating func isNIL() -> Bool {
        guard index + 3 <= bytes.count,
            bytes[index] | 0x20 == 110, bytes[index + 1] | 0x20 == 105, bytes[index + 2] | 0x20 == 108
        else { return false }
        let after = index + 3 < bytes.count ? bytes[index + 3] : 32
        guard after == 32 || after == 41 || after == 93 else { return false }
        index += 3
        return true
    }

    /// string = quoted / literal
    /// Strings are slices of the response's bytes (no copy) unless unescaping made new ones.
    mutating func string() throws -> ArraySlice<UInt8> {
        switch peek {
        case 34: return try quoted()
        case 123, 126: return try literal()
        default: throw fail("expected string")
        }
    }

    mutating func quoted() throws -> ArraySlice<UInt8> {
        try expect(34)
        // Fast path: no escape before the closing quote, no copy.
        var end = index
        while end < bytes.count, bytes[end] != 34, bytes[end] != 92 { end += 1 }
        if end < bytes.count, bytes[end] == 34 {
            let value = bytes[index..<end]
            index = end + 1
            return value
        }
        var value: [UInt8] = []
        while let byte = peek {
            index += 1
            if byte == 92, let next = peek {
                value.append(next)
                index += 1
                continue
            }
            if byte == 34 { return value[...] }
            value.append(byte)
        }
        throw fail("unterminated quoted string")
    }

    mutating func literal() throws -> ArraySlice<UInt8> {
        if peek == 126 { index += 1 } // ~ binary literal
        try expect(123)
        let size = try number()
        if peek == 43 || peek == 45 { index += 1 }
        try expect(125)
        if peek == 13 { index += 1 }
        try expect(10)
        guard size <= UInt64(bytes.count - index) else { throw fail("literal runs past the response") }
        let value = bytes[index..<(index + Int(size))]
        index += Int(size)
        return value
    }

    /// nstring = string / NIL (Exchange sends `""` and NIL interchangeably).
    mutating func nstring() throws -> ArraySlice<UInt8>? {
        if isNIL() { return nil }
        return try string()
    }

    /// astring = 1*ASTRING-CHAR / string
    mutating func astring() throws -> ArraySlice<UInt8> {
        if peek == 34 || peek == 123 || peek == 126 { return try string() }
        let start = index
        while let byte = peek, Self.isAtomChar(byte) || byte == 93 { index += 1 }
        guard index > start else { throw fail("expected astring") }
        return bytes[start..<index]
    }

    static func text(_ bytes: ArraySlice<UInt8>?) -> String? {
        bytes.map { String(headerBytes: $0) }
    }

    /// A parenthesised list of flags or atoms.
    mutating func atomList() throws -> [String] {
        try expect(40)
        var items: [String] = []
        skipSpaces()
        while peek != 41 {
            guard !atEnd else { throw fail("unterminated list") }
            if peek == 34 || peek == 123 { items.append(String(headerBytes: try string())) } else { items.append(try atom()) }
            skipSpaces()
        }
        index += 1
        return items
    }

    /// Any value, skipped: for extension data and attributes Tern does not use.
    mutating func skipValue() throws {
        skipSpaces()
        guard let byte = peek else { return }
        switch byte {
        case 40:
            depth += 1
            defer { depth -= 1 }
            guard depth <= maxDepth else { throw IMAPProtocolError.nestingTooDeep }
            index += 1
            skipSpaces()
            while peek != 41 {
                guard !atEnd else { throw fail("unterminated list") }
                try skipValue()
                skipSpaces()
            }
            index += 1
        case 34, 123, 126: _ = try string()
        default:
            let start = index
            while let next = peek, next != 32, next != 41, next != 40 {
                if next == 91 { // BODY[...] style: skip to the matching ]
                    while let inner = peek, inner != 93 { index += 1 }
                }
                index += 1
            }
            if index == start { index += 1 }
        }
    }

    // MARK: - Responses

    mutating func response() throws -> IMAPResponse {
        guard let first = peek else { throw fail("empty response") }
        if first == 43 { // +
            index += 1
            skipSpaces()
            return .continuation(restOfLine())
        }
        if first == 42 { // *
            index += 1
            try space()
            return .untagged(try untagged())
        }
        let tag = try atom()
        try space()
        let state = try responseState()
        return .tagged(tag: tag, state: state)
    }

    mutating func responseState() throws -> ResponseState {
        let word = try atomUppercased(stopAtBracket: true)
        guard let status = ResponseState.Status(rawValue: word) else { throw fail("unknown status \(word)") }
        skipSpaces()
        var code: ResponseCode?
        if peek == 91 {
            code = try responseCode()
            skipSpaces()
        }
        return ResponseState(status: status, code: code, text: restOfLine())
    }

    mutating func responseCode() throws -> ResponseCode {
        try expect(91)
        let name = try atomUppercased(stopAtBracket: true)
        defer {
            // Skip whatever is left up to the closing bracket (unknown arguments).
            while let byte = peek, byte != 93 { index += 1 }
            if peek == 93 { index += 1 }
        }
        switch name {
        case "ALERT": return .alert
        case "READ-ONLY": return .readOnly
        case "READ-WRITE": return .readWrite
        case "TRYCREATE": return .tryCreate
        case "NOMODSEQ": return .noModSeq
        case "CLOSED": return .closed
        case "UIDVALIDITY":
            try space()
            return .uidValidity(try number32())
        case "UIDNEXT":
            try space()
            return .uidNext(try number32())
        case "UNSEEN":
            try space()
            return .unseen(try number32())
        case "HIGHESTMODSEQ":
            try space()
            return .highestModSeq(try number())
        case "CAPABILITY":
            var capabilities: [String] = []
            while optionalSpace(), peek != 93 { capabilities.append(try atom(stopAtBracket: true)) }
            return .capability(capabilities)
        case "PERMANENTFLAGS":
            try space()
            return .permanentFlags(try atomList())
        case "APPENDUID":
            try space()
            let validity = try number32()
            try space()
            return .appendUID(uidValidity: validity, uids: try uidSet())
        case "COPYUID":
            try space()
            let validity = try number32()
            try space()
            let source = try uidSet()
            try space()
            return .copyUID(uidValidity: validity, source: source, destination: try uidSet())
        default:
            var text: String?
            if optionalSpace() {
                let start = index
                while let byte = peek, byte != 93 { index += 1 }
                text = String(decoding: bytes[start..<index], as: UTF8.self)
            }
            return .other(name: name, text: text)
        }
    }

    /// RFC 4731: `* ESEARCH [(TAG "A1")] [UID] *(SP name SP value)`. Return data Tern never asks for is
    /// refused rather than skipped: its syntax is the extension's own.
    mutating func extendedSearch() throws -> ExtendedSearchResult {
        var result = ExtendedSearchResult()
        var spaced = optionalSpace()
        if spaced, peek == 40 {
            index += 1
            guard try atomUppercased() == "TAG" else { throw fail("bad ESEARCH correlator") }
            try space()
            result.tag = String(decoding: try string(), as: UTF8.self)
            try expect(41)
            spaced = optionalSpace()
        }
        while spaced, !atEnd {
            defer { spaced = optionalSpace() }
            let name = try atomUppercased()
            if name == "UID" {
                result.uid = true
                continue
            }
            try space()
            switch name {
            case "ALL": result.all = try uidSet()
            case "MIN": result.min = try number32()
            case "MAX": result.max = try number32()
            case "COUNT": result.count = try number32()
            case "MODSEQ": result.highestModSeq = try number()
            default: throw fail("unexpected ESEARCH data \(name)")
            }
        }
        return result
    }

    mutating func uidSet() throws -> UIDSet {
        guard let set = UIDSet.parse(bytes, at: &index) else { throw fail("bad uid set") }
        if let byte = peek, (byte >= 48 && byte <= 57) || byte == 58 || byte == 42 { throw fail("bad uid set") }
        return set
    }

    mutating func untagged() throws -> UntaggedResponse {
        if let byte = peek, byte >= 48, byte <= 57 {
            let number = try number32()
            try space()
            let word = try atomUppercased()
            switch word {
            case "EXISTS": return .exists(number)
            case "RECENT": return .recent(number)
            case "EXPUNGE": return .expunge(sequence: number)
            case "FETCH":
                try space()
                return .fetch(sequence: number, attributes: try fetchAttributes())
            default: return .other(name: word, text: restOfLine())
            }
        }
        let word = try atomUppercased(stopAtBracket: true)
        switch word {
        case "OK", "NO", "BAD", "BYE", "PREAUTH":
            index -= word.utf8.count
            return .state(try responseState())
        case "CAPABILITY":
            var capabilities: [String] = []
            while optionalSpace(), !atEnd { capabilities.append(try atom()) }
            return .capability(capabilities)
        case "ENABLED":
            var items: [String] = []
            while optionalSpace(), !atEnd { items.append(try atom()) }
            return .enabled(items)
        case "FLAGS":
            try space()
            return .flags(try atomList())
        case "LIST", "XLIST":
            try space()
            return .list(try listing())
        case "LSUB":
            try space()
            return .lsub(try listing())
        case "STATUS":
            try space()
            let mailbox = MailboxName.decode(String(headerBytes: try astring()))
            try space()
            try expect(40)
            var attributes: [String: UInt64] = [:]
            var mailboxId: String?
            skipSpaces()
            while peek != 41 {
                guard !atEnd else { throw fail("unterminated STATUS") }
                let name = try atomUppercased()
                try space()
                if name == "MAILBOXID" {
                    mailboxId = try objectId()
                } else {
                    attributes[name] = try number()
                }
                skipSpaces()
            }
            index += 1
            return .status(mailbox: mailbox, attributes: attributes, mailboxId: mailboxId)
        case "SEARCH", "SORT":
            var ids: [UInt32] = []
            var modSeq: UInt64?
            while optionalSpace(), !atEnd {
                if peek == 40 { // (MODSEQ n), RFC 7162
                    index += 1
                    _ = try atom()
                    try space()
                    modSeq = try number()
                    try expect(41)
                } else {
                    ids.append(try number32())
                }
            }
            return .search(ids: ids, highestModSeq: modSeq)
        case "ESEARCH":
            return .extendedSearch(try extendedSearch())
        case "VANISHED":
            try space()
            var earlier = false
            if peek == 40 {
                _ = try atomList()
                earlier = true
                try space()
            }
            return .vanished(earlier: earlier, uids: try uidSet())
        case "NAMESPACE":
            try space()
            let personal = try namespaceList()
            try space()
            let others = try namespaceList()
            try space()
            let shared = try namespaceList()
            return .namespace(Namespaces(personal: personal, otherUsers: others, shared: shared))
        case "ID":
            try space()
            var fields: [String: String] = [:]
            if isNIL() { return .id(fields) }
            try expect(40)
            skipSpaces()
            while peek != 41 {
                guard !atEnd else { throw fail("unterminated ID") }
                let key = String(headerBytes: try string())
                try space()
                fields[key] = Self.text(try nstring())
                skipSpaces()
            }
            index += 1
            return .id(fields)
        default:
            skipSpaces()
            return .other(name: word, text: restOfLine())
        }
    }

    /// objectid = 1*255(ALPHA / DIGIT / "_" / "-") in parentheses (RFC 8474 section 7).
    mutating func objectId() throws -> String {
        try expect(40)
        let start = index
        while let byte = peek, byte == 45 || byte == 95 || (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) {
            index += 1
        }
        guard index > start, index - start <= 255 else { throw fail("invalid objectid") }
        let id = String(decoding: bytes[start..<index], as: UTF8.self)
        try expect(41)
        return id
    }

    /// Namespace = nil / "(" 1*Namespace-Descr ")" (RFC 2342 section 5); each descriptor is
    /// "(" string SP (DQUOTE QUOTED_CHAR DQUOTE / nil) *(Namespace-Response-Extension) ")".
    mutating func namespaceList() throws -> [Namespaces.Descriptor] {
        if isNIL() { return [] }
        try expect(40)
        var descriptors: [Namespaces.Descriptor] = []
        skipSpaces()
        while peek != 41 {
            guard !atEnd else { throw fail("unterminated NAMESPACE") }
            guard descriptors.count < Self.maxNamespaces else { throw fail("more than \(Self.maxNamespaces) namespaces") }
            try expect(40)
            let prefix = MailboxName.decode(String(headerBytes: try string()))
            try space()
            let delimiter: String? = isNIL() ? nil : String(headerBytes: try quoted())
            // Extensions (TRANSLATION…) are not used.
            skipSpaces()
            while peek != 41 {
                guard !atEnd else { throw fail("unterminated NAMESPACE") }
                try skipValue()
                skipSpaces()
            }
            index += 1
            descriptors.append(Namespaces.Descriptor(prefix: prefix, delimiter: delimiter))
            skipSpaces()
        }
        index += 1
        return descriptors
    }

    /// No server has more than a handful; a server sending more is broken or hostile.
    static let maxNamespaces = 64

    /// mailbox-list = "(" [mbx-list-flags] ")" SP (DQUOTE QUOTED-CHAR DQUOTE / nil) SP mailbox [SP mbox-list-extended]
    mutating func listing() throws -> MailboxListing {
        let attributes = try atomList()
        try space()
        let delimiter: String? = isNIL() ? nil : String(headerBytes: try quoted())
        try space()
        let raw = String(headerBytes: try astring())
        // Extended data (CHILDINFO, OLDNAME) is not used.
        while optionalSpace(), !atEnd { try skipValue() }
        return MailboxListing(attributes: attributes, delimiter: delimiter, name: MailboxName.decode(raw), rawName: raw)
    }

    // MARK: - FETCH

    /// No request of Tern's asks for more; a server sending more is broken or hostile.
    static let maxFetchAttributes = 256

    mutating func fetchAttributes() throws -> [FetchAttribute] {
        try expect(40)
        var attributes: [FetchAttribute] = []
        skipSpaces()
        while peek != 41 {
            guard !atEnd else { throw fail("unterminated FETCH") }
            guard attributes.count < Self.maxFetchAttributes else { throw fail("more than \(Self.maxFetchAttributes) FETCH attributes") }
            attributes.append(try fetchAttribute())
            skipSpaces()
        }
        index += 1
        return attributes
    }

    mutating func fetchAttribute() throws -> FetchAttribute {
        let name = try atomUppercased(stopAtBracket: true)
        switch name {
        case "UID":
            try space()
            return .uid(try number32())
        case "FLAGS":
            try space()
            return .flags(try atomList())
        case "RFC822.SIZE":
            try space()
            return .rfc822Size(try number())
        case "INTERNALDATE":
            try space()
            let value = try string()
            guard let date = Self.internalDate(bytes: Array(value)) else { throw fail("bad INTERNALDATE \(String(headerBytes: value))") }
            return .internalDate(date)
        case "MODSEQ":
            try space()
            try expect(40)
            let value = try number()
            try expect(41)
            return .modSeq(value)
        case "X-GM-MSGID":
            try space()
            return .gmailMessageID(try number())
        case "X-GM-THRID":
            try space()
            return .gmailThreadID(try number())
        case "X-GM-LABELS":
            try space()
            return .gmailLabels(try atomList())
        case "ENVELOPE":
            try space()
            return .envelope(try envelope())
        case "BODYSTRUCTURE":
            try space()
            return .bodyStructure(try body(partId: "", isRoot: true))
        case "BODY", "BINARY", "RFC822", "RFC822.HEADER", "RFC822.TEXT", "BODY.PEEK", "BINARY.PEEK":
            if (name == "BODY") && peek == 32 {
                try space()
                return .bodyStructure(try body(partId: "", isRoot: true))
            }
            var section = name == "RFC822.HEADER" ? "HEADER" : name == "RFC822.TEXT" ? "TEXT" : ""
            if peek == 91 {
                index += 1
                let start = index
                var nesting = 0
                while let byte = peek, !(byte == 93 && nesting == 0) {
                    if byte == 40 { nesting += 1 }
                    if byte == 41 { nesting -= 1 }
                    index += 1
                }
                section = String(decoding: bytes[start..<index], as: UTF8.self)
                try expect(93)
            }
            var origin: UInt64?
            if peek == 60 { // <origin>
                index += 1
                origin = try number()
                try expect(62)
            }
            try space()
            return .bodySection(section: section, origin: origin, data: try nstring().map { Array($0) })
        default:
            // An item Tern did not ask for, possibly with a section (`BINARY.SIZE[1] 2048`).
            if peek == 91 {
                while let byte = peek, byte != 93 { index += 1 }
                try expect(93)
            }
            try space()
            try skipValue()
            return .other(name: name)
        }
    }

    /// date-time on bytes, exactly as servers send it: `dd-Mon-yyyy hh:mm:ss +zzzz` (or ` d-…`);
    /// anything else goes to the tolerant `internalDate(_: String)`.
    static func internalDate(bytes b: [UInt8]) -> Date? {
        guard b.count == 26 || b.count == 25 else { return internalDate(String(headerBytes: b)) }
        let o = b.count - 26 // -1 when the day has one digit and no padding
        func digit(_ i: Int) -> Int? { b[i] >= 48 && b[i] <= 57 ? Int(b[i] - 48) : nil }
        func two(_ i: Int) -> Int? {
            guard let a = digit(i), let c = digit(i + 1) else { return nil }
            return a * 10 + c
        }
        let dayTens = o == 0 ? (b[0] == 32 ? 0 : digit(0)) : 0
        guard let dayTens, let dayOnes = digit(1 + o), b[2 + o] == 45, b[6 + o] == 45, b[11 + o] == 32, b[14 + o] == 58, b[17 + o] == 58,
            b[20 + o] == 32, b[21 + o] == 43 || b[21 + o] == 45,
            let yearHigh = two(7 + o), let yearLow = two(9 + o), let hour = two(12 + o), let minute = two(15 + o), let second = two(18 + o),
            let zoneHours = two(22 + o), let zoneMinutes = two(24 + o)
        else { return internalDate(String(headerBytes: b)) }
        let month = (b[3 + o] | 0x20, b[4 + o] | 0x20, b[5 + o] | 0x20)
        let names: [(UInt8, UInt8, UInt8)] = [
            (106, 97, 110), (102, 101, 98), (109, 97, 114), (97, 112, 114), (109, 97, 121), (106, 117, 110),
            (106, 117, 108), (97, 117, 103), (115, 101, 112), (111, 99, 116), (110, 111, 118), (100, 101, 99)
        ]
        guard let monthIndex = names.firstIndex(where: { $0 == month }) else { return nil }
        let day = dayTens * 10 + dayOnes
        let year = yearHigh * 100 + yearLow
        guard (1...31).contains(day), (1900...2200).contains(year), hour < 24, minute < 60, second <= 60 else { return nil }
        let offset = (b[21 + o] == 45 ? -1 : 1) * (zoneHours * 60 + zoneMinutes)
        let days = DateParser.daysFromCivil(year: year, month: monthIndex + 1, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86400 + hour * 3600 + minute * 60 + second - offset * 60))
    }

    /// `"17-Jul-1996 02:44:25 -0700"` (date-time); a space may stand for the leading zero of the day.
    static func internalDate(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let pieces = trimmed.split(whereSeparator: { $0 == "-" || $0 == " " || $0 == ":" })
        guard pieces.count == 7, let day = Int(pieces[0]), let year = Int(pieces[2]), let hour = Int(pieces[3]),
            let minute = Int(pieces[4]), let second = Int(pieces[5])
        else { return DateParser.parse(trimmed) }
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        guard let monthIndex = months.firstIndex(of: pieces[1].lowercased()) else { return nil }
        // zone = ("+" / "-") 4DIGIT; anything else is not a date-time (and must not overflow).
        let zone = Array(pieces[6].utf8.drop(while: { $0 == 43 })) // "+0200"; a "-" was a separator
        let sign = trimmed.contains(" -") ? -1 : 1
        guard zone.count == 4, zone.allSatisfy({ $0 >= 48 && $0 <= 57 }), (1...31).contains(day), (1900...2200).contains(year),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        let zoneValue = zone.reduce(0) { $0 * 10 + Int($1 - 48) }
        let offset = sign * ((zoneValue / 100) * 60 + zoneValue % 100)
        let days = DateParser.daysFromCivil(year: year, month: monthIndex + 1, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86400 + hour * 3600 + minute * 60 + second - offset * 60))
    }

    /// envelope = "(" env-date SP env-subject SP env-from SP env-sender SP env-reply-to SP env-to SP
    ///            env-cc SP env-bcc SP env-in-reply-to SP env-message-id ")"
    mutating func envelope() throws -> Envelope {
        try expect(40)
        let date = Self.text(try nstring())
        try space()
        let subject = try nstring().map { EncodedWordDecoder.decode(bytes: $0) }
        try space()
        let fromStart = index
        let from = try addressList()
        let fromBytes = bytes[fromStart..<index]
        try space()
        // Servers repeat From as Sender and Reply-To: the same bytes parse the same, once.
        let sender = try addressList(sameAs: fromBytes, parsed: from)
        try space()
        let replyTo = try addressList(sameAs: fromBytes, parsed: from)
        try space()
        let to = try addressList()
        try space()
        let cc = try addressList()
        try space()
        let bcc = try addressList()
        try space()
        let inReplyTo = Self.text(try nstring())
        try space()
        let messageId = Self.text(try nstring())
        skipSpaces()
        try expect(41)
        return Envelope(
            date: date, subject: subject, from: from, sender: sender, replyTo: replyTo, to: to, cc: cc, bcc: bcc,
            inReplyTo: inReplyTo, messageId: messageId)
    }

    /// "(" 1*address ")" / nil; address = "(" addr-name SP addr-adl SP addr-mailbox SP addr-host ")".
    /// Group syntax (RFC 9051 7.5.2): a NIL host starts (name in mailbox) or ends (NIL mailbox) a group.
    mutating func addressList(sameAs previous: ArraySlice<UInt8>, parsed: [IMAPAddress]) throws -> [IMAPAddress] {
        let end = index + previous.count
        if previous.count > 3, end <= bytes.count, bytes[index..<end].elementsEqual(previous) {
            index = end
            return parsed
        }
        return try addressList()
    }

    mutating func addressList() throws -> [IMAPAddress] {
        if isNIL() { return [] }
        try expect(40)
        var result: [IMAPAddress] = []
        skipSpaces()
        while peek != 41 {
            guard !atEnd else { throw fail("unterminated address list") }
            try expect(40)
            let name = try nstring()
            try space()
            _ = try nstring()
            try space()
            let mailbox = try nstring()
            try space()
            let host = try nstring()
            skipSpaces()
            try expect(41)
            skipSpaces()
            guard let host, let mailbox else { continue } // group start or end
            let decodedName = name.map { EncodedWordDecoder.decode(bytes: $0) }
            let address = String(headerBytes: mailbox) + (host.isEmpty ? "" : "@" + String(headerBytes: host))
            result.append(IMAPAddress(name: decodedName?.isEmpty == true ? nil : decodedName, address: address))
        }
        index += 1
        return result
    }

    // MARK: - BODYSTRUCTURE → MIMEPart

    /// body = "(" (body-type-1part / body-type-mpart) ")", numbered as `BODY[section]` expects:
    /// a single-part message's body is "1"; a message/rfc822 part "k" holds "k.1", "k.2"…
    mutating func body(partId: String, isRoot: Bool) throws -> MIMEPart {
        depth += 1
        defer { depth -= 1 }
        guard depth <= maxDepth else { throw IMAPProtocolError.nestingTooDeep }
        try expect(40)
        skipSpaces()
        if peek == 40 {
            // body-type-mpart = 1*body SP media-subtype [SP body-ext-mpart]
            var children: [MIMEPart] = []
            var number = 1
            while peek == 40 {
                let childId = partId.isEmpty ? "\(number)" : "\(partId).\(number)"
                children.append(try body(partId: childId, isRoot: false))
                number += 1
                skipSpaces()
            }
            let subtype = Self.asciiCased(try string()[...], upper: false)
            var part = MIMEPart(partId: partId, contentType: "multipart/\(subtype)", children: children)
            if optionalSpace(), peek != 41 {
                part.parameters = try parameterList()
                if optionalSpace(), peek != 41 { try disposition(into: &part) }
                while optionalSpace(), peek != 41 { try skipValue() } // language, location, extensions
            }
            skipSpaces()
            try expect(41)
            return part
        }
        let leafId = isRoot ? "1" : partId
        let type = try lowercasedText() ?? "application"
        try space()
        let subtype = try lowercasedText() ?? "octet-stream"
        try space()
        // body-fields = body-fld-param SP body-fld-id SP body-fld-desc SP body-fld-enc SP body-fld-octets
        let parameters = try parameterList()
        try space()
        let contentId = Self.text(try nstring()).map { id in
            id.hasPrefix("<") && id.hasSuffix(">") ? String(id.dropFirst().dropLast()) : id
        }
        try space()
        let description = try nstring().map { EncodedWordDecoder.decode(bytes: $0) }
        try space()
        let encoding = try lowercasedText() ?? "7bit"
        try space()
        let size = try signedTolerantNumber()
        var part = MIMEPart(
            partId: leafId, contentType: "\(type)/\(subtype)", parameters: parameters, contentId: contentId,
            contentDescription: description, transferEncoding: encoding, sizeBytes: Int(size))
        if type == "message" && (subtype == "rfc822" || subtype == "global") && optionalSpace() && peek == 40 {
            // body-type-msg: envelope, body, lines. Its inner parts are numbered under this part.
            let envelope = try envelope()
            try space()
            var inner = try body(partId: leafId, isRoot: false)
            if !inner.isMultipart { inner.partId = "\(leafId).1" }
            part.children = [inner]
            if part.parameters["name"] == nil, let subject = envelope.subject, !subject.isEmpty {
                part.parameters["name"] = subject + ".eml"
            }
            if optionalSpace(), peek != 41 { _ = try number() }
        } else if type == "text", optionalSpace(), peek != 41 {
            _ = try number() // body-fld-lines
        }
        // body-ext-1part = body-fld-md5 [SP body-fld-dsp [SP body-fld-lang [SP body-fld-loc *(SP body-extension)]]]
        if optionalSpace(), peek != 41 {
            try skipValue() // md5
            if optionalSpace(), peek != 41 { try disposition(into: &part) }
            while optionalSpace(), peek != 41 { try skipValue() }
        }
        skipSpaces()
        try expect(41)
        return part
    }

    /// Some servers send a negative or quoted size; read what can be read.
    mutating func signedTolerantNumber() throws -> UInt64 {
        if peek == 45 {
            index += 1
            _ = try number()
            return 0
        }
        if peek == 34 { return UInt64(String(headerBytes: try quoted())) ?? 0 }
        if isNIL() { return 0 }
        return try number()
    }

    /// body-fld-param = "(" string SP string *(SP string SP string) ")" / nil; `()` from some servers.
    /// RFC 2231 names (`filename*0*`) and RFC 2047 values are decoded as in a header.
    mutating func parameterList() throws -> [String: String] {
        if isNIL() { return [:] }
        try expect(40)
        var pairs: [(name: String, value: ArraySlice<UInt8>)] = []
        var needsHeaderRules = false
        skipSpaces()
        while peek != 41 {
            guard !atEnd else { throw fail("unterminated parameter list") }
            let name = Self.asciiCased(try string()[...], upper: false)
            try space()
            let value = try nstring() ?? []
            // RFC 2231 sections and charsets (`name*0*`) need the header parser's rules.
            if name.utf8.contains(42) { needsHeaderRules = true }
            pairs.append((name, value))
            skipSpaces()
        }
        index += 1
        if !needsHeaderRules {
            var parameters: [String: String] = [:]
            for (name, value) in pairs where parameters[name] == nil {
                parameters[name] = EncodedWordDecoder.decode(bytes: value)
            }
            return parameters
        }
        var header: [UInt8] = [120] // "x"
        for (name, value) in pairs {
            header += Array("; \(name)=\"".utf8)
            for byte in value {
                if byte == 92 || byte == 34 { header.append(92) }
                header.append(byte)
            }
            header.append(34)
        }
        var problems: [String] = []
        return ParameterizedValue.parse(header[...], problems: &problems).parameters
    }

    /// body-fld-dsp = "(" string SP body-fld-param ")" / nil
    mutating func disposition(into part: inout MIMEPart) throws {
        if isNIL() { return }
        guard peek == 40 else {
            try skipValue()
            return
        }
        try expect(40)
        part.disposition = Self.asciiCased(try string()[...], upper: false)
        try space()
        part.dispositionParameters = try parameterList()
        skipSpaces()
        try expect(41)
    }
}
