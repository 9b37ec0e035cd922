import Foundation
import MIME

/// A FETCH data item Tern asks for (RFC 9051 section 6.4.5, RFC 7162 MODSEQ, Gmail's X-GM-*).
/// Body sections are always `.PEEK`: fetching must never set `\Seen` behind the user's back.
public enum FetchItem: Sendable, Hashable {
    case uid
    case flags
    case envelope
    case bodyStructure
    case internalDate
    case size
    case modSeq
    /// `BODY.PEEK[HEADER.FIELDS (…)]`: ENVELOPE has no References, so threading asks for it here.
    case headerFields([String])
    case header
    /// `BODY.PEEK[section]<offset.length>`: one MIME part, or a slice of it.
    case section(String, partial: Range<UInt64>? = nil)
    case gmailMessageID
    case gmailThreadID
    case gmailLabels

    var wireText: String {
        switch self {
        case .uid: "UID"
        case .flags: "FLAGS"
        case .envelope: "ENVELOPE"
        case .bodyStructure: "BODYSTRUCTURE"
        case .internalDate: "INTERNALDATE"
        case .size: "RFC822.SIZE"
        case .modSeq: "MODSEQ"
        case .headerFields(let names): "BODY.PEEK[HEADER.FIELDS (\(names.map { $0.uppercased() }.joined(separator: " ")))]"
        case .header: "BODY.PEEK[HEADER]"
        case .section(let section, let partial):
            "BODY.PEEK[\(section)]" + (partial.map { "<\($0.lowerBound).\($0.upperBound - $0.lowerBound)>" } ?? "")
        case .gmailMessageID: "X-GM-MSGID"
        case .gmailThreadID: "X-GM-THRID"
        case .gmailLabels: "X-GM-LABELS"
        }
    }
}

/// One message of a FETCH, attributes gathered into fields.
public struct FetchedMessage: Sendable, Hashable {
    public var sequence: UInt32
    public var uid: UInt32?
    public var flags: [String]?
    public var internalDate: Date?
    public var size: UInt64?
    public var envelope: Envelope?
    public var bodyStructure: MIMEPart?
    /// Body sections by the section text the server sent (`HEADER.FIELDS (REFERENCES)`, `1.2`, `TEXT`).
    public var sections: [String: [UInt8]] = [:]
    public var modSeq: UInt64?
    public var gmailMessageID: UInt64?
    public var gmailThreadID: UInt64?
    public var gmailLabels: [String]?

    public init(sequence: UInt32, attributes: [FetchAttribute]) {
        self.sequence = sequence
        for attribute in attributes {
            switch attribute {
            case .uid(let value): uid = value
            case .flags(let value): flags = value
            case .internalDate(let value): internalDate = value
            case .rfc822Size(let value): size = value
            case .envelope(let value): envelope = value
            case .bodyStructure(let value): bodyStructure = value
            case .bodySection(let section, _, let data): sections[section] = data ?? []
            case .modSeq(let value): modSeq = value
            case .gmailMessageID(let value): gmailMessageID = value
            case .gmailThreadID(let value): gmailThreadID = value
            case .gmailLabels(let value): gmailLabels = value
            case .other: break
            }
        }
    }

    /// The bytes of a `HEADER.FIELDS` fetch (whatever case and spacing the server used).
    public var headerFields: [UInt8]? {
        sections.first { $0.key.uppercased().hasPrefix("HEADER.FIELDS") }?.value
    }

