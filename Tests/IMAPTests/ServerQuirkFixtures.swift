import Foundation

@testable import IMAP
@testable import MIME

/// More fixtures, by source: RFC 9051 / RFC 3501 examples, the extension RFCs (UIDPLUS, CONDSTORE,
/// QRESYNC, SPECIAL-USE, ID, ENABLE, MOVE, ESEARCH, QUOTA, METADATA) and responses seen from Gmail,
/// Dovecot, Exchange/Outlook, Cyrus and Yahoo, quirks included. Same checks as `fixtures`.
private func state(_ response: IMAPResponse) -> ResponseState? {
    switch response {
    case .tagged(_, let state), .untagged(.state(let state)): state
    default: nil
    }
}

private func fetch(_ response: IMAPResponse) -> (UInt32, FetchedMessage)? {
    guard case .untagged(.fetch(let sequence, let attributes)) = response else { return nil }
    return (sequence, FetchedMessage(sequence: sequence, attributes: attributes))
}

private func listing(_ response: IMAPResponse) -> MailboxListing? {
    if case .untagged(.list(let listing)) = response { return listing }
    return nil
}

private func code(_ wire: String, _ check: @escaping @Sendable (ResponseCode?) -> Bool) -> Fixture {
    Fixture(name: "code: \(wire.prefix(48))", wire: wire) { check(state($0)?.code) }
}

private func other(_ name: String, _ wire: String) -> Fixture {
    code(wire) { if case .other(let found, _)? = $0 { found == name } else { false } }
}

private func untagged(_ name: String, _ wire: String, _ expected: UntaggedResponse) -> Fixture {
    Fixture(name: name, wire: wire) { $0 == .untagged(expected) }
}

private func structure(_ name: String, _ wire: String, _ check: @escaping @Sendable (MIMEPart) -> Bool) -> Fixture {
    Fixture(name: name, wire: wire) { fetch($0)?.1.bodyStructure.map(check) ?? false }
}

private func envelope(_ name: String, _ wire: String, _ check: @escaping @Sendable (Envelope) -> Bool) -> Fixture {
    Fixture(name: name, wire: wire) { fetch($0)?.1.envelope.map(check) ?? false }
}

let serverFixtures: [Fixture] = responseCodeFixtures + statusFixtures + listFixtures + fetchFixtures + envelopeFixtures + structureFixtures

// MARK: - Response codes (RFC 9051 section 7.1, RFC 5530)

