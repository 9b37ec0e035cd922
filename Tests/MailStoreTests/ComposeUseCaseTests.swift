import Foundation
import GRDB
import MIME
import Synchronization
import TernCore
import TernRuntime
import Testing

@testable import MailStore

/// FR-COMP-01 on the real store with the live adapters (MIME's Message-ID check, HTMLSafety for
/// HTML-only originals): from which account, threading headers, forwarded attachments, bodies not
/// yet downloaded, encoded subjects. The rules alone are in TernCoreTests/ComposePrefillTests.
struct ComposeUseCaseTests {
    let database: TernDatabase
    let account: Account
    let other: Account
    let utc = TimeZone(identifier: "UTC")!

    init() async throws {
        database = try TernDatabase.temporary()
        var account = Fixtures.account(name: "work")
        account.displayName = "Me Myself"
        account.aliases = ["me@alias.example"]
        self.account = account
        other = Fixtures.account(name: "home")
        try await database.writer.write { [account, other] db in
            try account.insert(db)
            try other.insert(db)
        }
    }

    func useCase(bodies: (any OriginalBodyFetching)? = nil) -> ComposeUseCase {
        ComposeUseCase(
            accounts: SQLiteAccountRepository(database: database), store: SQLiteComposeStore(database: database),
            syntax: MIMEMailSyntax(), sanitizer: HTMLSafetyBodySanitizer(), bodies: bodies, timeZone: utc)
    }

    func insert(_ email: Email, attachments: [TernCore.Attachment] = []) async throws -> EmailID {
        try await database.writer.write { db in
            var email = email
            try email.insert(db)
            for var attachment in attachments {
                attachment.emailId = email.id!
                try attachment.insert(db)
            }
            return email.id!
        }
    }

    func received(by account: Account, _ edit: (inout Email) -> Void = { _ in }) -> Email {
        var email = Fixtures.email(accountId: account.id, messageId: "<orig-\(UUID().uuidString)@example.fr>")
        email.toAddresses = [EmailAddress(name: "Me", address: account.emailAddress), EmailAddress(name: "Ivan", address: "ivan@example.ru")]
        email.ccAddresses = [EmailAddress(address: "me@ALIAS.example"), EmailAddress(name: "Bo", address: "bo@example.com")]
        email.bodyPlain = "The numbers.\n> What numbers?"
        email.bodiesFetched = true
        edit(&email)
        return email
    }

    @Test func replyAllFromTheReceivingAccountWithThreadingHeaders() async throws {
        let email = received(by: account) { $0.references = "<root@example.fr> <not an id> <mid@example.fr>" }
        let id = try await insert(email)
        let draft = try await useCase().compose(.replyAll, replyingTo: id)
        #expect(draft.accountId == account.id)
        #expect(draft.from == EmailAddress(name: "Me Myself", address: "me@ALIAS.example"))
        #expect(draft.to.map(\.address) == ["zoe@example.fr"])
        #expect(draft.cc.map(\.address) == ["ivan@example.ru", "bo@example.com"])
        #expect(draft.subject == "Re: Hello")
        #expect(draft.inReplyTo == email.messageId)
        #expect(draft.references == ["<root@example.fr>", "<mid@example.fr>", email.messageId!])
        #expect(draft.body == "\n\nOn Tue, 14 Nov 2023 at 22:13, Zoë wrote:\n> The numbers.\n>> What numbers?")
        #expect(draft.attachments.isEmpty)
    }

    @Test func replyToAMessageOfTheOtherAccountComesFromIt() async throws {
        let id = try await insert(received(by: other))
        let draft = try await useCase().compose(.reply, replyingTo: id)
        #expect(draft.accountId == other.id)
        #expect(draft.from.address == other.emailAddress)
        #expect(draft.cc.isEmpty)
    }

    @Test func invalidOriginalIdGivesNoThreadingHeaders() async throws {
        let id = try await insert(
            received(by: account) {
                $0.messageId = "<no-at-sign>"
                $0.headerMessageId = "<no-at-sign>"
            })
        let draft = try await useCase().compose(.reply, replyingTo: id)
        #expect(draft.inReplyTo == nil)
        #expect(draft.references.isEmpty)
    }

    @Test func forwardCarriesTheAttachmentsMarkedLocalOrPending() async throws {
        let attachments = [
            TernCore.Attachment(
                emailId: 0, partId: "2", filename: "a.pdf", mimeType: "application/pdf", sizeBytes: 1000, isDownloaded: true,
                localPath: "/tmp/a.pdf"),
            TernCore.Attachment(emailId: 0, partId: "3", filename: "b.png", mimeType: "image/png", sizeBytes: 2000)
        ]
        let id = try await insert(received(by: account), attachments: attachments)
        let draft = try await useCase().compose(.forward, replyingTo: id)
        #expect(draft.to.isEmpty && draft.cc.isEmpty)
        #expect(draft.subject == "Fwd: Hello")
        #expect(draft.inReplyTo == nil && draft.references.isEmpty)
        #expect(draft.attachments.map(\.filename) == ["a.pdf", "b.png"])
        #expect(draft.attachments.map(\.availability) == [.local, .pending])
        #expect(draft.body.hasPrefix("\n\n---------- Forwarded message ----------\nFrom: Zoë <zoe@example.fr>\n"))
        #expect(draft.body.hasSuffix("\n\nThe numbers.\n> What numbers?"))
    }

