/// The DNS messages discovery needs (RFC 1035 section 4): a query for one name and type, and the
/// parse of any answer a server (or a stranger on the path, since plain DNS is unauthenticated)
/// sends back: compression pointers followed with a bound on hops and on the name's length,
/// records bounded by the message, the truncation bit reported so the caller asks again over TCP.
public struct DNSMessage: Sendable, Hashable {
    public struct RecordType: RawRepresentable, Sendable, Hashable {
        public var rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }
        public static let cname = RecordType(rawValue: 5)
        public static let mx = RecordType(rawValue: 15)
        /// RFC 2782.
        public static let srv = RecordType(rawValue: 33)
    }

    public struct Question: Sendable, Hashable {
        public var name: String
        public var type: RecordType
        public var recordClass: UInt16
    }

    public enum RecordData: Sendable, Hashable {
        case srv(priority: UInt16, weight: UInt16, port: UInt16, target: String)
        case mx(preference: UInt16, exchange: String)
        case cname(String)
        /// A type discovery does not read; its bytes are skipped.
        case other
    }

    public struct Record: Sendable, Hashable {
        public var name: String
        public var type: RecordType
        public var recordClass: UInt16
        public var ttl: UInt32
        public var data: RecordData
    }

    public var id: UInt16
    public var isResponse: Bool
    /// TC: the answer did not fit in the datagram (RFC 1035 4.1.1); ask again over TCP.
    public var isTruncated: Bool
    /// RCODE: 0 no error, 2 server failure, 3 no such name (NXDOMAIN), …
    public var responseCode: UInt8
    public var questions: [Question]
    public var answers: [Record]

    public static let noError: UInt8 = 0
    public static let nameError: UInt8 = 3
    /// The class IN.
    public static let internet: UInt16 = 1
    /// More records than any real answer holds is a hostile one; the rest are not read.
    public static let maxRecords = 256
    /// A compression pointer chain longer than this loops.
    static let maxPointerHops = 64

    public enum ParseError: Error, Sendable, Hashable {
        case truncatedMessage
        case malformedName(String)
        case tooLarge
    }

    public enum BuildError: Error, Sendable, Hashable {
        case invalidName(String)
    }

    /// A standard query with recursion desired for `name` (ASCII, dots between labels).
    public static func query(id: UInt16, name: String, type: RecordType) throws(BuildError) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xFF), 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]
        let trimmed = name.hasSuffix(".") ? String(name.dropLast()) : name
        guard !trimmed.isEmpty, trimmed.utf8.count <= 253 else { throw .invalidName(name) }
        for label in trimmed.split(separator: ".", omittingEmptySubsequences: false) {
            let utf8 = Array(label.utf8)
            guard (1...63).contains(utf8.count), utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw .invalidName(name) }
            bytes.append(UInt8(utf8.count))
            bytes += utf8
        }
        bytes.append(0)
        bytes += [UInt8(type.rawValue >> 8), UInt8(type.rawValue & 0xFF), 0, UInt8(internet)]
        return bytes
    }

    public static func parse(_ bytes: [UInt8]) throws(ParseError) -> DNSMessage {
        guard bytes.count <= 65535 else { throw .tooLarge }
        var reader = Reader(bytes: bytes)
        let id = try reader.uint16()
        let flags = try reader.uint16()
        let questionCount = Int(try reader.uint16())
        let answerCount = Int(try reader.uint16())
        _ = try reader.uint16() // authority
        _ = try reader.uint16() // additional
        var message = DNSMessage(
            id: id, isResponse: flags & 0x8000 != 0, isTruncated: flags & 0x0200 != 0, responseCode: UInt8(flags & 0x000F), questions: [],
            answers: [])
        // A truncated answer may end anywhere: what is whole is kept, the caller asks again over TCP.
        do throws(ParseError) {
            for _ in 0..<min(questionCount, maxRecords) {
                let name = try reader.name()
                let type = RecordType(rawValue: try reader.uint16())
                let recordClass = try reader.uint16()
                message.questions.append(Question(name: name, type: type, recordClass: recordClass))
            }
            for _ in 0..<min(answerCount, maxRecords) {
                message.answers.append(try reader.record())
            }
        } catch {
            guard error == .truncatedMessage && message.isTruncated else { throw error }
        }
        return message
    }

    struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func uint8() throws(ParseError) -> UInt8 {
            guard offset < bytes.count else { throw .truncatedMessage }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func uint16() throws(ParseError) -> UInt16 {
            guard offset + 2 <= bytes.count else { throw .truncatedMessage }
            defer { offset += 2 }
            return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
        }

        mutating func uint32() throws(ParseError) -> UInt32 {
            let high = try uint16()
            let low = try uint16()
            return UInt32(high) << 16 | UInt32(low)
        }

        /// A name at the reader's offset, which moves past it (past the first pointer, if any).
        mutating func name() throws(ParseError) -> String {
            let (name, end) = try Self.name(in: bytes, at: offset)
            offset = end
            return name
        }

        /// A name starting at `start` and the offset just after it in place. Bytes outside
        /// printable ASCII, and the dot and backslash inside a label, are written `\DDD` (RFC 1035 5.1).
        static func name(in bytes: [UInt8], at start: Int) throws(ParseError) -> (String, Int) {
            var labels: [String] = []
            var position = start
            var end: Int?
            var hops = 0
            var length = 0
            while true {
                guard position < bytes.count else { throw .truncatedMessage }
                let lengthByte = bytes[position]
                switch lengthByte & 0xC0 {
                case 0xC0:
                    guard position + 1 < bytes.count else { throw .truncatedMessage }
                    hops += 1
                    guard hops <= maxPointerHops else { throw .malformedName("compression pointers loop") }
                    if end == nil { end = position + 2 }
                    position = Int(lengthByte & 0x3F) << 8 | Int(bytes[position + 1])
                case 0x00:
                    let count = Int(lengthByte)
                    if count == 0 {
                        return (labels.isEmpty ? "." : labels.joined(separator: "."), end ?? position + 1)
                    }
                    guard position + 1 + count <= bytes.count else { throw .truncatedMessage }
                    length += count + 1
                    guard length <= 255 else { throw .malformedName("a name over 255 bytes") }
                    labels.append(escaped(bytes[(position + 1)...(position + count)]))
                    position += 1 + count
                default:
                    throw .malformedName("a label type RFC 6891 retired")
                }
            }
        }

        static func escaped(_ label: ArraySlice<UInt8>) -> String {
            var text = ""
            for byte in label {
                if byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: ".") && byte != UInt8(ascii: "\\") {
                    text.unicodeScalars.append(UnicodeScalar(byte))
                } else {
                    let digits = String(byte)
                    text += "\\" + String(repeating: "0", count: 3 - digits.count) + digits
                }
            }
            return text
        }

        mutating func record() throws(ParseError) -> Record {
            let name = try name()
            let type = RecordType(rawValue: try uint16())
            let recordClass = try uint16()
            let ttl = try uint32()
            let length = Int(try uint16())
            guard offset + length <= bytes.count else { throw .truncatedMessage }
            let dataEnd = offset + length
            defer { offset = dataEnd }
            // The data is read within its own length: a name inside may point anywhere before, but
            // fixed fields never run past the record.
            var data = Reader(bytes: Array(bytes[..<dataEnd]), offset: offset)
            let parsed: RecordData
            switch type {
            case .srv:
                parsed = .srv(priority: try data.uint16(), weight: try data.uint16(), port: try data.uint16(), target: try data.nameWithin(bytes))
            case .mx:
                parsed = .mx(preference: try data.uint16(), exchange: try data.nameWithin(bytes))
            case .cname:
                parsed = .cname(try data.nameWithin(bytes))
            default:
                parsed = .other
            }
            return Record(name: name, type: type, recordClass: recordClass, ttl: ttl, data: parsed)
        }

        /// A name in a record's data: its own labels end within the data; pointers may reach
        /// anywhere in the whole message.
        mutating func nameWithin(_ message: [UInt8]) throws(ParseError) -> String {
            guard offset < bytes.count else { throw .truncatedMessage }
            let (name, end) = try Self.name(in: message, at: offset)
            guard end <= bytes.count else { throw .malformedName("a name runs past its record") }
            offset = end
            return name
        }
    }
}
