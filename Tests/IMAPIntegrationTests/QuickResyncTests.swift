import Foundation
import GRDB
import IMAP
import MailStore
import Sync
import TernCore
import Testing

/// Issue 22, RFC 7162 QRESYNC: a caught-up folder is resynchronized from its SELECT, which says what
/// vanished and whose flags changed, so neither the folder's whole UID list (`UID SEARCH ALL`) nor
/// its flags (`UID FETCH … FLAGS`) are asked for. The engine against a scripted server.
@Suite(.serialized) struct QuickResyncTests {
    let database: TernDatabase
    let account: Account
    let sync: SQLiteSyncStore

    init() async throws {
        database = try TernDatabase.temporary()
        sync = SQLiteSyncStore(database: database)
        account = Account(
            name: "work", emailAddress: "bob@tern.test", provider: .imap,
            imap: ServerEndpoint(host: "127.0.0.1", port: 1, security: .implicitTLS),
            smtp: ServerEndpoint(host: "127.0.0.1", port: 1, security: .implicitTLS),
            username: "bob@tern.test", credential: .passwordEnvironment("UNUSED"), bodyHydration: .none)
        try await SQLiteAccountRepository(database: database).insert(account)
        // The Inbox as a completed sync left it: UIDs 1 to 5 under UIDVALIDITY 7 at HIGHESTMODSEQ 10.
        var inbox = try #require(
            try await sync.saveDiscoveredFolders(
                [DiscoveredFolder(path: "INBOX", delimiter: "/", folderType: .inbox)],
                accountId: account.id, keepOrphans: false
            ).first)
        try await sync.resetFolder(inbox.id!, uidValidity: 7, keepOrphans: false)
        let messages = (1...5).map { uid in
            IncomingMessage(
                email: Email(
                    accountId: account.id, messageId: "<m\(uid)@tern.test>", dedupKey: "m\(uid)", subject: "Message \(uid)",
                    fromAddress: "ann@tern.test", dateReceived: Date()),
                uid: Int64(uid), serverFlags: [])
        }
        _ = try await sync.store(messages, folderId: inbox.id!, cursorUID: 5, backfillCursorUID: 1)
        inbox = try #require(try await sync.folders(accountId: account.id).first)
        inbox.uidNext = 6
        inbox.highestModSeq = 10
        inbox.serverMessageCount = 5
        inbox.catchUpStatus = .completed
        inbox.initialFastCompleted = true
        try await sync.updateFolderState(inbox)
    }

    /// Since mod-sequence 10, another client expunged 2 and 4 and marked 1 read.
    static func server(qresync: Bool) async throws -> ScriptedIMAPServer {
        let capabilities = "IMAP4rev1 IDLE UIDPLUS MOVE ENABLE CONDSTORE" + (qresync ? " QRESYNC" : "")
        return try await ScriptedIMAPServer.start(tls: true) { tag, command in
            let upper = command.uppercased()
            switch upper {
            case let c where c.hasPrefix("AUTHENTICATE"), let c where c.hasPrefix("LOGIN"):
                return "\(tag) OK [CAPABILITY \(capabilities)] in\r\n"
            case let c where c.hasPrefix("ENABLE"): return "* ENABLED QRESYNC\r\n\(tag) OK enabled\r\n"
            case let c where c.hasPrefix("LIST"): return "* LIST (\\HasNoChildren) \"/\" INBOX\r\n\(tag) OK listed\r\n"
            case let c where c.hasPrefix("STATUS"):
                return "* STATUS INBOX (MESSAGES 3 UIDNEXT 6 UIDVALIDITY 7 HIGHESTMODSEQ 14)\r\n\(tag) OK status\r\n"
            case let c where c.hasPrefix("EXAMINE \"INBOX\" (QRESYNC (7 10))"):
                return """
                    * 3 EXISTS\r\n* OK [UIDVALIDITY 7] ok\r\n* OK [UIDNEXT 6] ok\r\n* OK [HIGHESTMODSEQ 14] ok\r\n\
                    * VANISHED (EARLIER) 2,4\r\n* 1 FETCH (UID 1 FLAGS (\\Seen) MODSEQ (12))\r\n\(tag) OK [READ-ONLY] examined\r\n
                    """
            case let c where c.hasPrefix("EXAMINE"):
                return
                    "* 3 EXISTS\r\n* OK [UIDVALIDITY 7] ok\r\n* OK [UIDNEXT 6] ok\r\n* OK [HIGHESTMODSEQ 14] ok\r\n\(tag) OK [READ-ONLY] examined\r\n"
            case let c where c.hasPrefix("UID SEARCH"): return "* SEARCH 1 3 5\r\n\(tag) OK searched\r\n"
            case let c where c.hasPrefix("UID FETCH") && c.contains("FLAGS"):
                return "* 1 FETCH (UID 1 FLAGS (\\Seen) MODSEQ (12))\r\n\(tag) OK fetched\r\n"
            default: return "\(tag) OK\r\n"
            }
        }
    }

    func synchronize(with server: ScriptedIMAPServer) async throws -> FolderSyncReport {
        let pool = server.pool()
        let report = try await AccountSynchronizer(store: sync, connections: pool).sync(account: account) { _ in }
        await pool.shutdown()
        return try #require(report.folders.first)
    }

    func storedState() async throws -> (uids: [Int64], read: [Int64]) {
        try await database.writer.read { db in
            let uids = try Int64.fetchAll(db, sql: "SELECT imapUID FROM emailFolder ORDER BY imapUID")
            let read = try Int64.fetchAll(
                db, sql: "SELECT ef.imapUID FROM emailFolder ef JOIN email e ON e.id = ef.emailId WHERE e.isRead ORDER BY 1")
            return (uids, read)
        }
    }

    @Test func theSelectSaysWhatVanishedAndChanged() async throws {
        let server = try await Self.server(qresync: true)
        defer { server.stop() }
        let report = try await synchronize(with: server)
        let state = try await storedState()
        #expect(state.uids == [1, 3, 5] && state.read == [1])
        #expect(report.removed == 2 && report.flagChanges == 1 && report.serverMessages == 3, "\(report) \(server.commands)")
        let asked = server.commands.map { $0.uppercased() }
        #expect(asked.contains { $0.hasPrefix("ENABLE QRESYNC") })
        #expect(!asked.contains { $0.hasPrefix("UID SEARCH") }, "UIDNEXT said nothing is new: \(asked)")
        #expect(!asked.contains { $0.hasPrefix("UID FETCH") }, "the flags came with the SELECT: \(asked)")
        let folder = try #require(try await sync.folders(accountId: account.id).first)
        #expect(folder.highestModSeq == 14 && folder.serverMessageCount == 3)
    }

    /// The control: the same changes without QRESYNC, by the folder's UID list and a CHANGEDSINCE fetch.
    @Test func withoutQuickResyncTheUIDListAndFlagsAreAsked() async throws {
        let server = try await Self.server(qresync: false)
        defer { server.stop() }
        let report = try await synchronize(with: server)
        let state = try await storedState()
        #expect(state.uids == [1, 3, 5] && state.read == [1])
        #expect(report.removed == 2)
        let asked = server.commands.map { $0.uppercased() }
        #expect(asked.contains("UID SEARCH ALL"))
        #expect(asked.contains { $0.hasPrefix("UID FETCH") && $0.contains("CHANGEDSINCE 10") })
    }
}
