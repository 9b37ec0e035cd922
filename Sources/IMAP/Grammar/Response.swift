import Foundation
import MIME

/// A server response (RFC 9051 section 7, RFC 3501 section 7), as the parser hands it to a connection.
public enum IMAPResponse: Sendable, Hashable {
    /// `tag OK|NO|BAD [code] text`: the end of a command.
    case tagged(tag: String, state: ResponseState)
    case untagged(UntaggedResponse)
    /// `+ text`: the server waits for a literal or the next step of an exchange (AUTHENTICATE, IDLE).
    case continuation(String)
}

public struct ResponseState: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable {
        case ok = "OK"
        case no = "NO"
        case bad = "BAD"
        case bye = "BYE"
        case preauth = "PREAUTH"
    }
    public var status: Status
    public var code: ResponseCode?
    public var text: String

    public init(status: Status, code: ResponseCode? = nil, text: String) {
        self.status = status
        self.code = code
        self.text = text
    }
}

/// Response codes in `[…]` (RFC 9051 section 7.1, RFC 4315 UIDPLUS, RFC 7162 CONDSTORE).
public enum ResponseCode: Sendable, Hashable {
    case alert
    case capability([String])
    case permanentFlags([String])
    case readOnly
    case readWrite
    case tryCreate
    case uidValidity(UInt32)
    case uidNext(UInt32)
    case unseen(UInt32)
    case highestModSeq(UInt64)
    case noModSeq
    case appendUID(uidValidity: UInt32, uids: UIDSet)
    case copyUID(uidValidity: UInt32, source: UIDSet, destination: UIDSet)
    case closed
    case other(name: String, text: String?)
}

public enum UntaggedResponse: Sendable, Hashable {
    case state(ResponseState)
    case capability([String])
    case enabled([String])
    case list(MailboxListing)
    case lsub(MailboxListing)
    /// `mailboxId`: RFC 8474 MAILBOXID, the one STATUS item that is not a number.
    case status(mailbox: String, attributes: [String: UInt64], mailboxId: String? = nil)
    case flags([String])
    case exists(UInt32)
    case recent(UInt32)
    case expunge(sequence: UInt32)
    case search(ids: [UInt32], highestModSeq: UInt64?)
    /// RFC 4731 ESEARCH: the answer to `SEARCH RETURN (…)`, its ids as ranges (issue 38).
    case extendedSearch(ExtendedSearchResult)
    case fetch(sequence: UInt32, attributes: [FetchAttribute])
    case vanished(earlier: Bool, uids: UIDSet)
    case id([String: String])
    /// RFC 2342: where the user's own, other users' and shared mailboxes live.
    case namespace(Namespaces)
    /// A response Tern does not use (METADATA…), kept as text.
    case other(name: String, text: String)
}

/// RFC 2342 NAMESPACE: each class of mailbox with its prefixes. A folder Tern creates goes under
/// the first personal prefix (`INBOX.` on Cyrus and Courier): a server whose folders live there
/// refuses one at the top level (issue 22).
public struct Namespaces: Sendable, Hashable {
    /// One namespace: its prefix (decoded) and hierarchy delimiter.
    public struct Descriptor: Sendable, Hashable {
        public var prefix: String
        public var delimiter: String?

        public init(prefix: String, delimiter: String?) {
            self.prefix = prefix
            self.delimiter = delimiter
        }
    }

    public var personal: [Descriptor]
    public var otherUsers: [Descriptor]
    public var shared: [Descriptor]

    public init(personal: [Descriptor], otherUsers: [Descriptor] = [], shared: [Descriptor] = []) {
        self.personal = personal
        self.otherUsers = otherUsers
        self.shared = shared
    }

    /// The full name of a new top-level personal folder (`Trash` becomes `INBOX.Trash`).
    public func personalName(_ name: String) -> String {
        guard let first = personal.first else { return name }
        return first.prefix + name
    }
}

/// One `LIST` line: attributes (including RFC 6154 special use), delimiter and decoded name.
public struct MailboxListing: Sendable, Hashable {
    public var attributes: [String]
    public var delimiter: String?
    /// Decoded from modified UTF-7 (or UTF-8 with UTF8=ACCEPT).
    public var name: String
    /// As the server sent it, for commands.
    public var rawName: String