    public func section(_ name: String) -> [UInt8]? {
        sections[name] ?? sections.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// UID SEARCH criteria Tern uses (RFC 9051 section 6.4.4).
public indirect enum SearchCriteria: Sendable, Hashable {
    case all
    case since(Date)
    case before(Date)
    case uids(UIDSet)
    /// Messages by sequence number: `low:high`.
    case sequences(ClosedRange<UInt32>)
    case unseen
    case flagged
    case deleted
    case header(name: String, value: String)
    case and([SearchCriteria])
    /// Any of them (nested binary ORs on the wire, RFC 9051 section 6.4.4).
    case any([SearchCriteria])

    func wireText() throws -> String {
        switch self {
        case .all: return "ALL"
        case .since(let date): return "SINCE \(Self.searchDate(date))"
        case .before(let date): return "BEFORE \(Self.searchDate(date))"
        case .uids(let set): return "UID \(set)"
        case .sequences(let range): return "\(range.lowerBound):\(range.upperBound)"
        case .unseen: return "UNSEEN"
        case .flagged: return "FLAGGED"
        case .deleted: return "DELETED"
        case .header(let name, let value): return "HEADER \(try IMAPSession.astring(name)) \(try IMAPSession.astring(value))"
        case .and(let parts): return try parts.map { try $0.wireText() }.joined(separator: " ")
        case .any(let parts):
            guard let last = parts.last else { return "NOT ALL" }
            return try parts.dropLast().reversed().reduce(try last.wireText()) { rest, part in "OR \(try part.wireText()) \(rest)" }
        }
    }

    /// `date` = day-month-year in UTC (servers compare dates without zone).
    static func searchDate(_ date: Date) -> String {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return "\(parts.day!)-\(months[parts.month! - 1])-\(parts.year!)"
    }
}

/// UID STORE modes (RFC 9051 section 6.4.6).
public enum StoreMode: String, Sendable {
    case add = "+FLAGS"
    case remove = "-FLAGS"
    case replace = "FLAGS"
}

/// What happened in a selected mailbox without Tern asking: delivered to the mailbox's handler,
/// during IDLE and between commands alike (FR-SYNC-03).
public enum MailboxEvent: Sendable, Hashable {
    /// The mailbox now holds `count` messages (new mail when it grew).
    case exists(count: UInt32)
    /// A message left; its UID when the sequence-to-UID map knew it.
    case expunged(sequence: UInt32, uid: UInt32?)
    /// QRESYNC: these UIDs left.
    case vanished(UIDSet)
    /// Another client changed flags.
    case flagsChanged(sequence: UInt32, uid: UInt32?, flags: [String], modSeq: UInt64?)
}

/// The `[APPENDUID …]` / `[COPYUID …]` answer of UIDPLUS (RFC 4315).
public struct UIDMapping: Sendable, Hashable {
    public var uidValidity: UInt32
    public var source: UIDSet?
    public var destination: UIDSet

    /// The mapping an APPENDUID or COPYUID code carries; nil for any other code.
    public init?(_ code: ResponseCode?) {
        switch code {
        case .appendUID(let validity, let uids)?:
            uidValidity = validity
            source = nil
            destination = uids
        case .copyUID(let validity, let sourceUIDs, let destinationUIDs)?:
            uidValidity = validity
            source = sourceUIDs
            destination = destinationUIDs
        default:
            return nil
        }
    }

    /// The destination UID of each of `sources` that COPYUID names, pairing the two sets member by
    /// member in ascending order (RFC 4315 section 3). Walks the ranges, never their members: the
    /// server's sets may name four billion UIDs (issue 21). Empty when the sets differ in size,
    /// where no pairing can be trusted.
    public func destinations(of sources: [UInt32]) -> [UInt32: UInt32] {
        guard let source, source.count == destination.count else { return [:] }
        var result: [UInt32: UInt32] = [:]
        var sourceRange = 0
        var sourceOffset = 0 // members in the source ranges before `sourceRange`
        var destinationRange = 0
        var destinationOffset = 0
        for uid in Set(sources).sorted() {
            while sourceRange < source.ranges.count, source.ranges[sourceRange].upperBound < uid {
                sourceOffset += source.ranges[sourceRange].count
                sourceRange += 1
            }
            guard sourceRange < source.ranges.count, source.ranges[sourceRange].contains(uid) else { continue }
            let position = sourceOffset + Int(uid - source.ranges[sourceRange].lowerBound)
            while destinationOffset + destination.ranges[destinationRange].count <= position {
                destinationOffset += destination.ranges[destinationRange].count
                destinationRange += 1
            }
            result[uid] = destination.ranges[destinationRange].lowerBound + UInt32(position - destinationOffset)
        }
        return result
    }
}

/// A FETCH response that did not parse even when fetched alone: its bytes, kept for the log and the
/// quarantine, and the UID when it could be read.
public struct QuarantinedResponse: Sendable, Hashable {
    public var uid: UInt32?
    public var sequence: UInt32?
    public var reason: String
    public var bytes: [UInt8]
}
