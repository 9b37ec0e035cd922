import Foundation
import GRDB
import TernCore
import Testing

@testable import MailStore

/// FR-SYNC-01 step 6 (dedup), FR-SYNC-05 (server flags), FR-SYNC-06 (threading in the store).
struct SQLiteMessageStoreTests {
    let database: TernDatabase
    let account = Fixtures.account()
    let inbox: Folder
    let starred: Folder
    let store: SQLiteMessageStore

    init() throws {
        database = try TernDatabase.temporary()
        var inbox = Folder(accountId: account.id, path: "INBOX", folderType: .inbox)
        var starred = Folder(accountId: account.id, path: "[Gmail]/Starred", folderType: .starred)
        try database.writer.write { [account] db in
            try account.insert(db)
            try inbox.insert(db)
            try starred.insert(db)
        }
        self.inbox = inbox
        self.starred = starred
        store = SQLiteMessageStore(database: database)
    }

    func message(
        _ uid: Int64, id: String?, dedupKey: String? = nil, replyTo: String? = nil, references: String? = nil,
        subject: String = "Plans", day: Double = 0, flags: [String] = []
    ) -> IncomingMessage {
        var email = Fixtures.email(accountId: account.id, messageId: id, dedupKey: dedupKey ?? "key-\(id ?? UUID().uuidString)")
        email.inReplyTo = replyTo
        email.references = references
        email.subject = subject
        email.dateSent = Date(timeIntervalSince1970: 1_700_000_000 + day * 86_400)
        return IncomingMessage(email: email, uid: uid, serverFlags: flags)
    }

    func count(_ sql: String) throws -> Int { try database.writer.read { db in try Int.fetchOne(db, sql: sql) ?? -1 } }

    @Test func theSameMessageInTwoFoldersIsOneEmailWithTwoAssociations() async throws {
        try await store.store([message(1, id: "a@x")], folderId: inbox.id!, cursorUID: 1)
        let result = try await store.store([message(7, id: "a@x", flags: ["\\Seen", "\\Flagged"])], folderId: starred.id!)
        #expect(result.inserted == 0 && result.linked == 1)
        #expect(try count("SELECT COUNT(*) FROM email") == 1)
        #expect(try count("SELECT COUNT(*) FROM emailFolder") == 2)
        // Server flags are authoritative (FR-SYNC-05).
        #expect(try count("SELECT isRead + isStarred FROM email") == 2)
        #expect(try count("SELECT COUNT(*) FROM threadFolder") == 2)
        #expect(try count("SELECT forwardCursorUID FROM folder WHERE path = 'INBOX'") == 1)
    }

    @Test func manyFlagStatesAreMatchedByTheUIDRangeTheySpan() async throws {
        // Issue 38: past the by-UID lookup's limit the stored rows of the states' UID range are read (not the
        // whole folder's); every state in it is applied and a message outside it is left as it was.
        let total = SQLiteSyncStore.flagLookupByUIDLimit + 200
        let messages = (1...total).map { message(Int64($0), id: "m\($0)@x") }
        try await store.store(messages, folderId: inbox.id!, cursorUID: Int64(total))
        let states = (101...total).map { ServerFlagState(uid: Int64($0), flags: $0 % 2 == 0 ? ["\\Seen"] : []) }
        #expect(states.count > SQLiteSyncStore.flagLookupByUIDLimit)
        let changed = try await SQLiteSyncStore(database: database).applyServerFlags(states, folderId: inbox.id!)
        #expect(changed == states.filter { !$0.flags.isEmpty }.count)
        #expect(try count("SELECT COUNT(*) FROM email WHERE isRead") == changed)
        #expect(try count("SELECT COUNT(*) FROM emailFolder WHERE serverFlags = '\\Seen' AND imapUID <= 100") == 0)
    }

