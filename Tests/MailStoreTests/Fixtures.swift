import Foundation
import GRDB
import TernCore
import Testing

@testable import MailStore

/// Sample rows for store tests.
enum Fixtures {
    static func account(name: AccountName = "work", id: AccountID = .make()) -> Account {
        Account(
            id: id, name: name, emailAddress: "\(name)@example.org", provider: .imap,
            imap: ServerEndpoint(host: "imap.example.org", port: 993, security: .implicitTLS),
            smtp: ServerEndpoint(host: "smtp.example.org", port: 587, security: .startTLS),
            username: "\(name)@example.org", credential: .passwordEnvironment("TERN_TEST_PW"))
    }

    static func email(accountId: AccountID, messageId: String?, dedupKey: String = UUID().uuidString) -> Email {
        Email(
            accountId: accountId, messageId: messageId, dedupKey: dedupKey, subject: "Hello",
            fromName: "Zoë", fromAddress: "zoe@example.fr",
            toAddresses: [EmailAddress(name: "Ivan", address: "ivan@example.ru")],
            dateSent: Date(timeIntervalSince1970: 1_700_000_000), dateReceived: Date(timeIntervalSince1970: 1_700_000_100),
            createdDate: Date(timeIntervalSince1970: 1_700_000_200))
    }

    /// An account row as the first schema held it: without the columns later migrations added
    /// (v10 `aliases`, v15 `authservId`).
    static func insertAsOfV1(_ account: Account, _ db: Database) throws {
        let values = try account.databaseDictionary.filter { !["aliases", "authservId", "pinnedCertificates"].contains($0.key) }
        let columns = values.keys.sorted()
        try db.execute(
            sql: "INSERT INTO account (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
            arguments: StatementArguments(columns.map { values[$0]! }))
    }

    static func temporaryHome() -> TernHome {
        TernHome(url: FileManager.default.temporaryDirectory.appendingPathComponent("tern-store-\(UUID().uuidString)"))
    }
}

extension Fixtures {
    /// One message stored in `folder` under `uid` (issue 36's move, label and snooze tests): its thread and email ids.
    static func storedMessage(
        _ database: TernDatabase, account: Account, folder: Folder, messageId: String, uid: Int64, flags: [String]
    ) async throws -> (thread: ThreadID, email: EmailID) {
        let incoming = IncomingMessage(email: email(accountId: account.id, messageId: messageId), uid: uid, serverFlags: flags)
        let stored = try await SQLiteMessageStore(database: database).store([incoming], folderId: folder.id!)
        let emailId = try #require(stored.newMessages.first?.emailId)
        let thread = try await database.writer.read { db in
            try ThreadID.fetchOne(db, sql: "SELECT threadId FROM email WHERE id = ?", arguments: [emailId])
        }
        return (try #require(thread), emailId)
    }
}
