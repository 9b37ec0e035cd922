import Foundation
import GRDB
import TernCore
import Testing

@testable import MailStore

@Suite struct ConstraintTests {
    let database: TernDatabase
    let account: Account

    init() throws {
        database = try TernDatabase.temporary()
        account = Fixtures.account()
        try database.writer.write { [account] db in try account.insert(db) }
    }

    @Test func messageIdIsUniquePerAccountWherePresent() throws {
        try database.writer.write { db in
            var first = Fixtures.email(accountId: account.id, messageId: "<a@x>")
            try first.insert(db)
            var duplicate = Fixtures.email(accountId: account.id, messageId: "<a@x>")
            #expect(throws: DatabaseError.self) { try duplicate.insert(db) }
            // Messages without a reliable Message-ID rely on the canonical key instead.
            var noID1 = Fixtures.email(accountId: account.id, messageId: nil, dedupKey: "k1")
            var noID2 = Fixtures.email(accountId: account.id, messageId: nil, dedupKey: "k2")
            try noID1.insert(db)
            try noID2.insert(db)
            var sameKey = Fixtures.email(accountId: account.id, messageId: nil, dedupKey: "k1")
            #expect(throws: DatabaseError.self) { try sameKey.insert(db) }
        }
    }

    @Test func sameMessageIdInAnotherAccountIsAllowed() throws {
        try database.writer.write { db in
            let other = Fixtures.account(name: "home")
            try other.insert(db)
            var a = Fixtures.email(accountId: account.id, messageId: "<same@x>")
            var b = Fixtures.email(accountId: other.id, messageId: "<same@x>")
            try a.insert(db)
            try b.insert(db)
        }
    }

    @Test func imapUIDIsUniquePerFolder() throws {
        try database.writer.write { db in
            var inbox = Folder(accountId: account.id, path: "INBOX", folderType: .inbox)
            var starred = Folder(accountId: account.id, path: "[Gmail]/Starred", folderType: .starred)
            try inbox.insert(db)
            try starred.insert(db)
            var email = Fixtures.email(accountId: account.id, messageId: "<m@x>")
            try email.insert(db)
            var inInbox = EmailFolder(emailId: email.id!, folderId: inbox.id!, imapUID: 7)
            try inInbox.insert(db)
            // FR-SYNC-01 step 6: one email, two folder associations.
            var inStarred = EmailFolder(emailId: email.id!, folderId: starred.id!, imapUID: 7)
            try inStarred.insert(db)
            var clash = EmailFolder(emailId: email.id!, folderId: inbox.id!, imapUID: 7)
            #expect(throws: DatabaseError.self) { try clash.insert(db) }
            var zero = EmailFolder(emailId: email.id!, folderId: inbox.id!, imapUID: 0)
            #expect(throws: DatabaseError.self) { try zero.insert(db) }
        }
    }

    @Test func contactIsUniquePerAccountIgnoringCase() throws {
        try database.writer.write { db in
            try ContactCacheEntry(accountId: account.id, emailAddress: "Ivan@Example.ru", lastSeenDate: Date()).insert(db)
            #expect(throws: DatabaseError.self) {
                try ContactCacheEntry(accountId: account.id, emailAddress: "ivan@example.ru", lastSeenDate: Date()).insert(db)
            }
        }
    }

    @Test func invalidEnumValuesAreRejected() throws {
        try database.writer.write { db in
            var email = Fixtures.email(accountId: account.id, messageId: "<s@x>")
            try email.insert(db)
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "UPDATE email SET sendState = 'teleported' WHERE id = ?", arguments: [email.id])
            }
            // A downloaded attachment always has a local path.
            #expect(throws: DatabaseError.self) {
                try db.execute(
                    sql: "INSERT INTO attachment (emailId, partId, filename, mimeType, isDownloaded) VALUES (?, '2', 'a', 'b', 1)",
                    arguments: [email.id])
            }
        }
    }

    @Test func removingAnAccountRemovesEverythingItOwns() async throws {
        let other = Fixtures.account(name: "home")
        try await database.writer.write { [account] db in
            try other.insert(db)
            for owner in [account, other] {
                var folder = Folder(accountId: owner.id, path: "INBOX", folderType: .inbox)
                try folder.insert(db)
                var thread = MailThread(accountId: owner.id, subject: "s", normalizedSubject: "s", latestDate: Date(), earliestDate: Date())
                try thread.insert(db)
                var email = Fixtures.email(accountId: owner.id, messageId: "<\(owner.name)@x>")
                email.threadId = thread.id
                try email.insert(db)
                var link = EmailFolder(emailId: email.id!, folderId: folder.id!, imapUID: 1)
                try link.insert(db)
                try db.execute(
                    sql: "INSERT INTO threadFolder (threadId, folderId, latestDate) VALUES (?, ?, ?)",
                    arguments: [thread.id, folder.id, Date()])
                var attachment = Attachment(emailId: email.id!, partId: "2", filename: "a.pdf", mimeType: "application/pdf", sizeBytes: 10)
                try attachment.insert(db)
                try db.execute(
                    sql: "INSERT INTO searchIndex (rowid, subject, sender, recipients, content) VALUES (?, 's', 'z', 'i', 'body')",
                    arguments: [email.id])
                try ContactCacheEntry(accountId: owner.id, emailAddress: "ivan@example.ru", lastSeenDate: Date()).insert(db)
            }
        }
        let repository = SQLiteAccountRepository(database: database)
        #expect(try await repository.delete(id: account.id))
        try await database.writer.read { [account] db in
            for table in ["folder", "email", "thread", "contactCacheEntry"] {
                let mine = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE accountId = ?", arguments: [account.id])
                #expect(mine == 0, "\(table) still has rows of the removed account")
                let theirs = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE accountId = ?", arguments: [other.id])
                #expect(theirs == 1, "\(table) lost rows of another account")
            }
            for table in ["emailFolder", "attachment", "threadFolder", "searchIndex"] {
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") == 1, "\(table)")
            }
        }
    }

    @Test func accountRoundTripsThroughTheStore() async throws {
        let repository = SQLiteAccountRepository(database: database)
        var gmail = Fixtures.account(name: "gmail")
        gmail.provider = .gmail
        gmail.credential = .passwordCommand("pass show mail/gmail")
        gmail.caFile = "/etc/ssl/extra.pem"
        gmail.bodyHydration = .all
        try await repository.insert(gmail)
        let loaded = try await repository.account(named: "gmail")
        #expect(loaded?.credential == gmail.credential)
        #expect(loaded?.provider == .gmail)
        #expect(loaded?.caFile == gmail.caFile)
        #expect(loaded?.bodyHydration == .all)
        #expect(loaded?.smtp == gmail.smtp)
        await #expect(throws: TernError.alreadyExists("an account named 'gmail'")) { try await repository.insert(Fixtures.account(name: "gmail")) }
    }

    @Test func emailRoundTripsAddressListsAndReferences() throws {
        try database.writer.write { db in
            var email = Fixtures.email(accountId: account.id, messageId: "<r@x>")
            email.references = "<a@x> <b@x>"
            email.ccAddresses = [EmailAddress(name: "Wei 张", address: "wei@example.cn"), EmailAddress(address: "x@y")]
            email.sendState = .queued
            try email.insert(db)
            let loaded = try Email.fetchOne(db, key: email.id)
            #expect(loaded == email)
        }
    }
}
