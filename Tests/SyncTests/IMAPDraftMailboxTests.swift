import Foundation
import IMAP
import Sync
import TernCore
import TernTesting
import Testing

/// FR-COMP-01's draft lifecycle on the server's Drafts mailbox: upload, replace, another client's
/// newer version, deletion elsewhere, removal, and a Drafts mailbox created when there is none (issue 33).
@Suite struct IMAPDraftMailboxTests {
    static func draft(_ version: Int, id: String = "<draft-1@tern.test>") -> [UInt8] {
        Array("From: bob@tern.test\r\nSubject: Plan v\(version)\r\nMessage-ID: \(id)\r\n\r\nVersion \(version)\r\n".utf8)
    }

    func perform(_ action: DraftServerRequest.Action, on server: InMemoryIMAPServer, known: String? = "Drafts") async throws -> DraftServerOutcome {
        let mailbox = IMAPDraftMailbox(connections: InMemoryConnectionPool(server: server))
        let outcomes = try await mailbox.perform(
            [DraftServerRequest(draftId: 1, messageId: "<draft-1@tern.test>", action: action)],
            draftsMailbox: known)
        return try #require(outcomes[1])
    }

    func server() -> InMemoryIMAPServer { InMemoryIMAPServer(mailboxes: [("INBOX", []), ("Drafts", ["\\Drafts"])]) }

    @Test func anUploadReplacesThePreviousVersion() async throws {
        let server = server()
        let validity = Int64(try #require(await server.uidValidity(of: "Drafts")))
        let first = try await perform(.upload(raw: Self.draft(1), date: Date(), known: nil), on: server)
        #expect(first == .uploaded(DraftServerCopy(mailbox: "Drafts", uid: 1, uidValidity: validity)))
        #expect(await server.flags(uid: 1, in: "Drafts") == ["\\Draft", "\\Seen"])
        let known = DraftServerCopy(mailbox: "Drafts", uid: 1, uidValidity: validity)
        let second = try await perform(.upload(raw: Self.draft(2), date: Date(), known: known), on: server)
        #expect(second == .uploaded(DraftServerCopy(mailbox: "Drafts", uid: 2, uidValidity: validity)))
        #expect(await server.uids(in: "Drafts") == [2], "only these UIDs were expunged (UIDPLUS)")
    }

    @Test func aNewerVersionFromAnotherClientWins() async throws {
        let server = server()
        let validity = Int64(try #require(await server.uidValidity(of: "Drafts")))
        _ = try await perform(.upload(raw: Self.draft(1), date: Date(), known: nil), on: server)
        let known = DraftServerCopy(mailbox: "Drafts", uid: 1, uidValidity: validity)
        #expect(try await perform(.check(known: known), on: server) == .unchanged)
        // Another client saves version 2 (a new copy with the same Message-ID).
        let theirs = InMemoryMessage.text(subject: "Plan v2", body: "Theirs", messageId: "<draft-1@tern.test>")
        await server.deliver(theirs, to: "Drafts")
        let outcome = try await perform(.upload(raw: Self.draft(3), date: Date(), known: known), on: server)
        #expect(outcome == .changedOnServer(raw: theirs.raw, copy: DraftServerCopy(mailbox: "Drafts", uid: 2, uidValidity: validity)))
    }

    @Test func aDraftDeletedElsewhereAndOneRemoved() async throws {
        let server = server()
        let validity = Int64(try #require(await server.uidValidity(of: "Drafts")))
        _ = try await perform(.upload(raw: Self.draft(1), date: Date(), known: nil), on: server)
        #expect(try await perform(.remove, on: server) == .removed)
        #expect(await server.uids(in: "Drafts").isEmpty)
        let known = DraftServerCopy(mailbox: "Drafts", uid: 1, uidValidity: validity)
        #expect(try await perform(.check(known: known), on: server) == .deletedOnServer)
    }

    @Test func aServerWithoutDraftsGetsOne() async throws {
        let server = InMemoryIMAPServer()
        let outcome = try await perform(.upload(raw: Self.draft(1), date: Date(), known: nil), on: server, known: nil)
        guard case .uploaded(let copy) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(copy.mailbox == "Drafts")
        #expect(await server.mailboxNames().contains("Drafts"))
    }

    @Test func aLostConnectionFailsTheRestOfThePass() async throws {
        let server = server()
        await server.inject(.timeout(.append))
        let outcome = try await perform(.upload(raw: Self.draft(1), date: Date(), known: nil), on: server)
        guard case .failed(let reason) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(reason.contains("timed out"))
    }
}
