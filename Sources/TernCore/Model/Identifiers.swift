import Foundation

/// The identity of one stored record of one kind. Issue 33: every id was an `Int64`, so a thread id
/// passed where a message id was meant compiled and ran against the wrong row; a distinct type per
/// kind makes that mix-up a compile error. The raw value is the store's row id, which is also what
/// JSON output and web routes carry (a plain number), so the types cost nothing on the wire.
///
/// A literal converts (`EmailID = 12`, for tests and fixtures); a variable of another kind does not.
public protocol RecordID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CodingKeyRepresentable,
    LosslessStringConvertible, ExpressibleByIntegerLiteral
where RawValue == Int64 {
    init(rawValue: Int64)
}

extension RecordID {
    public init(_ rawValue: Int64) { self.init(rawValue: rawValue) }
    public init(integerLiteral value: Int64) { self.init(rawValue: value) }

    /// Parses the plain number a web route or form field carries; nil for anything else.
    public init?(_ text: String) {
        guard let value = Int64(text) else { return nil }
        self.init(rawValue: value)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The plain number: what URLs, SQL arguments and JSON carry. Front ends add their own marks
    /// (the CLI's `t12`, `m34`).
    public var description: String { String(rawValue) }

    /// Dictionaries keyed by an id encode as JSON objects keyed by the number, as they did when
    /// the keys were `Int64`.
    public var codingKey: any CodingKey { IntegerCodingKey(rawValue) }
    public init?<Key: CodingKey>(codingKey: Key) {
        guard let value = codingKey.intValue ?? Int(codingKey.stringValue) else { return nil }
        self.init(rawValue: Int64(value))
    }
}

private struct IntegerCodingKey: CodingKey {
    let intValue: Int?
    let stringValue: String

    init(_ value: Int64) {
        intValue = Int(value)
        stringValue = String(value)
    }

    init?(intValue: Int) { self.init(Int64(intValue)) }
    init?(stringValue: String) {
        guard let value = Int64(stringValue) else { return nil }
        self.init(value)
    }
}

/// One message, stored once per account (`Email`).
public struct EmailID: RecordID {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// One locally grouped conversation (`MailThread`, FR-SYNC-06).
public struct ThreadID: RecordID {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// One server folder of one account (`Folder`).
public struct FolderID: RecordID {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// One local draft (`Draft`, FR-COMP-01); a draft on the server is a message (`EmailID`).
public struct DraftID: RecordID {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// One attachment's metadata row (`Attachment`, FR-SYNC-08).
public struct AttachmentID: RecordID {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// One local change waiting for or refused by the server (`PendingOperation`, FR-SYNC-05).
public struct PendingChangeID: RecordID {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// One folder create, rename or delete waiting for or refused by the server (`PendingFolderChange`, issue 36).
public struct PendingFolderChangeID: RecordID {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// An account's identity: a UUID made when it is added, stable across renames. The person names
/// an account by its `name`; code that needs an account holds this.
public struct AccountID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// For tests and fixtures, as a record id takes an integer literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// A new random identity, lowercased as every stored one is.
    public static func make() -> AccountID { AccountID(UUID().uuidString.lowercased()) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { rawValue }
}

/// The short name a person gives an account and types to pick it (`tern sync work`,
/// `--account work`). Issue 33: names and ids were both `String`, and the change feed carried
/// one in some events and the other in the rest; a name is now never taken for an id. Names can
/// change (`AccountID` does not), so code that keeps an account holds its id and keeps the name
/// only to show or to look the account up once.
public struct AccountName: RawRepresentable, Hashable, Comparable, Sendable, Codable, LosslessStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { rawValue }
}
