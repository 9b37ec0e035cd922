import Foundation
import Testing

@testable import TernCore

/// FR-COMP-01's prefill table, rule by rule, and the cases around each rule.
@Suite struct ComposePrefillTests {
    let own: Set<String> = ["me@example.org", "me.alias@example.org"]

    func original(
        from: EmailAddress = EmailAddress(name: "Ana Silva", address: "ana@example.com"), replyTo: [EmailAddress] = [],
        to: [EmailAddress] = [EmailAddress(name: "Me", address: "me@example.org")], cc: [EmailAddress] = [],
        subject: String = "Budget"
    ) -> Email {
        Email(
            accountId: "a", messageId: "<m1@example.com>", dedupKey: "k", subject: subject, fromName: from.name, fromAddress: from.address,
            toAddresses: to, ccAddresses: cc, replyTo: replyTo, dateSent: Date(timeIntervalSince1970: 1_700_000_000),
            dateReceived: Date(timeIntervalSince1970: 1_700_000_000))
    }

    // MARK: Recipients

    @Test func replyGoesToTheSender() {
        #expect(ComposePrefill.replyRecipients(to: original(), ownAddresses: own).map(\.address) == ["ana@example.com"])
    }

    @Test func replyGoesToReplyToWhenPresent() {
        let email = original(replyTo: [EmailAddress(name: "List", address: "list@example.net"), EmailAddress(address: "LIST@example.net")])
        #expect(ComposePrefill.replyRecipients(to: email, ownAddresses: own).map(\.address) == ["list@example.net"])
    }

    @Test func replyAllLeavesOutEveryOwnAddressAndDuplicates() {
        let email = original(
            to: [
                EmailAddress(address: "ME@example.org"), EmailAddress(name: "Bo", address: "bo@example.com"),
                EmailAddress(address: "Me.Alias@Example.org")
            ],
            cc: [
                EmailAddress(address: "me@example.org"), EmailAddress(address: "BO@example.com"), EmailAddress(name: "Cy", address: "cy@example.com"),
                EmailAddress(address: "Ana@Example.com")
            ])
        let (to, cc) = ComposePrefill.replyAllRecipients(to: email, ownAddresses: own)
        #expect(to.map(\.address) == ["ana@example.com"])
        #expect(cc.map(\.address) == ["bo@example.com", "cy@example.com"])
        #expect(cc.first?.name == "Bo")
    }

    @Test func replyAllWithReplyToKeepsTheAuthorInCc() {
        let email = original(replyTo: [EmailAddress(address: "list@example.net")], cc: [EmailAddress(address: "list@example.net")])
        let (to, cc) = ComposePrefill.replyAllRecipients(to: email, ownAddresses: own)
        #expect(to.map(\.address) == ["list@example.net"])
        #expect(cc.isEmpty)
    }

    @Test func replyToOwnMessageGoesToItsRecipients() {
        let email = original(
            from: EmailAddress(name: "Me", address: "me.alias@example.org"),
            to: [EmailAddress(address: "bo@example.com"), EmailAddress(address: "me@example.org")])
        #expect(ComposePrefill.replyRecipients(to: email, ownAddresses: own).map(\.address) == ["bo@example.com"])
    }

    @Test func replyAllDropsTextThatIsNoAddress() {
        let email = original(to: [EmailAddress(address: "undisclosed-recipients"), EmailAddress(address: "bo@example.com")])
        #expect(ComposePrefill.replyAllRecipients(to: email, ownAddresses: own).cc.map(\.address) == ["bo@example.com"])
    }