    @Test func aDuplicateMessageIDOnADifferentMessageKeepsBothApart() async throws {
        try await store.store(
            [
                message(1, id: "same@list", dedupKey: "k1", subject: "Issue 1"),
                message(2, id: "same@list", dedupKey: "k2", subject: "Issue 2", day: 7)
            ], folderId: inbox.id!)
        #expect(try count("SELECT COUNT(*) FROM email") == 2)
        #expect(try count("SELECT COUNT(*) FROM email WHERE messageId IS NULL") == 1)
        #expect(try count("SELECT COUNT(*) FROM thread") == 2)
    }

    @Test func storingTheSameBatchTwiceChangesNothing() async throws {
        let batch = [message(1, id: "a@x"), message(2, id: "b@x", replyTo: "<a@x>", references: "<a@x>")]
        try await store.store(batch, folderId: inbox.id!)
        try await store.store(batch, folderId: inbox.id!)
        #expect(try count("SELECT COUNT(*) FROM email") == 2)
        #expect(try count("SELECT COUNT(*) FROM emailFolder") == 2)
        #expect(try count("SELECT COUNT(*) FROM thread") == 1)
        #expect(try count("SELECT messageCount FROM thread") == 2)
    }

    @Test func aLateParentMergesThreadsAcrossBatches() async throws {
        try await store.store([message(2, id: "b@x", replyTo: "<a@x>", references: "<a@x>", day: 1)], folderId: inbox.id!)
        try await store.store([message(3, id: "c@x", replyTo: "<a@x>", references: "<a@x>", day: 2)], folderId: inbox.id!)
        #expect(try count("SELECT COUNT(*) FROM thread") == 1)
        try await store.store([message(4, id: "z@x", subject: "Other", day: 3)], folderId: inbox.id!)
        try await store.store([message(5, id: "y@x", replyTo: "<z@x>", subject: "Re: Other", day: 4)], folderId: inbox.id!)
        #expect(try count("SELECT COUNT(*) FROM thread") == 2)
        // A message whose References name both conversations' roots, replying to y: joins y's thread only.
        try await store.store([message(6, id: "w@x", replyTo: "<y@x>", references: "<a@x> <z@x> <y@x>", day: 5)], folderId: inbox.id!)
        #expect(try count("SELECT COUNT(*) FROM thread") == 2)
        // The original arrives: b and c were waiting for it.
        let result = try await store.store([message(1, id: "a@x", day: 0)], folderId: inbox.id!)
        #expect(try count("SELECT COUNT(*) FROM thread") == 2)
        #expect(result.inserted == 1)
        #expect(try count("SELECT messageCount FROM thread WHERE subject = 'Plans'") == 3)
        #expect(try count("SELECT COUNT(*) FROM email WHERE threadId IS NULL") == 0)
    }

    @Test func twoThreadsJoinedByAMessageAreMergedAndTheEmptyOneRemoved() async throws {
        try await store.store([message(1, id: "p@x", replyTo: "<gone1@x>", day: 0)], folderId: inbox.id!)
        try await store.store([message(2, id: "q@x", replyTo: "<gone2@x>", day: 1)], folderId: inbox.id!)
        #expect(try count("SELECT COUNT(*) FROM thread") == 2)
        // gone2's own headers (stored at last) say it replies to gone1: both threads become one.
        let result = try await store.store([message(3, id: "gone2@x", replyTo: "<gone1@x>", day: 0.5)], folderId: inbox.id!)
        #expect(result.threadsRemoved.count == 1)
        #expect(try count("SELECT COUNT(*) FROM thread") == 1)
        #expect(try count("SELECT messageCount FROM thread") == 3)
        #expect(try count("SELECT COUNT(*) FROM threadFolder") == 1)
        #expect(try count("SELECT messageCount FROM threadFolder") == 3)
    }

    @Test func headerlessMessagesJoinBySubjectWithinThirtyDays() async throws {
        try await store.store(
            [
                message(1, id: "l1@x", subject: "Lunch"), message(2, id: "l2@x", subject: "RE: Lunch", day: 3),
                message(3, id: "l3@x", subject: "Re: Lunch", day: 90)
            ], folderId: inbox.id!)
        #expect(try count("SELECT COUNT(*) FROM thread") == 2)
        #expect(try count("SELECT MAX(messageCount) FROM thread") == 2)
    }

