import Foundation
import GRDB
import TernCore

/// What the composer reads: the message replied to or forwarded with its attachments
/// (FR-COMP-01), and the contact cache for autocomplete (FR-COMP-04).
public struct SQLiteComposeStore: ComposeStore, ContactStore {
    let database: TernDatabase

    public init(database: TernDatabase) { self.database = database }

    public func original(emailId: EmailID) async throws -> OriginalMessage? {
        try await database.writer.read { db in
            guard let email = try Email.fetchOne(db, key: emailId) else { return nil }
            let attachments = try Attachment.filter(Column("emailId") == emailId).order(Column("partId")).fetchAll(db)
            return OriginalMessage(email: email, attachments: attachments)
        }
    }

    public func allContacts() async throws -> [ContactCacheEntry] {
        try await database.writer.read { db in try ContactCacheEntry.fetchAll(db) }
    }
}
