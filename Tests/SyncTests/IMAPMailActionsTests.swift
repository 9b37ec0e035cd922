import Foundation
import IMAP
import Sync
import TernCore
import TernTesting
import Testing

/// FR-SYNC-10 on the server: flags in one UID STORE, archive by UID MOVE (or COPY, STORE,
/// UID EXPUNGE without MOVE), and a UID read under an older UIDVALIDITY never named (issue 33).
@Suite struct IMAPMailActionsTests {
    func server(_ capabilities: Set<String> = ["IMAP4REV1", "UIDPLUS", "MOVE", "CONDSTORE"]) async -> (InMemoryIMAPServer, Int64) {
        let server = InMemoryIMAPServer(capabilities: capabilities, mailboxes: [("INBOX", []), ("Archive", ["\\Archive"])])
        await server.deliver(SyncFixture.messages(3))
        return (server, Int64(await server.uidValidity() ?? 0))
    }

    @Test func flagsAreSetInOneStore() async throws {
        let (server, validity) = await server()
        let actions = IMAPMailActions(connections: InMemoryConnectionPool(server: server))
        let outcomes = try await actions.perform(
            (1...3).map {
                ServerOperation(id: PendingChangeID($0), action: .store(flag: "\\Seen", add: true, mailbox: "INBOX", uid: $0), uidValidity: validity)
            })
        #expect(outcomes == [1: .done(newUID: nil), 2: .done(newUID: nil), 3: .done(newUID: nil)])
        #expect(await server.commands(.store).count == 1)
        for uid in 1...3 { #expect(await server.flags(uid: UInt32(uid)) == ["\\Seen"]) }
    }

    @Test(arguments: [true, false])
    func archivingMovesAndReportsTheNewUID(withMove: Bool) async throws {
        let (server, validity) = await server(withMove ? ["IMAP4REV1", "UIDPLUS", "MOVE"] : ["IMAP4REV1", "UIDPLUS"])
        let actions = IMAPMailActions(connections: InMemoryConnectionPool(server: server))
        let outcomes = try await actions.perform([
            ServerOperation(id: 7, action: .move(mailbox: "INBOX", uid: 2, to: "Archive", createTarget: false), uidValidity: validity)
        ])
        #expect(outcomes == [7: .done(newUID: 1)])
        #expect(await server.uids() == [1, 3])
        #expect(await server.uids(in: "Archive") == [1])
        #expect(await server.commands(.move).count == (withMove ? 1 : 0))
    }

    @Test func aUIDOfAnotherUIDValidityIsNeverNamed() async throws {
        let (server, validity) = await server()
        let actions = IMAPMailActions(connections: InMemoryConnectionPool(server: server))
        let outcomes = try await actions.perform([
            ServerOperation(id: 1, action: .expunge(mailbox: "INBOX", uid: 1), uidValidity: validity - 1)
        ])
        #expect(outcomes == [1: .folderReset])
        #expect(await server.commands(.store).isEmpty)
        #expect(await server.commands(.expunge).isEmpty)
        #expect(await server.uids() == [1, 2, 3])
    }
}