let responseCodeFixtures: [Fixture] = [
    code("a1 OK [CAPABILITY IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE SORT MOVE] Logged in\r\n") {
        if case .capability(let list)? = $0 { list.contains("MOVE") } else { false }
    },
    code("a1 OK [READ-ONLY] EXAMINE completed\r\n") { $0 == .readOnly },
    code("a1 OK [CLOSED] Previous mailbox closed\r\n") { $0 == .closed },
    code("* OK [UNSEEN 12] Message 12 is first unseen\r\n") { $0 == .unseen(12) },
    code("* OK [UIDVALIDITY 1] x\r\n") { $0 == .uidValidity(1) },
    code("* OK [UIDVALIDITY 4294967295] max\r\n") { $0 == .uidValidity(4_294_967_295) },
    code("* OK [HIGHESTMODSEQ 1] x\r\n") { $0 == .highestModSeq(1) },
    code("* OK [HIGHESTMODSEQ 18446744073709551615] max\r\n") { $0 == .highestModSeq(.max) },
    code("a1 OK [APPENDUID 38505 3955] APPEND completed\r\n") { $0 == .appendUID(uidValidity: 38505, uids: UIDSet([3955...3955])) },
    code("a1 OK [APPENDUID 38505 3955:3957] MULTIAPPEND\r\n") { $0 == .appendUID(uidValidity: 38505, uids: UIDSet([3955...3957])) },
    code("a1 OK [COPYUID 38505 304,319:320 3956:3958] Done\r\n") {
        $0 == .copyUID(uidValidity: 38505, source: UIDSet([304...304, 319...320]), destination: UIDSet([3956...3958]))
    },
    code("* OK [COPYUID 432432 42:43 1000:1001] Moved\r\n") {
        $0 == .copyUID(uidValidity: 432_432, source: UIDSet([42...43]), destination: UIDSet([1000...1001]))
    },
    code("a1 NO [TRYCREATE] No such mailbox\r\n") { $0 == .tryCreate },
    code("* OK [PERMANENTFLAGS ()] No permanent flags permitted\r\n") { $0 == .permanentFlags([]) },
    code("* OK [PERMANENTFLAGS (\\Answered \\Flagged \\Draft \\Deleted \\Seen $Forwarded $Junk $NotJunk NonJunk \\*)] Flags permitted.\r\n") {
        if case .permanentFlags(let flags)? = $0 { flags.count == 10 && flags.contains("NonJunk") } else { false }
    },
    code("* NO [ALERT] Your mailbox is almost full\r\n") { $0 == .alert },
    code("a1 OK [NOMODSEQ] Sorry, this mailbox format doesn't support modsequences\r\n") { $0 == .noModSeq },
    other("MODIFIED", "a1 OK [MODIFIED 7,9] Conditional STORE failed\r\n"),
    other("BADCHARSET", "a1 NO [BADCHARSET (UTF-8 US-ASCII)] Unsupported charset\r\n"),
    other("REFERRAL", "a1 NO [REFERRAL IMAP://user;AUTH=*@SERVER2/] Remote server\r\n"),
    other("UNAVAILABLE", "a1 NO [UNAVAILABLE] User's backend down for maintenance\r\n"),
    other("AUTHENTICATIONFAILED", "a1 NO [AUTHENTICATIONFAILED] Authentication failed.\r\n"),
    other("AUTHORIZATIONFAILED", "a1 NO [AUTHORIZATIONFAILED] No such authorization-ID\r\n"),
    other("EXPIRED", "a1 NO [EXPIRED] That password isn't valid any more\r\n"),
    other("PRIVACYREQUIRED", "a1 NO [PRIVACYREQUIRED] Connection offers no privacy\r\n"),
    other("CONTACTADMIN", "a1 NO [CONTACTADMIN] You must contact the system administrator\r\n"),
    other("NOPERM", "a1 NO [NOPERM] Access denied\r\n"),
    other("INUSE", "a1 NO [INUSE] Mailbox in use\r\n"),
    other("EXPUNGEISSUED", "a1 OK [EXPUNGEISSUED] Search completed\r\n"),
    other("CORRUPTION", "a1 NO [CORRUPTION] Cannot open mailbox\r\n"),
    other("SERVERBUG", "a1 NO [SERVERBUG] Internal error occurred. Refer to server log for more information.\r\n"),
    other("CLIENTBUG", "a1 OK [CLIENTBUG] Done, but your client is buggy\r\n"),
    other("CANNOT", "a1 NO [CANNOT] Can't delete mailbox with children\r\n"),
    other("LIMIT", "a1 NO [LIMIT] At most 32 flags in one mailbox supported\r\n"),
    other("OVERQUOTA", "a1 NO [OVERQUOTA] Sorry, over quota. Please try again later.\r\n"),
    other("ALREADYEXISTS", "a1 NO [ALREADYEXISTS] Mailbox already exists\r\n"),
    other("NONEXISTENT", "a1 NO [NONEXISTENT] Unknown mailbox\r\n"),
    other("HASCHILDREN", "a1 NO [HASCHILDREN] Mailbox has children, delete them first\r\n"),
    other("UIDNOTSTICKY", "* NO [UIDNOTSTICKY] Non-persistent UIDs\r\n"),
    other("UNKNOWN-CTE", "a1 NO [UNKNOWN-CTE] Can't decode this part\r\n"),
    other("WEBALERT", "a1 NO [WEBALERT https://support.google.com/mail/accounts/answer/78754] Web login required.\r\n"),
    other("THROTTLED", "a1 NO [THROTTLED] Account exceeded command or bandwidth limits.\r\n"),
    other("URLMECH", "* OK [URLMECH INTERNAL] Cyrus IMAP ready\r\n"),
    other("SERVERBUG", "* BAD [SERVERBUG] Internal error\r\n"),
    Fixture(name: "gmail ok with code and text", wire: "* OK Gimap ready for requests from 192.0.2.1 n123mb4567\r\n") {
        state($0)?.status == .ok && state($0)?.code == nil && state($0)?.text.hasPrefix("Gimap") == true
    },
    Fixture(
        name: "exchange greeting with base64 tail",
        wire:
            "* OK The Microsoft Exchange IMAP4 service is ready. [TQBXADIAUABSADAAMQBDAEEAMAAwADEAMQAuAG4AYQBtAHAAcgBkADAAMQAuAHAAcgBvAGQALgBvAHUAdABsAG8AbwBrAC4AYwBvAG0A]\r\n"
    ) {
        state($0)?.status == .ok && state($0)?.text.contains("Exchange") == true
    },
    Fixture(name: "bye with alert", wire: "* BYE [ALERT] Fatal error: Too many invalid IMAP commands.\r\n") {
        state($0)?.status == .bye && state($0)?.code == .alert
    },
    Fixture(name: "bye autologout", wire: "* BYE Autologout; idle for too long\r\n") { state($0)?.status == .bye },
    Fixture(name: "numeric tag", wire: "A00000001 OK LOGIN completed.\r\n") {
        if case .tagged("A00000001", let state) = $0 { state.status == .ok } else { false }
    },
    Fixture(name: "tagged bad with code", wire: "a9 BAD [PARSE] Bad syntax\r\n") {
        if case .tagged("a9", let state) = $0 { state.status == .bad } else { false }
    },
    Fixture(name: "dovecot still here during idle", wire: "* OK Still here\r\n") { state($0)?.text == "Still here" },
    Fixture(name: "idle continuation", wire: "+ idling\r\n") { $0 == .continuation("idling") },
    Fixture(name: "exchange idle continuation", wire: "+ IDLE accepted, awaiting DONE command.\r\n") {
        $0 == .continuation("IDLE accepted, awaiting DONE command.")
    },
    Fixture(name: "literal continuation", wire: "+ Ready for literal data\r\n") { $0 == .continuation("Ready for literal data") },
    Fixture(
        name: "gmail xoauth2 failure challenge",
        wire: "+ eyJzdGF0dXMiOiI0MDEiLCJzY2hlbWVzIjoiYmVhcmVyIiwic2NvcGUiOiJodHRwczovL21haWwuZ29vZ2xlLmNvbS8ifQ==\r\n"
    ) {
        if case .continuation(let text) = $0 { text.hasPrefix("eyJ") } else { false }
    }
]

// MARK: - Mailbox state and searches

