import Foundation
import GRDB
import TernCore

// Persistence conformances of the domain types. Column names are the property names
// (docs/data-model.md); nested values (address lists) are stored as JSON text.

extension Folder: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "folder"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = .init(rawValue: inserted.rowID) }
}

extension Email: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "email"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = .init(rawValue: inserted.rowID) }
}

extension EmailFolder: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "emailFolder"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension MailThread: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "thread"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = .init(rawValue: inserted.rowID) }
}

extension Attachment: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "attachment"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = .init(rawValue: inserted.rowID) }
}

extension TrustedSender: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "trustedSender"
}

extension ContactCacheEntry: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "contactCacheEntry"
}

/// An `Account` is stored flat: endpoints and the credential source become columns.
extension Account: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "account"

    public init(row: Row) throws {
        let credential = try CredentialSource(kind: row["credentialKind"], reference: row["credentialReference"])
        guard let imapSecurity = ConnectionSecurity(rawValue: row["imapSecurity"]),
            let smtpSecurity = ConnectionSecurity(rawValue: row["smtpSecurity"]),
            let provider = MailProvider(rawValue: row["provider"])
        else {
            throw TernError.databaseUnusable("account row \(row["id"] as String? ?? "?") has unknown values")
        }
        self.init(
            id: row["id"], name: row["name"], emailAddress: row["emailAddress"], displayName: row["displayName"],
            provider: provider,
            imap: ServerEndpoint(host: row["imapHost"], port: row["imapPort"], security: imapSecurity),
            smtp: ServerEndpoint(host: row["smtpHost"], port: row["smtpPort"], security: smtpSecurity),
            username: row["username"], credential: credential, caFile: row["caFile"], isActive: row["isActive"],
            syncWindowDays: row["syncWindowDays"], bodyHydration: BodyHydrationPolicy(storedValue: row["bodyHydration"]),
            createdDate: row["createdDate"], lastSyncDate: row["lastSyncDate"],
            aliases: (row["aliases"] as String? ?? "").split(separator: " ").map(String.init), authservId: row["authservId"])
        pinnedCertificates = PinnedCertificate.decodeList(row["pinnedCertificates"] as String? ?? "")
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["name"] = name
        container["emailAddress"] = emailAddress
        container["displayName"] = displayName
        container["provider"] = provider.rawValue
        container["imapHost"] = imap.host
        container["imapPort"] = imap.port
        container["imapSecurity"] = imap.security.rawValue
        container["smtpHost"] = smtp.host
        container["smtpPort"] = smtp.port
        container["smtpSecurity"] = smtp.security.rawValue
        container["username"] = username
        container["credentialKind"] = credential.kind
        container["credentialReference"] = credential.reference
        container["caFile"] = caFile
        container["isActive"] = isActive
        container["syncWindowDays"] = syncWindowDays
        container["bodyHydration"] = bodyHydration.storedValue
        container["createdDate"] = createdDate
        container["lastSyncDate"] = lastSyncDate
        container["aliases"] = aliases.joined(separator: " ")
        container["authservId"] = authservId
        container["pinnedCertificates"] = PinnedCertificate.encodeList(pinnedCertificates)
    }
}

extension PendingFolderChange: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "pendingFolderChange"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = .init(rawValue: inserted.rowID) }
}

extension PendingOperation: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "pendingOperation"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = .init(rawValue: inserted.rowID) }
}

// Typed ids (issue 33) are stored as the plain row id or UUID text they wrap; the row ids decode
// straight from the statement's column, as `Int64` does (no `DatabaseValue` in between on the hot
// paths of sync and the thread list).
extension RecordID where Self: StatementColumnConvertible {
    public init(sqliteStatement: SQLiteStatement, index: CInt) {
        self.init(rawValue: Int64(sqliteStatement: sqliteStatement, index: index))
    }
}

extension EmailID: DatabaseValueConvertible, StatementColumnConvertible {}
extension ThreadID: DatabaseValueConvertible, StatementColumnConvertible {}
extension FolderID: DatabaseValueConvertible, StatementColumnConvertible {}
extension DraftID: DatabaseValueConvertible, StatementColumnConvertible {}
extension AttachmentID: DatabaseValueConvertible, StatementColumnConvertible {}
extension PendingChangeID: DatabaseValueConvertible, StatementColumnConvertible {}
extension PendingFolderChangeID: DatabaseValueConvertible, StatementColumnConvertible {}
extension AccountID: DatabaseValueConvertible {}
extension AccountName: DatabaseValueConvertible {}
