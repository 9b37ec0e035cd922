import Foundation
import GRDB
import TernCore
import Testing

@testable import MailStore

@Suite struct SchemaMigrationsTests {
    @Test func emptyDatabaseMigratesToLatest() throws {
        let database = try TernDatabase.temporary()
        #expect(try database.appliedMigrations() == SchemaMigrations.identifiers)
    }

    /// A database left at every earlier schema version migrates forward and keeps its rows.
    @Test(arguments: 0..<SchemaMigrations.identifiers.count)
    func databaseAtEarlierVersionMigrates(appliedCount: Int) throws {
        let home = Fixtures.temporaryHome()
        try FileManager.default.createDirectory(at: home.url, withIntermediateDirectories: true)
        let accountID = AccountID("acc-\(appliedCount)")
        do {
            let queue = try DatabaseQueue(path: home.databaseURL.path)
            if appliedCount > 0 {
                try SchemaMigrations.migrator.migrate(queue, upTo: SchemaMigrations.identifiers[appliedCount - 1])
                try queue.write { db in try Fixtures.insertAsOfV1(Fixtures.account(name: "old", id: accountID), db) }
            }
            try queue.close()
        }
        let database = try TernDatabase(home: home)
        #expect(try database.appliedMigrations() == SchemaMigrations.identifiers)
        let names = try database.writer.read { db in try String.fetchAll(db, sql: "SELECT name FROM account") }
        #expect(names == (appliedCount > 0 ? ["old"] : []))
        // v10: accounts from before it read back with no aliases.
        #expect(try database.writer.read { db in try Account.fetchAll(db).map(\.aliases) } == (appliedCount > 0 ? [[]] : []))
    }