let statusFixtures: [Fixture] = [
    untagged(
        "status all items", "* STATUS blurdybloop (MESSAGES 231 UIDNEXT 44292 UIDVALIDITY 1 UNSEEN 3 RECENT 0)\r\n",
        .status(mailbox: "blurdybloop", attributes: ["MESSAGES": 231, "UIDNEXT": 44292, "UIDVALIDITY": 1, "UNSEEN": 3, "RECENT": 0])),
    untagged(
        "status highestmodseq", "* STATUS INBOX (HIGHESTMODSEQ 7011231777)\r\n",
        .status(mailbox: "INBOX", attributes: ["HIGHESTMODSEQ": 7_011_231_777])),
    untagged(
        "status size deleted (rfc 9051)", "* STATUS Drafts (SIZE 12345 DELETED 2)\r\n",
        .status(mailbox: "Drafts", attributes: ["SIZE": 12345, "DELETED": 2])),
    untagged("status empty list", "* STATUS Foo ()\r\n", .status(mailbox: "Foo", attributes: [:])),
    // RFC 8474 (Cyrus, Fastmail, pymap): the mailbox's id, which survives a rename.
    untagged(
        "status mailboxid", "* STATUS INBOX.Work (MAILBOXID (F2212ea87-6097-4256-9d51-71338625) MESSAGES 2)\r\n",
        .status(mailbox: "INBOX.Work", attributes: ["MESSAGES": 2], mailboxId: "F2212ea87-6097-4256-9d51-71338625")),
    Fixture(name: "status literal mailbox", wire: "* STATUS {8}\r\nWork/Q&A (MESSAGES 1)\r\n") {
        if case .untagged(.status(let mailbox, let attributes, _)) = $0 { mailbox == "Work/Q&A" && attributes["MESSAGES"] == 1 } else { false }
    },
    untagged(
        "status gmail label", "* STATUS \"[Gmail]/All Mail\" (MESSAGES 10021 UIDNEXT 10022)\r\n",
        .status(mailbox: "[Gmail]/All Mail", attributes: ["MESSAGES": 10021, "UIDNEXT": 10022])),
    untagged("search one", "* SEARCH 2\r\n", .search(ids: [2], highestModSeq: nil)),
    untagged("search many", "* SEARCH 2 84 882 4294967295\r\n", .search(ids: [2, 84, 882, 4_294_967_295], highestModSeq: nil)),
    untagged("search trailing space (quirk)", "* SEARCH 5 6 \r\n", .search(ids: [5, 6], highestModSeq: nil)),
    untagged(
        "search modseq", "* SEARCH 2 5 6 7 11 12 18 19 20 23 (MODSEQ 917162500)\r\n",
        .search(ids: [2, 5, 6, 7, 11, 12, 18, 19, 20, 23], highestModSeq: 917_162_500)),
    untagged("exists zero", "* 0 EXISTS\r\n", .exists(0)),
    untagged("exists large", "* 4294967295 EXISTS\r\n", .exists(4_294_967_295)),
    untagged("recent zero", "* 0 RECENT\r\n", .recent(0)),
    untagged("expunge first", "* 1 EXPUNGE\r\n", .expunge(sequence: 1)),
    untagged("vanished", "* VANISHED 405,407,410,425\r\n", .vanished(earlier: false, uids: UIDSet([405...405, 407...407, 410...410, 425...425]))),
    untagged(
        "vanished earlier ranges", "* VANISHED (EARLIER) 41,43:116,118,120:211,214:540\r\n",
        .vanished(earlier: true, uids: UIDSet([41...41, 43...116, 118...118, 120...211, 214...540]))),
    untagged("enabled empty", "* ENABLED\r\n", .enabled([])),
    untagged("enabled utf8", "* ENABLED UTF8=ACCEPT\r\n", .enabled(["UTF8=ACCEPT"])),
    untagged("flags empty", "* FLAGS ()\r\n", .flags([])),
    untagged(
        "flags gmail", "* FLAGS (\\Answered \\Flagged \\Draft \\Deleted \\Seen $NotPhishing $Phishing)\r\n",
        .flags(["\\Answered", "\\Flagged", "\\Draft", "\\Deleted", "\\Seen", "$NotPhishing", "$Phishing"])),
    untagged(
        "capability imap4rev2", "* CAPABILITY IMAP4rev2 IMAP4rev1 STARTTLS AUTH=GSSAPI LOGINDISABLED\r\n",
        .capability(["IMAP4rev2", "IMAP4rev1", "STARTTLS", "AUTH=GSSAPI", "LOGINDISABLED"])),
    untagged(
        "capability gmail",
        "* CAPABILITY IMAP4rev1 UNSELECT IDLE NAMESPACE QUOTA ID XLIST CHILDREN X-GM-EXT-1 UIDPLUS COMPRESS=DEFLATE ENABLE MOVE CONDSTORE ESEARCH UTF8=ACCEPT LIST-EXTENDED LIST-STATUS LITERAL- SPECIAL-USE APPENDLIMIT=35651584\r\n",
        .capability([
            "IMAP4rev1", "UNSELECT", "IDLE", "NAMESPACE", "QUOTA", "ID", "XLIST", "CHILDREN", "X-GM-EXT-1", "UIDPLUS", "COMPRESS=DEFLATE",
            "ENABLE", "MOVE", "CONDSTORE", "ESEARCH", "UTF8=ACCEPT", "LIST-EXTENDED", "LIST-STATUS", "LITERAL-", "SPECIAL-USE",
            "APPENDLIMIT=35651584"
        ])),
    Fixture(name: "id gmail", wire: "* ID (\"name\" \"GImap\" \"vendor\" \"Google, Inc.\" \"support-url\" NIL)\r\n") {
        if case .untagged(.id(let fields)) = $0 { fields["name"] == "GImap" && fields["vendor"] == "Google, Inc." } else { false }
    },
    Fixture(name: "id dovecot", wire: "* ID (\"name\" \"Dovecot\")\r\n") {
        if case .untagged(.id(let fields)) = $0 { fields == ["name": "Dovecot"] } else { false }
    },
    Fixture(name: "esearch with its return data", wire: "* ESEARCH (TAG \"a1\") UID MIN 7 MAX 3800 COUNT 15\r\n") {
        $0 == .untagged(.extendedSearch(ExtendedSearchResult(tag: "a1", uid: true, min: 7, max: 3800, count: 15)))
    },
    Fixture(name: "quota kept as other", wire: "* QUOTA \"\" (STORAGE 10 512)\r\n") {
        if case .untagged(.other(let name, _)) = $0 { name == "QUOTA" } else { false }
    },
    Fixture(name: "quotaroot kept as other", wire: "* QUOTAROOT INBOX \"\"\r\n") {
        if case .untagged(.other(let name, _)) = $0 { name == "QUOTAROOT" } else { false }
    },
    Fixture(name: "metadata kept as other", wire: "* METADATA \"INBOX\" (/private/comment \"My own comment\")\r\n") {
        if case .untagged(.other(let name, _)) = $0 { name == "METADATA" } else { false }
    },
    Fixture(name: "namespace gmail", wire: "* NAMESPACE ((\"\" \"/\")) NIL NIL\r\n") {
        if case .untagged(.namespace(let namespaces)) = $0 { namespaces.personalName("Trash") == "Trash" } else { false }
    }
]

