import Foundation
import GRDB
import TernCore

/// Issue 37's read receipts in `email.readReceiptTo` / `readReceiptState` (v16); `$MDNSent` goes to
/// the server as an ordinary flag change (`pendingOperation`, pushed with the others).
public struct SQLiteReadReceiptStore: ReadReceiptStore {
    /// RFC 3503's keyword.
    public static let sentKeyword = "$MDNSent"

    let database: TernDatabase

    public init(database: TernDatabase) { self.database = database }

    public func receiptSubject(_ emailId: EmailID) async throws -> ReadReceiptSubject? {
        try await database.writer.read { db in
            guard let email = try Email.fetchOne(db, key: emailId) else { return nil }
            return ReadReceiptSubject(
                emailId: emailId, accountId: email.accountId, messageId: email.headerMessageId, subject: email.subject,
                from: EmailAddress(name: email.fromName, address: email.fromAddress), to: email.toAddresses, cc: email.ccAddresses,
                date: email.displayDate, isRead: email.isRead, bulkMarkers: email.bulkMarkers, receiptTo: email.readReceiptTo,
                state: email.readReceiptState, flaggedSentOnServer: try Self.flaggedSent(emailId, db: db),
                originalRecipient: email.originalRecipient)
        }
    }

    public func recordReceipt(_ state: ReadReceiptState?, for emailId: EmailID) async throws {
        try await database.writer.write { db in
            try db.execute(sql: "UPDATE email SET readReceiptState = ? WHERE id = ?", arguments: [state?.rawValue, emailId])
        }
    }

    public func claimReceiptSend(_ emailId: EmailID) async throws -> Bool {
        try await database.writer.write { db in
            try db.execute(
                sql: "UPDATE email SET readReceiptState = 'sent' WHERE id = ? AND readReceiptState IS NOT 'sent'", arguments: [emailId])
            return db.changesCount == 1
        }
    }

    public func flagReceiptSent(_ emailId: EmailID, at date: Date) async throws -> ActionScope {
        try await database.writer.write { db in
            let copies = try SQLiteMailActionStore.copies(of: [emailId], db: db)
            var flagged: [EmailCopy] = []
            for copy in copies where !ServerFlags.contains(copy.serverFlags, Self.sentKeyword) {
                guard let stored = try SQLiteMailActionStore.storedCopy(copy, db: db) else { continue }
                try db.execute(
                    sql: "DELETE FROM pendingOperation WHERE folderId = ? AND imapUID = ? AND flag = ? AND kind IN ('addFlag', 'removeFlag')",
                    arguments: [copy.folderId, copy.uid, Self.sentKeyword])
                var operation = PendingOperation(
                    accountId: copy.accountId, kind: .addFlag, flag: Self.sentKeyword, emailId: emailId, folderId: copy.folderId,
                    imapUID: copy.uid, uidValidity: stored.uidValidity, serverFlags: copy.serverFlags, modSeq: copy.modSeq, createdDate: date)
                try operation.insert(db)
                flagged.append(copy)
            }
            return ActionScope(emailIds: [emailId], copies: flagged)
        }
    }

    /// Whether a copy of the message carries `$MDNSent` as last seen on the server, or one is on its way there.
    static func flaggedSent(_ emailId: EmailID, db: Database) throws -> Bool {
        let flags = try String.fetchAll(db, sql: "SELECT serverFlags FROM emailFolder WHERE emailId = ?", arguments: [emailId])
        return flags.contains { ServerFlags.contains($0, sentKeyword) }
    }
}