    /// v8: a change queued before it takes its folder's UIDVALIDITY, the best known of it.
    @Test func pendingChangesFromBeforeV8TakeTheirFoldersUIDValidity() throws {
        let home = Fixtures.temporaryHome()
        try FileManager.default.createDirectory(at: home.url, withIntermediateDirectories: true)
        let account = Fixtures.account()
        do {
            let queue = try DatabaseQueue(path: home.databaseURL.path)
            try SchemaMigrations.migrator.migrate(queue, upTo: "v7-store-health")
            try queue.write { db in
                try Fixtures.insertAsOfV1(account, db)
                try db.execute(
                    sql: "INSERT INTO folder (accountId, path, displayName, folderType, uidValidity) VALUES (?, 'Trash', 'Trash', 'trash', 42)",
                    arguments: [account.id])
                let folder = (id: db.lastInsertedRowID, path: "Trash")
                // Written as a v7 store held it: today's Email has columns v7 did not.
                try db.execute(
                    sql: """
                        INSERT INTO email (accountId, messageId, dedupKey, subject, fromAddress, dateReceived, createdDate)
                        VALUES (?, '<m@example.org>', 'key', 'Subject', 'a@example.org', ?, ?)
                        """, arguments: [account.id, Date(), Date()])
                let email = (id: db.lastInsertedRowID, accountId: account.id)
                try db.execute(
                    sql: """
                        INSERT INTO pendingOperation (accountId, kind, emailId, folderId, imapUID, createdDate) VALUES (?, 'delete', ?, ?, 5, ?);
                        INSERT INTO pendingOperation (accountId, kind, emailId, createdDate) VALUES (?, 'fileSentCopy', ?, ?)
                        """, arguments: [account.id, email.id, folder.id, Date(), account.id, email.id, Date()])
            }
            try queue.close()
        }
        let database = try TernDatabase(home: home)
        let validities = try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT kind, uidValidity FROM pendingOperation ORDER BY id").map {
                "\($0["kind"] as String)=\($0["uidValidity"] as Int64? ?? -1)"
            }
        }
        #expect(validities == ["delete=42", "fileSentCopy=-1"])
    }

    /// Every field the specs name has a column (docs/data-model.md).
    /// v13 rebuilds the folder table (its CHECK gains `archive`): the rows of a v12 store, and the
    /// messages, thread lists and changes that reference them, come through, still cascading.
    @Test func foldersFromBeforeV13KeepTheirMessagesAndReferences() throws {
        let home = Fixtures.temporaryHome()
        try FileManager.default.createDirectory(at: home.url, withIntermediateDirectories: true)
        let account = Fixtures.account()
        do {
            let queue = try DatabaseQueue(path: home.databaseURL.path)
            try SchemaMigrations.migrator.migrate(queue, upTo: "v12-assist")
            try queue.write { db in
                try Fixtures.insertAsOfV1(account, db)
                try db.execute(
                    sql: """
                        INSERT INTO folder (id, accountId, path, displayName, delimiter, folderType, uidValidity, forwardCursorUID, serverMessageCount)
                        VALUES (7, ?, 'Archive', 'Archive', '/', 'all', 42, 9, 3);
                        INSERT INTO email (id, accountId, messageId, dedupKey, subject, fromAddress, dateReceived, createdDate)
                        VALUES (11, ?, '<m@example.org>', 'key', 'Subject', 'a@example.org', 0, 0);
                        INSERT INTO emailFolder (emailId, folderId, imapUID) VALUES (11, 7, 5);
                        INSERT INTO pendingOperation (accountId, kind, emailId, folderId, imapUID, createdDate) VALUES (?, 'archive', 11, 7, 5, 0);
                        """, arguments: [account.id, account.id, account.id])
            }
            try queue.close()
        }
        let database = try TernDatabase(home: home)
        try database.writer.write { db in
            var folder = try #require(try Folder.fetchOne(db, key: 7))
            #expect(
                folder.path == "Archive" && folder.folderType == .all && folder.uidValidity == 42 && folder.forwardCursorUID == 9
                    && folder.serverMessageCount == 3 && folder.mailboxId == nil)
            folder.folderType = .archive
            folder.mailboxId = "F42"
            try folder.update(db)
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM emailFolder WHERE folderId = 7") == 1)
            try db.execute(sql: "DELETE FROM folder WHERE id = 7")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM emailFolder") == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pendingOperation") == 0)
            // New folders do not reuse an id of the old table (AUTOINCREMENT's sequence came along).
            var next = Folder(accountId: account.id, path: "INBOX", folderType: .inbox)
            try next.insert(db)
            #expect(try #require(next.id) > 7)
        }
    }

    @Test func schemaHasEverySpecField() throws {
        let database = try TernDatabase.temporary()
        let expected: [String: [String]] = [
            "account": [
                "id", "name", "emailAddress", "imapHost", "imapPort", "imapSecurity", "smtpHost", "smtpPort",
                "smtpSecurity", "username", "credentialKind", "credentialReference", "caFile", "isActive"
            ],
            "folder": [
                "accountId", "path", "folderType", "uidValidity", "forwardCursorUID", "backfillCursorUID",
                "initialFastCompleted", "catchUpStatus", "lastSyncDate", "reachedServerHistoryBoundary", "highestModSeq"
            ],
            "email": [
                "messageId", "dedupKey", "inReplyTo", "references", "subject", "fromName", "fromAddress",
                "toAddresses", "ccAddresses", "bccAddresses", "dateSent", "dateReceived", "bodyPlain", "bodyHTML",
                "isRead", "isStarred", "isDraft", "sendState", "sendRetryCount", "sendQueuedDate", "sendError",
                "threadId", "sizeBytes", "bodyTruncated"
            ],
            "emailFolder": ["emailId", "folderId", "imapUID"],
            "thread": ["subject", "latestDate", "messageCount", "unreadCount", "participants", "snippet", "aiSummary"],
            "attachment": [
                "emailId", "partId", "filename", "mimeType", "sizeBytes", "contentId", "isDownloaded",
                "localPath", "lastAccessDate"
            ],
            "trustedSender": ["id", "senderEmail", "createdDate"],
            "contactCacheEntry": ["id", "accountId", "emailAddress", "displayName", "lastSeenDate", "frequency"],
            "searchIndex": ["subject", "sender", "recipients", "content"]
        ]
        try database.writer.read { db in
            for (table, columns) in expected {
                let actual = Set(try db.columns(in: table).map(\.name))
                for column in columns {
                    #expect(actual.contains(column), "\(table).\(column) is missing")
                }
            }
            let journal = try String.fetchOne(db, sql: "PRAGMA journal_mode")
            #expect(journal == "wal")
        }
    }

    /// The hot paths use indexes, not table scans.
    @Test(arguments: [
        ("SELECT threadId FROM threadFolder WHERE folderId = 1 ORDER BY latestDate DESC LIMIT 50", "threadFolder_by_folder_date"),
        ("SELECT * FROM email WHERE threadId = 1 ORDER BY dateReceived", "email_by_thread"),
        ("SELECT * FROM email WHERE accountId = 'a' AND sendState = 'queued' ORDER BY sendQueuedDate", "email_outbox"),
        ("SELECT * FROM thread WHERE accountId = 'a' ORDER BY latestDate DESC LIMIT 50", "thread_by_account_date")
    ])
    func hotPathUsesIndex(query: String, index: String) throws {
        let database = try TernDatabase.temporary()
        let plan = try database.writer.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN \(query)").map { $0["detail"] as String }.joined(separator: "; ")
        }
        #expect(plan.contains(index), "plan: \(plan)")
    }

    /// Issue 38: what every sync asks of a folder walks the partial index of emails still needing their text,
    /// newest first, with no sort (a read of every email of the folder before).
    @Test func pendingBodiesAreWalkedFromTheirPartialIndexWithoutSorting() throws {
        let database = try TernDatabase.temporary()
        let plans = try database.writer.read { db in
            let statements: [(String, StatementArguments)] = [
                (SQLiteSyncStore.needingBodiesSQL, [1, 1]), (SQLiteSyncStore.needingBodiesSinceSQL, [Date(), 1, 1])
            ]
            return try statements.map { sql, arguments in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }.joined(separator: "; ")
            }
        }
        for plan in plans { #expect(plan.contains("email_needing_bodies") && !plan.contains("TEMP B-TREE"), "\(plan)") }
        #expect(plans[1].contains("dateReceived>?"), "\(plans[1])")
    }
}