// MARK: - LIST (RFC 9051 section 7.3.1, RFC 6154, RFC 5258)

let listFixtures: [Fixture] = [
    Fixture(name: "list hasnochildren", wire: "* LIST (\\HasNoChildren) \"/\" \"Receipts\"\r\n") {
        listing($0).map { $0.name == "Receipts" && $0.role == .ordinary && $0.delimiter == "/" } ?? false
    },
    Fixture(name: "list dot delimiter (cyrus)", wire: "* LIST (\\HasChildren) \".\" INBOX.Archive\r\n") {
        listing($0).map { $0.name == "INBOX.Archive" && $0.delimiter == "." } ?? false
    },
    Fixture(name: "list noinferiors inbox", wire: "* LIST (\\Noinferiors) \"/\" INBOX\r\n") { listing($0)?.role == .inbox },
    Fixture(name: "list lowercase inbox", wire: "* LIST () \"/\" inbox\r\n") { listing($0)?.role == .inbox },
    Fixture(name: "list nonexistent", wire: "* LIST (\\NonExistent) \"/\" Gone\r\n") { listing($0)?.role == .container },
    // Issue 22: `\\Archive` is an ordinary folder (Cyrus, Fastmail), synced; only Gmail's `\\All` is not.
    Fixture(name: "list archive special use", wire: "* LIST (\\HasNoChildren \\Archive) \"/\" Archive\r\n") { listing($0)?.role == .archive },
    Fixture(name: "list all and archive", wire: "* LIST (\\All \\Archive) \"/\" \"All Mail\"\r\n") { listing($0)?.role == .all },
    Fixture(name: "list exchange sent items", wire: "* LIST (\\HasNoChildren \\Sent) \"/\" \"Sent Items\"\r\n") {
        listing($0).map { $0.role == .sent && $0.name == "Sent Items" } ?? false
    },
    Fixture(name: "list exchange deleted items", wire: "* LIST (\\HasNoChildren \\Trash) \"/\" \"Deleted Items\"\r\n") {
        listing($0)?.role == .trash
    },
    Fixture(name: "list yahoo bulk", wire: "* LIST (\\Junk \\HasNoChildren) \"/\" \"Bulk Mail\"\r\n") { listing($0)?.role == .junk },
    Fixture(name: "list escaped quote in name", wire: "* LIST () \"/\" \"Say \\\"hi\\\"\"\r\n") { listing($0)?.name == "Say \"hi\"" },
    Fixture(name: "list escaped backslash delimiter", wire: "* LIST () \"\\\\\" Public\\Folder\r\n") {
        listing($0).map { $0.delimiter == "\\" && $0.name == "Public\\Folder" } ?? false
    },
    Fixture(name: "list mod utf-7 cyrillic", wire: "* LIST () \"/\" \"&BB4EQgQ,BEAEMAQyBDsENQQ9BD0ESwQ1-\"\r\n") {
        listing($0)?.name == "Отправленные"
    },
    Fixture(name: "list utf8 accept name", wire: "* LIST () \"/\" \"Entwürfe\"\r\n") { listing($0)?.name == "Entwürfe" },
    Fixture(name: "list oldname extended data", wire: "* LIST () \"/\" \"NewName\" (\"OLDNAME\" (\"OldName\"))\r\n") {
        listing($0)?.name == "NewName"
    },
    Fixture(name: "list flagged upper-case attributes", wire: "* LIST (\\HASNOCHILDREN \\FLAGGED) \"/\" \"[Gmail]/Starred\"\r\n") {
        listing($0)?.role == .flagged
    },
    Fixture(name: "xlist gmail inbox", wire: "* XLIST (\\HasNoChildren \\Inbox) \"/\" \"Inbox\"\r\n") { listing($0)?.role == .inbox },
    Fixture(name: "list drafts nested", wire: "* LIST (\\HasNoChildren \\Drafts) \"/\" \"[Gmail]/Drafts\"\r\n") { listing($0)?.role == .drafts },
    Fixture(name: "lsub noselect", wire: "* LSUB (\\Noselect) \"/\" \"#news/comp\"\r\n") {
        if case .untagged(.lsub(let listing)) = $0 { listing.role == .container } else { false }
    }
]