    @Test func threadMetadataCountsUnreadAndParticipants() async throws {
        try await store.store(
            [
                message(1, id: "a@x", flags: ["\\Seen"]),
                message(2, id: "b@x", replyTo: "<a@x>", day: 1)
            ], folderId: inbox.id!)
        let thread = try #require(try await database.writer.read { db in try MailThread.fetchOne(db) })
        #expect(thread.messageCount == 2)
        #expect(thread.unreadCount == 1)
        #expect(thread.participants.map(\.address) == ["zoe@example.fr"])
        #expect(thread.subject == "Plans")
        #expect(try count("SELECT unreadCount FROM threadFolder") == 1)
    }

    @Test func syncedAddressesFillTheContactCache() async throws {
        var first = message(1, id: "a@x")
        first.email.ccAddresses = [EmailAddress(name: "Old Name", address: "Kim@Example.org")]
        var second = message(2, id: "b@x", day: 1)
        second.email.toAddresses = [EmailAddress(name: "Kim Lee", address: "kim@example.org")]
        try await store.store([first, second], folderId: inbox.id!)
        // The same message seen again in another folder is not counted twice.
        try await store.store([first], folderId: starred.id!)
        let kim = try #require(
            try await database.writer.read { db in
                try ContactCacheEntry.filter(Column("emailAddress") == "kim@example.org").fetchOne(db)
            })
        #expect(kim.frequency == 2)
        #expect(kim.displayName == "Kim Lee")
        #expect(try count("SELECT frequency FROM contactCacheEntry WHERE emailAddress = 'zoe@example.fr'") == 2)
    }

    @Test func newMessagesAreSearchable() async throws {
        var email = message(1, id: "s@x", subject: "Quarterly budget review")
        email.email.snippet = "Numbers for the offsite"
        try await store.store([email, message(2, id: "t@x", subject: "Lunch")], folderId: inbox.id!)
        let queries = SQLiteMailQueries(database: database)
        #expect(try await queries.search("budg", account: nil, limit: 10).map(\.subject) == ["Quarterly budget review"])
        #expect(try await queries.search("offsite zoë", account: nil, limit: 10).count == 1)
        // The last word may be unfinished; the others are whole words.
        #expect(try await queries.search("quarterly budg", account: nil, limit: 10).count == 1)
        #expect(try await queries.search("quarter budget", account: nil, limit: 10).isEmpty)
        #expect(try await queries.search("\"; DROP TABLE email; --", account: nil, limit: 10).isEmpty)
        #expect(try await queries.search("   ", account: nil, limit: 10).isEmpty)
    }

    /// Two copies of one message in a folder are one Email hydrated twice in one batch: one search row.
    @Test func bodiesSavedTwiceForOneEmailKeepOneSearchRow() async throws {
        var twin = message(2, id: "twin@x", subject: "Twins")
        twin.email.dedupKey = "key-twin@x"
        try await store.store([message(1, id: "twin@x", subject: "Twins"), twin], folderId: inbox.id!)
        let emailId = try #require(try await database.writer.read { db in try EmailID.fetchOne(db, sql: "SELECT id FROM email") })
        let sync = SQLiteSyncStore(database: database)
        try await sync.saveBodies([
            FetchedBodies(emailId: emailId, plain: "first copy", html: nil, snippet: "first copy", truncated: false),
            FetchedBodies(emailId: emailId, plain: "second copy", html: nil, snippet: "second copy", truncated: false)
        ])
        #expect(try count("SELECT COUNT(*) FROM searchIndex") == 1)
        let queries = SQLiteMailQueries(database: database)
        #expect(try await queries.search("second", account: nil, limit: 10).count == 1)
    }
}