    public init(attributes: [String], delimiter: String?, name: String, rawName: String) {
        self.attributes = attributes
        self.delimiter = delimiter
        self.name = name
        self.rawName = rawName
    }

    public func hasAttribute(_ attribute: String) -> Bool {
        attributes.contains { $0.caseInsensitiveCompare(attribute) == .orderedSame }
    }

    /// FR-SYNC-01 step 1: the special-use mapping, with Gmail's `\All` and `\Important` kept apart
    /// (never synced) and `\Archive` an ordinary folder that is.
    public var role: MailboxRole {
        if hasAttribute("\\Noselect") || hasAttribute("\\NonExistent") { return .container }
        if name.caseInsensitiveCompare("INBOX") == .orderedSame { return .inbox }
        let mapping: [(String, MailboxRole)] = [
            ("\\Sent", .sent), ("\\Drafts", .drafts), ("\\Trash", .trash), ("\\Junk", .junk), ("\\Flagged", .flagged),
            ("\\All", .all), ("\\Important", .important), ("\\Archive", .archive)
        ]
        for (attribute, role) in mapping where hasAttribute(attribute) { return role }
        return .ordinary
    }
}

/// What a mailbox is for, from its LIST attributes: the INBOX, an RFC 6154 special use (Gmail's
/// `\Important` included), a mailbox that cannot be selected, or none of these. The application
/// makes its folder types of it (Sync).
public enum MailboxRole: String, Sendable, Hashable, CaseIterable {
    case inbox, sent, drafts, trash, junk, flagged, all, important, archive
    /// `\Noselect` or `\NonExistent`, such as `[Gmail]`.
    case container
    case ordinary
}

/// A FETCH data item (RFC 9051 section 7.5.2, RFC 7162 MODSEQ, Gmail's X-GM-*).
public enum FetchAttribute: Sendable, Hashable {
    case uid(UInt32)
    case flags([String])
    case internalDate(Date)
    case rfc822Size(UInt64)
    case envelope(Envelope)
    /// BODYSTRUCTURE (or BODY), mapped to Tern's part model with IMAP section numbers.
    case bodyStructure(MIMEPart)
    /// `BODY[section]<origin>`: nil data for NIL.
    case bodySection(section: String, origin: UInt64?, data: [UInt8]?)
    case modSeq(UInt64)
    case gmailMessageID(UInt64)
    case gmailThreadID(UInt64)
    case gmailLabels([String])
    case other(name: String)
}

/// ENVELOPE (RFC 9051 section 7.5.2): the parsed headers a server hands out. It has no References.
public struct Envelope: Sendable, Hashable {
    public var date: String?
    public var subject: String?
    public var from: [IMAPAddress]
    public var sender: [IMAPAddress]
    public var replyTo: [IMAPAddress]
    public var to: [IMAPAddress]
    public var cc: [IMAPAddress]
    public var bcc: [IMAPAddress]
    public var inReplyTo: String?
    public var messageId: String?
}

/// One address of an ENVELOPE: its display name (RFC 2047 decoded) and `mailbox@host`.
public struct IMAPAddress: Sendable, Hashable {
    public var name: String?
    public var address: String

    public init(name: String? = nil, address: String) {
        self.name = name
        self.address = address
    }
}

/// RFC 4731's ESEARCH response. `ALL` is a sequence set, so a folder's whole UID list costs a few bytes
/// where SEARCH spells every UID (2.3 MB on one line for a 330,000-message Inbox, issue 38); the ranges
/// are kept as the server sent them and only expanded, within bounds, by the session that asked.
public struct ExtendedSearchResult: Sendable, Hashable {
    /// The tag of the command this answers, when the server says it.
    public var tag: String?
    /// Whether the numbers are UIDs (a `UID SEARCH`) rather than sequence numbers.
    public var uid: Bool
    public var all: UIDSet?
    public var min: UInt32?
    public var max: UInt32?
    public var count: UInt32?
    public var highestModSeq: UInt64?

    public init(
        tag: String? = nil, uid: Bool = false, all: UIDSet? = nil, min: UInt32? = nil, max: UInt32? = nil, count: UInt32? = nil,
        highestModSeq: UInt64? = nil
    ) {
        self.tag = tag
        self.uid = uid
        self.all = all
        self.min = min
        self.max = max
        self.count = count
        self.highestModSeq = highestModSeq
    }
}