// MARK: - FETCH data items

let fetchFixtures: [Fixture] = [
    Fixture(name: "fetch uid only", wire: "* 12 FETCH (UID 4827313)\r\n") { $0 == .untagged(.fetch(sequence: 12, attributes: [.uid(4_827_313)])) },
    Fixture(name: "fetch flags keywords", wire: "* 3 FETCH (FLAGS (\\Seen $Forwarded $MDNSent Junk NonJunk) UID 7)\r\n") {
        fetch($0)?.1.flags == ["\\Seen", "$Forwarded", "$MDNSent", "Junk", "NonJunk"]
    },
    Fixture(name: "fetch recent flag", wire: "* 3 FETCH (FLAGS (\\Recent))\r\n") { fetch($0)?.1.flags == ["\\Recent"] },
    Fixture(name: "fetch unsolicited flag change", wire: "* 14 FETCH (FLAGS (\\Seen \\Deleted))\r\n") {
        fetch($0).map { $0.0 == 14 && $0.1.uid == nil && $0.1.flags == ["\\Seen", "\\Deleted"] } ?? false
    },
    Fixture(name: "fetch flags modseq uid order", wire: "* 4 FETCH (MODSEQ (12121231000) UID 9 FLAGS (\\Flagged))\r\n") {
        fetch($0).map { $0.1.modSeq == 12_121_231_000 && $0.1.uid == 9 && $0.1.flags == ["\\Flagged"] } ?? false
    },
    Fixture(name: "fetch internaldate negative zone", wire: "* 1 FETCH (INTERNALDATE \"01-Jan-2026 00:00:00 -0500\")\r\n") {
        fetch($0)?.1.internalDate == Date(timeIntervalSince1970: 1_767_243_600)
    },
    Fixture(name: "fetch internaldate half-hour zone", wire: "* 1 FETCH (INTERNALDATE \"01-Jan-2026 05:30:00 +0530\")\r\n") {
        fetch($0)?.1.internalDate == Date(timeIntervalSince1970: 1_767_225_600)
    },
    Fixture(name: "fetch size zero", wire: "* 1 FETCH (RFC822.SIZE 0)\r\n") { fetch($0)?.1.size == 0 },
    Fixture(name: "fetch large size", wire: "* 1 FETCH (RFC822.SIZE 52428800 UID 1)\r\n") { fetch($0)?.1.size == 52_428_800 },
    Fixture(name: "fetch gmail labels empty", wire: "* 1 FETCH (X-GM-LABELS () UID 2)\r\n") { fetch($0)?.1.gmailLabels == [] },
    Fixture(name: "fetch gmail labels quoted system", wire: "* 1 FETCH (X-GM-LABELS (\"\\\\Important\" \"\\\\Starred\" Work) UID 2)\r\n") {
        fetch($0)?.1.gmailLabels == ["\\Important", "\\Starred", "Work"]
    },
    Fixture(name: "fetch gmail msgid thrid", wire: "* 9 FETCH (X-GM-MSGID 1278455344230334865 X-GM-THRID 1266894439832287888 UID 1)\r\n") {
        fetch($0).map { $0.1.gmailMessageID == 1_278_455_344_230_334_865 && $0.1.gmailThreadID == 1_266_894_439_832_287_888 } ?? false
    },
    Fixture(name: "fetch header literal crlf only", wire: "* 1 FETCH (UID 5 BODY[HEADER.FIELDS (REFERENCES IN-REPLY-TO)] {2}\r\n\r\n)\r\n") {
        fetch($0)?.1.headerFields == [13, 10]
    },
    Fixture(name: "fetch header fields lower-case quirk", wire: "* 1 FETCH (UID 5 BODY[header.fields (references)] {14}\r\nReferences: x\n)\r\n") {
        fetch($0)?.1.headerFields == Array("References: x\n".utf8)
    },
    Fixture(name: "fetch two sections", wire: "* 2 FETCH (BODY[1] {3}\r\nabc BODY[2] {2}\r\nde UID 8)\r\n") {
        fetch($0).map { $0.1.section("1") == Array("abc".utf8) && $0.1.section("2") == Array("de".utf8) && $0.1.uid == 8 } ?? false
    },
    Fixture(name: "fetch section text", wire: "* 2 FETCH (BODY[TEXT] \"Hello\")\r\n") { fetch($0)?.1.section("TEXT") == Array("Hello".utf8) },
    Fixture(name: "fetch nested section mime", wire: "* 2 FETCH (BODY[1.2.MIME] {0}\r\n)\r\n") { fetch($0)?.1.section("1.2.MIME") == [] },
    Fixture(name: "fetch partial origin large", wire: "* 2 FETCH (BODY[]<1048576> {4}\r\nwxyz)\r\n") {
        if case .untagged(.fetch(_, let attributes)) = $0 {
            attributes == [.bodySection(section: "", origin: 1_048_576, data: Array("wxyz".utf8))]
        } else {
            false
        }
    },
    Fixture(name: "fetch literal with crlf inside", wire: "* 2 FETCH (BODY[] {13}\r\nA\r\nB\r\n\r\nC\r\n\r\n UID 3)\r\n") {
        fetch($0).map { $0.1.section("") == Array("A\r\nB\r\n\r\nC\r\n\r\n".utf8) && $0.1.uid == 3 } ?? false
    },
    Fixture(name: "fetch literal containing paren and brace", wire: "* 2 FETCH (BODY[] {8}\r\n) {5}\r\n( UID 3)\r\n") {
        fetch($0).map { $0.1.section("") == Array(") {5}\r\n(".utf8) && $0.1.uid == 3 } ?? false
    },
    Fixture(
        name: "fetch 8-bit literal",
        wire: "* 2 FETCH (BODY[1] {6}\r\nGrüße UID 3)\r\n".replacingOccurrences(of: "{6}", with: "{\(Array("Grüße".utf8).count)}")
    ) {
        fetch($0)?.1.section("1") == Array("Grüße".utf8)
    },
    Fixture(name: "fetch literal minus", wire: "* 2 FETCH (BODY[] {3-}\r\nabc)\r\n") { fetch($0)?.1.section("") == Array("abc".utf8) },
    Fixture(name: "fetch rfc822.text", wire: "* 2 FETCH (RFC822.TEXT {2}\r\nhi)\r\n") { fetch($0)?.1.section("TEXT") == Array("hi".utf8) },
    Fixture(name: "fetch rfc822 whole", wire: "* 2 FETCH (RFC822 {2}\r\nhi)\r\n") { fetch($0)?.1.section("") == Array("hi".utf8) },
    Fixture(name: "fetch binary size skipped", wire: "* 2 FETCH (BINARY.SIZE[1] 2048 UID 4)\r\n") { fetch($0)?.1.uid == 4 },
    Fixture(name: "fetch emailid objectid skipped", wire: "* 2 FETCH (EMAILID (M6d99ac3275bb4e) THREADID (T64b478a75b7ea9) UID 4)\r\n") {
        fetch($0)?.1.uid == 4
    },
    Fixture(name: "fetch preview skipped", wire: "* 2 FETCH (PREVIEW \"Hello there, this is the first line\" UID 4)\r\n") { fetch($0)?.1.uid == 4 },
    Fixture(name: "fetch save date nil skipped", wire: "* 2 FETCH (SAVEDATE NIL UID 4)\r\n") { fetch($0)?.1.uid == 4 },
    Fixture(name: "fetch exchange spaces before paren", wire: "* 2 FETCH (UID 4 FLAGS (\\Seen) )\r\n") { fetch($0)?.1.flags == ["\\Seen"] },
    Fixture(name: "fetch sequence number large", wire: "* 99999 FETCH (UID 150000)\r\n") {
        fetch($0).map { $0.0 == 99999 && $0.1.uid == 150_000 } ?? false
    },
    Fixture(name: "fetch lowercase keywords", wire: "* 2 fetch (uid 4 flags (\\seen))\r\n") {
        fetch($0).map { $0.1.uid == 4 && $0.1.flags == ["\\seen"] } ?? false
    }
]