    @Test func htmlOnlyOriginalIsQuotedAsText() async throws {
        let id = try await insert(
            received(by: account) {
                $0.bodyPlain = nil
                $0.bodyHTML = "<p>Hello <b>there</b></p><script>alert(1)</script><blockquote>old</blockquote>"
            })
        let body = try await useCase().compose(.reply, replyingTo: id).body
        #expect(body.contains("> Hello there"))
        #expect(body.contains(">> old") || body.contains("> > old"))
        #expect(!body.contains("alert") && !body.contains("<"))
    }

    @Test func bodyNotDownloadedIsFetchedFirst() async throws {
        let id = try await insert(
            received(by: account) {
                $0.bodyPlain = nil
                $0.bodiesFetched = false
            })
        let fetcher = BodyFetcher(database: database, body: "Fetched text")
        let draft = try await useCase(bodies: fetcher).compose(.reply, replyingTo: id)
        #expect(draft.body.hasSuffix("wrote:\n> Fetched text"))
        #expect(draft.notes.isEmpty)
    }

    @Test func bodyThatCannotBeFetchedIsNoted() async throws {
        let id = try await insert(
            received(by: account) {
                $0.bodyPlain = nil
                $0.bodiesFetched = false
            })
        let draft = try await useCase(bodies: BodyFetcher(database: database, body: nil)).compose(.reply, replyingTo: id)
        #expect(draft.notes == [.originalBodyUnavailable])
        #expect(draft.body.hasSuffix("wrote:\n"))
    }

    @Test func encodedSubjectAndNamesAreDecodedBeforePrefixing() async throws {
        let raw = """
            From: =?utf-8?q?Andr=C3=A9_M=C3=BCller?= <andre@example.de>\r
            To: work@example.org\r
            Subject: =?utf-8?b?QVc6IMOcYmVyIGRhcyBCdWRnZXQ=?=\r
            Message-ID: <enc-1@example.de>\r
            Date: Tue, 14 Nov 2023 22:13:20 +0000\r
            \r
            Hallo\r

            """
        var email = MessageParser().parse(Array(raw.utf8)).email(accountId: account.id, internalDate: Date(), sizeBytes: Int64(raw.utf8.count))
        email.bodiesFetched = true
        let id = try await insert(email)
        let draft = try await useCase().compose(.reply, replyingTo: id)
        #expect(draft.subject == "AW: Über das Budget")
        #expect(draft.to == [EmailAddress(name: "André Müller", address: "andre@example.de")])
        #expect(draft.body.contains("André Müller wrote:"))
        #expect(try await useCase().compose(.forward, replyingTo: id).subject == "Fwd: AW: Über das Budget")
    }

    @Test func newMessageNeedsAnAccountWhenThereAreSeveral() async throws {
        await #expect(throws: TernError.accountNeeded(available: ["home", "work"])) { try await useCase().new(account: nil) }
        let draft = try await useCase().new(account: "work")
        #expect(draft.mode == .new && draft.isEmpty && draft.from.address == account.emailAddress)
    }

    /// CO01-M1: the web composer's default sender, with a From picker for the others.
    @Test func aNewMessagePrefersTheAccountNamedElseTheFirstByName() async throws {
        #expect(try await useCase().new(preferring: "work").accountId == account.id)
        #expect(try await useCase().new(preferring: nil).accountId == other.id)
        #expect(try await useCase().new(preferring: "gone").accountId == other.id)
    }

    /// CO01-M1: the From picker moves a reply to another account; the same account keeps the alias.
    @Test func aReplySentFromAnotherAccountTakesItsAddressAndKeepsTheRest() async throws {
        let id = try await insert(received(by: account))
        let reply = try await useCase().compose(.replyAll, replyingTo: id)
        let moved = try await useCase().sending(reply, from: "home")
        #expect(moved.accountId == other.id && moved.from.address == other.emailAddress)
        #expect(moved.to == reply.to && moved.cc == reply.cc && moved.body == reply.body && moved.inReplyTo == reply.inReplyTo)
        #expect(try await useCase().sending(reply, from: "work") == reply)
        await #expect(throws: TernError.notFound("account 'gone'")) { try await useCase().sending(reply, from: "gone") }
    }

    @Test func unknownMessageIsNotFound() async throws {
        await #expect(throws: TernError.notFound("message 999")) { try await useCase().compose(.reply, replyingTo: 999) }
    }

    @Test func aliasesSurviveTheStore() async throws {
        let stored = try await SQLiteAccountRepository(database: database).account(named: "work")
        #expect(stored?.aliases == ["me@alias.example"])
        #expect(stored?.ownAddresses == ["work@example.org", "me@alias.example"])
    }
}

/// Stands in for the on-demand body download: writes `body` into the row as sync would, or fails
/// as an offline fetch does.
struct BodyFetcher: OriginalBodyFetching {
    let database: TernDatabase
    let body: String?

    func fetchBody(of email: Email) async throws {
        guard let body else { throw TernError.connectionLost("offline") }
        try await database.writer.write { db in
            try db.execute(sql: "UPDATE email SET bodyPlain = ?, bodiesFetched = 1 WHERE id = ?", arguments: [body, email.id])
        }
    }
}
