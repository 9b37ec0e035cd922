import Foundation
import MailStore
import Sync
import TernCore
import Testing

@testable import IMAP

/// Issue 21: changes queued while a folder had UIDVALIDITY 7, pushed to a scripted server whose
/// SELECT now says 8 (the mailbox was recreated, or the server restored from a backup). UID 5 is
/// another message there: the server must receive no STORE, COPY, MOVE or EXPUNGE for it. The store,
/// the pending-change processor and the IMAP actions are the real ones.
@Suite(.enabled(if: TestServers.available, "needs the test CA (make test)"), .timeLimit(.minutes(1)))
struct StaleChangePushTests {
    enum Change: String, CaseIterable {
        case deleteFromTrash, archive, markRead
    }

    /// The scripted mailbox answers SELECT with this UIDVALIDITY and every command with OK.
    static func server(uidValidity: Int) async throws -> ScriptedIMAPServer {
        try await ScriptedIMAPServer.start(tls: true) { tag, command in
            switch command.uppercased() {
            case let c where c.hasPrefix("AUTHENTICATE"): "\(tag) OK [CAPABILITY IMAP4rev1 UIDPLUS MOVE] logged in\r\n"
            case let c where c.hasPrefix("SELECT"): "* 1 EXISTS\r\n* OK [UIDVALIDITY \(uidValidity)] ok\r\n\(tag) OK [READ-WRITE] selected\r\n"
            case let c where c.hasPrefix("LOGOUT"): "* BYE bye\r\n\(tag) OK bye\r\n"
            default: "\(tag) OK done\r\n"
            }
        }
    }

    /// Runs `change` on UID 5 of a folder stored under UIDVALIDITY 7, then pushes it to `server`.
    func push(_ change: Change, to server: ScriptedIMAPServer) async throws -> [PendingChangeSummary] {
        let database = try TernDatabase.temporary()
        let account = Account(
            name: "work", emailAddress: "bob@tern.test", provider: .imap,
            imap: ServerEndpoint(host: "127.0.0.1", port: server.port, security: .implicitTLS),
            smtp: ServerEndpoint(host: "127.0.0.1", port: 1, security: .implicitTLS),
            username: "bob@tern.test", credential: .passwordEnvironment("UNUSED"))
        try await SQLiteAccountRepository(database: database).insert(account)
        let sync = SQLiteSyncStore(database: database)
        let mailbox = change == .deleteFromTrash ? "Trash" : "INBOX"
        let folders = try await sync.saveDiscoveredFolders(
            [
                DiscoveredFolder(path: "INBOX", delimiter: "/", folderType: .inbox),
                DiscoveredFolder(path: "Trash", delimiter: "/", folderType: .trash),
                DiscoveredFolder(path: "Archive", delimiter: "/", folderType: .all)
            ], accountId: account.id, keepOrphans: false)
        let folder = try #require(folders.first { $0.path == mailbox })
        try await sync.resetFolder(folder.id!, uidValidity: 7, keepOrphans: false)
        let email = Email(
            accountId: account.id, messageId: "<m5@tern.test>", dedupKey: "m5", subject: "Five", fromAddress: "ann@tern.test",
            dateReceived: Date(timeIntervalSince1970: 1_700_000_000))
        let stored = try await sync.store(
            [IncomingMessage(email: email, uid: 5, serverFlags: [])], folderId: folder.id!, cursorUID: 5,
            backfillCursorUID: 5)
        let emailId = try #require(stored.newMessages.first?.emailId)

        let actions = SQLiteMailActionStore(database: database)
        switch change {
        case .deleteFromTrash, .archive:
            let copies = try await actions.scope(of: [.message(emailId)], folderPath: mailbox, forFlags: false).copies
            try await actions.applyRemoval(change == .archive ? .archive : .delete, of: copies, at: Date(), undo: nil)
        case .markRead:
            try await actions.applyFlagChange(
                .read, to: try await actions.scope(of: [.message(emailId)], folderPath: nil, forFlags: true),
                at: Date())
        }
        let pool = server.pool()
        _ = try await PendingOperationProcessor(store: actions, server: ScriptedMailActions(imap: IMAPMailActions(connections: pool)))
            .process(
                account: account,
                credentials: CredentialSupply(
                    username: "bob@tern.test", current: { .password("x") },
                    refreshed: { .password("x") }))
        await pool.shutdown()
        return try await actions.summaries(accountId: account.id)
    }

    static let changingCommands = ["UID STORE", "UID COPY", "UID MOVE", "UID EXPUNGE", "EXPUNGE", "STORE", "COPY", "MOVE"]

    @Test(arguments: Change.allCases)
    func aChangeQueuedUnderAnotherUIDValidityIsNeverSent(change: Change) async throws {
        let server = try await Self.server(uidValidity: 8)
        defer { server.stop() }
        let changes = try await push(change, to: server)
        let sent = server.commands.filter { command in Self.changingCommands.contains { command.uppercased().hasPrefix($0) } }
        #expect(sent.isEmpty, "sent for a stale UID: \(sent)")
        #expect(server.commands.contains { $0.uppercased().hasPrefix("SELECT") }, "the push looked at the mailbox")
        #expect(changes.map(\.state) == [.failed], "cancelled, and reported: \(changes)")
        #expect(changes.first?.lastError?.contains("UIDVALIDITY") == true)
    }

    /// The control: under the same UIDVALIDITY the commands go out.
    @Test(arguments: Change.allCases)
    func aChangeUnderTheSameUIDValidityIsSent(change: Change) async throws {
        let server = try await Self.server(uidValidity: 7)
        defer { server.stop() }
        let changes = try await push(change, to: server)
        #expect(server.commands.contains { command in Self.changingCommands.contains { command.uppercased().hasPrefix($0) } })
        #expect(changes.isEmpty, "done: \(changes)")
    }
}

/// `ServerMailActions` straight on `IMAPMailActions`, as the runtime's live one is.
struct ScriptedMailActions: ServerMailActions {
    let imap: IMAPMailActions

    func perform(_ operations: [ServerOperation], account: Account, credentials: CredentialSupply) async throws -> [PendingChangeID:
        ServerOperationOutcome]
    {
        try await imap.perform(operations)
    }

    func mailbox(_ mailbox: String?, containsMessageId messageId: String, account: Account, credentials: CredentialSupply) async throws -> Bool {
        try await imap.mailbox(mailbox, containsMessageId: messageId)
    }
}