// MARK: - ENVELOPE (RFC 9051 section 7.5.2)

let envelopeFixtures: [Fixture] = [
    envelope(
        "envelope rfc example",
        "* 12 FETCH (ENVELOPE (\"Wed, 17 Jul 1996 02:23:25 -0700 (PDT)\" \"IMAP4rev2 WG mtg summary and minutes\" ((\"Terry Gray\" NIL \"gray\" \"cac.washington.edu\")) ((\"Terry Gray\" NIL \"gray\" \"cac.washington.edu\")) ((\"Terry Gray\" NIL \"gray\" \"cac.washington.edu\")) ((NIL NIL \"imap\" \"cac.washington.edu\")) ((NIL NIL \"minutes\" \"CNRI.Reston.VA.US\") (\"John Klensin\" NIL \"KLENSIN\" \"MIT.EDU\")) NIL NIL \"<B27397-0100000@cac.washington.edu>\"))\r\n"
    ) {
        $0.subject == "IMAP4rev2 WG mtg summary and minutes" && $0.from.first?.address == "gray@cac.washington.edu" && $0.cc.count == 2
            && $0.messageId == "<B27397-0100000@cac.washington.edu>"
    },
    envelope("envelope all nil", "* 1 FETCH (ENVELOPE (NIL NIL NIL NIL NIL NIL NIL NIL NIL NIL))\r\n") {
        $0.subject == nil && $0.from.isEmpty && $0.messageId == nil
    },
    envelope("envelope empty subject", "* 1 FETCH (ENVELOPE (NIL \"\" NIL NIL NIL NIL NIL NIL NIL NIL))\r\n") {
        $0.subject == "" || $0.subject == nil
    },
    envelope("envelope in-reply-to", "* 1 FETCH (ENVELOPE (NIL \"Re: x\" NIL NIL NIL NIL NIL NIL \"<parent@x>\" \"<child@x>\"))\r\n") {
        $0.inReplyTo == "<parent@x>" && $0.messageId == "<child@x>"
    },
    envelope(
        "envelope name with quotes",
        "* 1 FETCH (ENVELOPE (NIL NIL ((\"O'Brien, \\\"Pat\\\"\" NIL \"pat\" \"example.org\")) NIL NIL NIL NIL NIL NIL NIL))\r\n"
    ) {
        $0.from.first?.name == "O'Brien, \"Pat\"" && $0.from.first?.address == "pat@example.org"
    },
    envelope(
        "envelope encoded name",
        "* 1 FETCH (ENVELOPE (NIL \"=?ISO-8859-1?Q?Caf=E9?=\" ((\"=?UTF-8?B?SsO8cmdlbg==?=\" NIL \"j\" \"example.de\")) NIL NIL NIL NIL NIL NIL NIL))\r\n"
    ) {
        $0.subject == "Café" && $0.from.first?.name == "Jürgen"
    },
    envelope("envelope utf8 raw subject", "* 1 FETCH (ENVELOPE (NIL \"日本語の件名\" NIL NIL NIL NIL NIL NIL NIL NIL))\r\n") { $0.subject == "日本語の件名" },
    envelope(
        "envelope nil host (exchange)",
        "* 1 FETCH (ENVELOPE (NIL NIL ((\"Undisclosed\" NIL \"undisclosed-recipients\" NIL)) NIL NIL NIL NIL NIL NIL NIL))\r\n"
    ) {
        $0.from.count <= 1
    },
    envelope(
        "envelope route address ignored",
        "* 1 FETCH (ENVELOPE (NIL NIL ((NIL \"@relay.example\" \"user\" \"example.org\")) NIL NIL NIL NIL NIL NIL NIL))\r\n"
    ) {
        $0.from.first?.address == "user@example.org"
    },
    envelope(
        "envelope to many",
        "* 1 FETCH (ENVELOPE (NIL NIL NIL NIL NIL ((NIL NIL \"a\" \"x.org\") (NIL NIL \"b\" \"x.org\") (NIL NIL \"c\" \"x.org\")) NIL NIL NIL NIL))\r\n"
    ) {
        $0.to.map(\.address) == ["a@x.org", "b@x.org", "c@x.org"]
    },
    envelope("envelope bcc present", "* 1 FETCH (ENVELOPE (NIL NIL NIL NIL NIL NIL NIL ((NIL NIL \"hidden\" \"x.org\")) NIL NIL))\r\n") {
        $0.bcc.first?.address == "hidden@x.org"
    },
    envelope("envelope subject literal with crlf", "* 1 FETCH (ENVELOPE (NIL {6}\r\na\r\nb c NIL NIL NIL NIL NIL NIL NIL NIL))\r\n") {
        $0.subject != nil
    },
    envelope("envelope empty address list (quirk)", "* 1 FETCH (ENVELOPE (NIL \"s\" () NIL NIL NIL NIL NIL NIL NIL))\r\n") { $0.from.isEmpty },
    envelope("envelope date only", "* 1 FETCH (ENVELOPE (\"Mon, 7 Feb 1994 21:52:25 -0800\" NIL NIL NIL NIL NIL NIL NIL NIL NIL))\r\n") {
        $0.date == "Mon, 7 Feb 1994 21:52:25 -0800"
    }
]