    @Test func senderIsTheAliasTheOriginalWasAddressedTo() {
        var account = Account(
            name: "w", emailAddress: "me@example.org", displayName: "Me", provider: .imap,
            imap: ServerEndpoint(host: "h", port: 993, security: .implicitTLS),
            smtp: ServerEndpoint(host: "h", port: 465, security: .implicitTLS), username: "me", credential: .passwordEnvironment("P"),
            aliases: ["Me.Alias@example.org"])
        #expect(
            ComposePrefill.sender(for: account, original: original(to: [EmailAddress(address: "ME.ALIAS@example.org")])).address
                == "ME.ALIAS@example.org")
        #expect(ComposePrefill.sender(for: account, original: original()).address == "me@example.org")
        account.aliases = []
        #expect(ComposePrefill.sender(for: account, original: nil) == EmailAddress(name: "Me", address: "me@example.org"))
    }

    // MARK: Subject

    @Test(arguments: [
        ("Budget", "Re: Budget"), ("Re: Budget", "Re: Budget"), ("RE: Budget", "RE: Budget"), ("re:Budget", "re:Budget"),
        ("AW: Budget", "AW: Budget"), ("SV: Budget", "SV: Budget"), ("Antw: Budget", "Antw: Budget"), ("Re[2]: Budget", "Re[2]: Budget"),
        ("[dev] Re: Budget", "[dev] Re: Budget"), ("Fwd: Budget", "Re: Fwd: Budget"), ("WG: Budget", "Re: WG: Budget"),
        ("  Budget  ", "Re: Budget"), ("Réf : Über", "Réf : Über"), ("Réf: Über", "Réf: Über"), ("回复：预算", "回复：预算"),
        ("Rebuild: the plan", "Re: Rebuild: the plan"), ("", "Re: ")
    ])
    func replySubject(_ original: String, _ expected: String) {
        #expect(ComposePrefill.replySubject(original) == expected)
    }

    @Test(arguments: [
        ("Budget", "Fwd: Budget"), ("Fwd: Budget", "Fwd: Budget"), ("FW: Budget", "FW: Budget"), ("WG: Budget", "WG: Budget"),
        ("VB: Budget", "VB: Budget"), ("Re: Budget", "Fwd: Re: Budget"), ("AW: Budget", "Fwd: AW: Budget"), ("TR: Budget", "TR: Budget")
    ])
    func forwardSubject(_ original: String, _ expected: String) {
        #expect(ComposePrefill.forwardSubject(original) == expected)
    }

    // MARK: Body

    @Test func quoteKeepsExistingLevels() {
        let text = "Hello\n\n> earlier\n>> much earlier\n> > spaced\nend\n\n"
        #expect(ComposePrefill.quoted(text) == "> Hello\n>\n>> earlier\n>>> much earlier\n>> > spaced\n> end")
    }

    @Test func quoteReadsEveryLineBreak() {
        #expect(ComposePrefill.quoted("a\r\nb\rc") == "> a\n> b\n> c")
    }

    @Test func replyBodyHasTheAttributionLine() {
        let utc = TimeZone(identifier: "UTC")!
        let body = ComposePrefill.quotedReply(body: "Hi", senderName: "Ana Silva", date: Date(timeIntervalSince1970: 1_700_000_000), timeZone: utc)
        #expect(body == "\n\nOn Tue, 14 Nov 2023 at 22:13, Ana Silva wrote:\n> Hi")
    }

    @Test func forwardHeaderHasFromDateSubjectTo() {
        let utc = TimeZone(identifier: "UTC")!
        let email = original(
            from: EmailAddress(address: "ana@example.com"),
            to: [EmailAddress(name: "Me", address: "me@example.org"), EmailAddress(address: "bo@example.com")],
            cc: [EmailAddress(name: "Cy", address: "cy@example.com")])
        let body = ComposePrefill.forwardedBody(original: email, body: "Text", timeZone: utc)
        #expect(
            body == """


                ---------- Forwarded message ----------
                From: ana@example.com
                Date: Tue, 14 Nov 2023 at 22:13
                Subject: Budget
                To: Me <me@example.org>, bo@example.com
                Cc: Cy <cy@example.com>

                Text
                """)
    }

    // MARK: Threading headers

    /// The shape MessageID.isValid checks, enough for these rules (the real check is tested with the
    /// use case in MailStoreTests).
    let bracketed: (String) -> Bool = { $0.hasPrefix("<") && $0.hasSuffix(">") && $0.contains("@") && !$0.contains(" ") }

    @Test func referencesAppendTheOriginalId() {
        var email = original()
        email.references = "<r1@x> <r2@x>"
        let headers = ComposePrefill.threadingHeaders(of: email, isValid: bracketed)
        #expect(headers.inReplyTo == "<m1@example.com>")
        #expect(headers.references == ["<r1@x>", "<r2@x>", "<m1@example.com>"])
    }

    @Test func referencesFallBackToInReplyTo() {
        var email = original()
        email.inReplyTo = "<p@x>"
        #expect(ComposePrefill.threadingHeaders(of: email, isValid: bracketed).references == ["<p@x>", "<m1@example.com>"])
    }

    @Test func invalidIdsAreDropped() {
        var email = original()
        email.references = "<r1@x> <no-at-sign> <m1@example.com>"
        #expect(ComposePrefill.threadingHeaders(of: email, isValid: bracketed).references == ["<r1@x>", "<m1@example.com>"])
        email.headerMessageId = "<broken>"
        let headers = ComposePrefill.threadingHeaders(of: email, isValid: bracketed)
        #expect(headers.inReplyTo == nil && headers.references.isEmpty)
    }

    @Test func longChainsKeepTheRootAndTheLatest() {
        var email = original()
        email.references = (0..<200).map { "<r\($0)@x>" }.joined(separator: " ")
        let references = ComposePrefill.threadingHeaders(of: email, isValid: bracketed).references
        #expect(references.count == ComposePrefill.maxReferences)
        #expect(references.first == "<r0@x>")
        #expect(references.suffix(2) == ["<r199@x>", "<m1@example.com>"])
    }
}
