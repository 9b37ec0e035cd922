import Testing
@testable import MIME

/// Recipients as typed into the composer (FR-COMP-01 "Send Validation"): RFC 5322 mailboxes kept
/// exactly, addr-specs checked strictly, non-ASCII flagged for SMTPUTF8 (RFC 6531).
@Suite struct RecipientSyntaxTests {
    @Test func listsSplitOutsideQuotesCommentsAndAngles() {
        let parsed = RecipientSyntax.parseList(#"Ana Silva <ana@example.org>, "Doe, John" <john@example.com>; bo@example.net (Bo, home),"# +
                                               #" "john smith"@example.com, <"a,b"@example.com>"#)
        #expect(parsed == [
            MailboxAddress(name: "Ana Silva", address: "ana@example.org"),
            MailboxAddress(name: "Doe, John", address: "john@example.com"),
            MailboxAddress(address: "bo@example.net"),
            MailboxAddress(address: #""john smith"@example.com"#),
            MailboxAddress(address: #""a,b"@example.com"#),
        ])
    }

    @Test func escapedQuotesInNames() {
        #expect(RecipientSyntax.parseList(#""Ana \"the boss\" Silva" <ana@example.org>"#)
                == [MailboxAddress(name: #"Ana "the boss" Silva"#, address: "ana@example.org")])
    }

    @Test func textThatIsNoMailboxIsKeptToBeShown() {
        #expect(RecipientSyntax.parseList("ana at example dot org, , bo@").map(\.address) == ["ana at example dot org", "bo@"])
    }

    @Test(arguments: [
        "ana@example.org", "ana.silva+tag@mail.example.org", "a!#$%&'*+/=?^_`{|}~-@example.org", #""john smith"@example.com"#,
        #""a\"b"@example.com"#, #""a@b"@example.com"#, "user@[192.0.2.1]", "user@[IPv6:2001:db8::1]", "x@localhost",
    ])
    func validASCII(_ address: String) {
        #expect(RecipientSyntax.check(address) == .valid(needsSMTPUTF8: false))
    }

    @Test(arguments: ["jörg@例え.jp", "ana@bücher.example", "用户@example.org", "ana@xn--bcher-kva.example"])
    func internationalized(_ address: String) {
        #expect(RecipientSyntax.check(address) == .valid(needsSMTPUTF8: address.utf8.contains { $0 >= 0x80 }))
    }

    @Test(arguments: [
        ("", "empty"), ("ana", "no @"), ("@example.org", "nothing before the @"), ("ana@", "no domain after the @"),
        ("ana silva@example.org", "space in the local part (quote it)"), (".ana@example.org", "local part starts or ends with a dot"),
        ("ana..silva@example.org", "two dots in a row in the local part"), ("ana@example..org", "empty label in the domain"),
        ("ana@-example.org", "domain label starts or ends with a hyphen"), ("ana@exa_mple.org", "character '_' in the domain"),
        ("ana(x)@example.org", "character '(' in the local part"), (#""ana@example.org"#, "unterminated quoted local part"),
        (#""unterminated@example.org"#, "unterminated quoted local part"), ("ana@[1.2.3.4", "unterminated address literal"),
        (String(repeating: "a", count: 65) + "@example.org", "local part longer than 64 bytes"),
        ("a@" + String(repeating: "b", count: 64) + ".org", "domain label longer than 63 bytes"),
        ("a@" + Array(repeating: String(repeating: "b", count: 60), count: 5).joined(separator: "."), "longer than 254 bytes"),
        ("ana\u{7}@example.org", "character '\u{7}' in the local part"),
    ])
    func invalid(_ address: String, _ reason: String) {
        #expect(RecipientSyntax.check(address) == .invalid(reason))
    }
}