// MARK: - BODYSTRUCTURE (RFC 9051 section 7.5.2) with IMAP section numbers

let structureFixtures: [Fixture] = [
    structure("bs text plain rfc example", "* 1 FETCH (BODYSTRUCTURE (\"TEXT\" \"PLAIN\" (\"CHARSET\" \"US-ASCII\") NIL NIL \"7BIT\" 3028 92))\r\n") {
        $0.contentType == "text/plain" && $0.parameters["charset"] == "US-ASCII" && $0.sizeBytes == 3028 && $0.partId == "1"
    },
    structure(
        "bs text html qp",
        "* 1 FETCH (BODYSTRUCTURE (\"text\" \"html\" (\"charset\" \"utf-8\") NIL NIL \"quoted-printable\" 1204 20 NIL NIL NIL NIL))\r\n"
    ) {
        $0.contentType == "text/html" && $0.transferEncoding == "quoted-printable"
    },
    structure(
        "bs image with id",
        "* 1 FETCH (BODYSTRUCTURE ((\"text\" \"html\" NIL NIL NIL \"7bit\" 10 1)(\"image\" \"png\" (\"name\" \"logo.png\") \"<logo@x>\" NIL \"base64\" 4000) \"related\" (\"boundary\" \"r\")))\r\n"
    ) {
        $0.contentType == "multipart/related" && $0.children[1].contentId == "logo@x" && $0.children[1].partId == "2"
    },
    structure(
        "bs mixed three parts",
        "* 1 FETCH (BODYSTRUCTURE ((\"text\" \"plain\" (\"charset\" \"utf-8\") NIL NIL \"7bit\" 10 1)(\"application\" \"pdf\" (\"name\" \"a.pdf\") NIL NIL \"base64\" 100 NIL (\"attachment\" (\"filename\" \"a.pdf\")) NIL)(\"application\" \"zip\" NIL NIL NIL \"base64\" 200 NIL (\"attachment\" (\"filename\" \"b.zip\")) NIL) \"mixed\"))\r\n"
    ) {
        $0.children.map(\.partId) == ["1", "2", "3"] && $0.children[2].disposition == "attachment"
            && $0.children[2].dispositionParameters["filename"] == "b.zip"
    },
    structure(
        "bs alternative inside mixed",
        "* 1 FETCH (BODYSTRUCTURE (((\"text\" \"plain\" NIL NIL NIL \"7bit\" 1 1)(\"text\" \"html\" NIL NIL NIL \"7bit\" 1 1) \"alternative\")(\"image\" \"jpeg\" NIL NIL NIL \"base64\" 9) \"mixed\"))\r\n"
    ) {
        $0.children[0].children.map(\.partId) == ["1.1", "1.2"] && $0.children[1].partId == "2"
    },
    structure(
        "bs multipart with extension data",
        "* 1 FETCH (BODYSTRUCTURE ((\"text\" \"plain\" NIL NIL NIL \"7bit\" 1 1 NIL NIL NIL NIL) \"mixed\" (\"boundary\" \"b\") NIL NIL NIL))\r\n"
    ) {
        $0.parameters["boundary"] == "b"
    },
    structure(
        "bs multipart disposition and language",
        "* 1 FETCH (BODYSTRUCTURE ((\"text\" \"plain\" NIL NIL NIL \"7bit\" 1 1) \"mixed\" (\"boundary\" \"b\") (\"inline\" NIL) (\"en\" \"de\") \"http://x/loc\"))\r\n"
    ) {
        $0.contentType == "multipart/mixed"
    },
    structure(
        "bs message rfc822 envelope body lines",
        "* 1 FETCH (BODYSTRUCTURE ((\"text\" \"plain\" NIL NIL NIL \"7bit\" 5 1)(\"message\" \"rfc822\" NIL NIL NIL \"7bit\" 300 (NIL \"Fwd\" NIL NIL NIL NIL NIL NIL NIL NIL) ((\"text\" \"plain\" NIL NIL NIL \"7bit\" 10 1)(\"text\" \"html\" NIL NIL NIL \"7bit\" 20 1) \"alternative\") 12) \"mixed\"))\r\n"
    ) {
        $0.children[1].contentType == "message/rfc822"
    },
    structure(
        "bs text with md5", "* 1 FETCH (BODYSTRUCTURE (\"text\" \"plain\" NIL NIL NIL \"7bit\" 1 1 \"Q2hlY2sgSW50ZWdyaXR5IQ==\" NIL NIL NIL))\r\n"
    ) { $0.contentType == "text/plain" },
    structure(
        "bs disposition nil params",
        "* 1 FETCH (BODYSTRUCTURE (\"application\" \"octet-stream\" NIL NIL NIL \"base64\" 100 NIL (\"attachment\" NIL) NIL NIL))\r\n"
    ) {
        $0.disposition == "attachment"
    },
    structure(
        "bs rfc2231 continuation params",
        "* 1 FETCH (BODYSTRUCTURE (\"application\" \"pdf\" (\"name*0\" \"very long \" \"name*1\" \"file.pdf\") NIL NIL \"base64\" 10))\r\n"
    ) {
        $0.contentType == "application/pdf"
    },
    structure("bs description", "* 1 FETCH (BODYSTRUCTURE (\"image\" \"gif\" NIL NIL \"A picture\" \"base64\" 10))\r\n") {
        $0.contentDescription == "A picture"
    },
    structure(
        "bs lowercase encoding and type", "* 1 FETCH (BODYSTRUCTURE (\"TEXT\" \"CALENDAR\" (\"METHOD\" \"REQUEST\") NIL NIL \"8BIT\" 900 30))\r\n"
    ) {
        $0.contentType == "text/calendar" && $0.transferEncoding == "8bit" && $0.parameters["method"] == "REQUEST"
    },
    structure("bs exchange nil encoding quirk", "* 1 FETCH (BODYSTRUCTURE (\"text\" \"plain\" NIL NIL NIL NIL 5 1))\r\n") {
        $0.contentType == "text/plain"
    },
    structure(
        "bs signed",
        "* 1 FETCH (BODYSTRUCTURE ((\"text\" \"plain\" NIL NIL NIL \"7bit\" 1 1)(\"application\" \"pgp-signature\" (\"name\" \"signature.asc\") NIL NIL \"7bit\" 833) \"signed\" (\"micalg\" \"pgp-sha256\" \"protocol\" \"application/pgp-signature\" \"boundary\" \"s\")))\r\n"
    ) {
        $0.contentType == "multipart/signed" && $0.children[1].contentType == "application/pgp-signature"
    },
    structure(
        "bs tnef attachment",
        "* 1 FETCH (BODYSTRUCTURE ((\"text\" \"plain\" NIL NIL NIL \"7bit\" 1 1)(\"application\" \"ms-tnef\" (\"name\" \"winmail.dat\") NIL NIL \"base64\" 5000 NIL (\"attachment\" (\"filename\" \"winmail.dat\")) NIL) \"mixed\"))\r\n"
    ) {
        $0.children[1].contentType == "application/ms-tnef"
    },
    structure(
        "bs deep nesting numbering",
        "* 1 FETCH (BODYSTRUCTURE ((((\"text\" \"plain\" NIL NIL NIL \"7bit\" 1 1) \"alternative\") \"related\") (\"text\" \"plain\" NIL NIL NIL \"7bit\" 1 1) \"mixed\"))\r\n"
    ) {
        $0.children[0].children[0].children[0].partId == "1.1.1" && $0.children[1].partId == "2"
    },
    structure("bs yahoo empty string params", "* 1 FETCH (BODYSTRUCTURE (\"text\" \"plain\" (\"charset\" \"\") NIL NIL \"7bit\" 1 1))\r\n") {
        $0.contentType == "text/plain"
    },
    structure("bs size with exchange huge number", "* 1 FETCH (BODYSTRUCTURE (\"video\" \"mp4\" NIL NIL NIL \"base64\" 2147483648))\r\n") {
        $0.contentType == "video/mp4"
    },
    structure(
        "bs single part literal boundary quirk",
        "* 1 FETCH (BODYSTRUCTURE ((\"text\" \"plain\" NIL NIL NIL \"7bit\" 1 1) \"mixed\" (\"boundary\" {3}\r\n=_x)))\r\n"
    ) {
        $0.parameters["boundary"] == "=_x"
    }
]
