import Foundation
import Testing

@testable import IMAP
@testable import MIME

/// Fixtures: server bytes → expected response. Each is also fed to the framer split at every byte
/// boundary, which must give the same result.
struct Fixture: Sendable, CustomTestStringConvertible {
    var name: String
    var wire: String
    var check: @Sendable (IMAPResponse) -> Bool

    var testDescription: String { name }
}

func frameAll(_ wire: [UInt8], chunk: Int? = nil, splitAt: Int? = nil) throws -> [[UInt8]] {
    var framer = ResponseFramer()
    var frames: [[UInt8]] = []
    if let splitAt {
        framer.append(wire[..<splitAt])
        while let frame = try framer.next() { frames.append(frame) }
        framer.append(wire[splitAt...])
    } else {
        framer.append(wire)
    }
    while let frame = try framer.next() { frames.append(frame) }
    return frames
}

let fixtures: [Fixture] = [
    Fixture(name: "greeting", wire: "* OK [CAPABILITY IMAP4rev1 SASL-IR LITERAL+ ID ENABLE IDLE AUTH=PLAIN] Dovecot ready.\r\n") {
        guard case .untagged(.state(let state)) = $0, state.status == .ok, case .capability(let caps)? = state.code else { return false }
        return caps.contains("IDLE") && caps.contains("AUTH=PLAIN") && state.text == "Dovecot ready."
    },
    Fixture(name: "tagged ok", wire: "a1 OK Logged in\r\n") { $0 == .tagged(tag: "a1", state: ResponseState(status: .ok, text: "Logged in")) },
    Fixture(name: "tagged no with code", wire: "a2 NO [TRYCREATE] Mailbox doesn't exist: Foo\r\n") {
        $0 == .tagged(tag: "a2", state: ResponseState(status: .no, code: .tryCreate, text: "Mailbox doesn't exist: Foo"))
    },
    Fixture(name: "tagged bad", wire: "a3 BAD Error in IMAP command: Unknown command\r\n") {
        if case .tagged("a3", let state) = $0 { return state.status == .bad } else { return false }
    },
    Fixture(name: "lowercase status", wire: "a4 ok done\r\n") {
        if case .tagged("a4", let state) = $0 { return state.status == .ok && state.text == "done" } else { return false }
    },
    Fixture(name: "status without text (quirk)", wire: "a5 OK\r\n") {
        if case .tagged("a5", let state) = $0 { return state.status == .ok && state.text.isEmpty } else { return false }
    },
    Fixture(name: "alert", wire: "* OK [ALERT] System shutdown in 10 minutes\r\n") {
        if case .untagged(.state(let state)) = $0 { return state.code == .alert } else { return false }
    },
    Fixture(name: "bye", wire: "* BYE Server shutting down\r\n") {
        if case .untagged(.state(let state)) = $0 { return state.status == .bye } else { return false }
    },
    Fixture(name: "preauth", wire: "* PREAUTH IMAP4rev1 server logged in as Smith\r\n") {
        if case .untagged(.state(let state)) = $0 { return state.status == .preauth } else { return false }
    },
    Fixture(name: "continuation", wire: "+ idling\r\n") { $0 == .continuation("idling") },
    Fixture(name: "empty continuation", wire: "+\r\n") { $0 == .continuation("") },
    Fixture(name: "continuation base64", wire: "+ eyJzdGF0dXMiOiI0MDAifQ==\r\n") { $0 == .continuation("eyJzdGF0dXMiOiI0MDAifQ==") },
    Fixture(name: "capability", wire: "* CAPABILITY IMAP4rev1 UIDPLUS MOVE CONDSTORE QRESYNC SPECIAL-USE X-GM-EXT-1\r\n") {
        $0 == .untagged(.capability(["IMAP4rev1", "UIDPLUS", "MOVE", "CONDSTORE", "QRESYNC", "SPECIAL-USE", "X-GM-EXT-1"]))
    },
    Fixture(name: "enabled", wire: "* ENABLED CONDSTORE QRESYNC\r\n") { $0 == .untagged(.enabled(["CONDSTORE", "QRESYNC"])) },
    Fixture(name: "exists", wire: "* 172 EXISTS\r\n") { $0 == .untagged(.exists(172)) },
    Fixture(name: "recent", wire: "* 1 RECENT\r\n") { $0 == .untagged(.recent(1)) },
    Fixture(name: "expunge", wire: "* 44 EXPUNGE\r\n") { $0 == .untagged(.expunge(sequence: 44)) },
    Fixture(name: "flags", wire: "* FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft $Forwarded)\r\n") {
        $0 == .untagged(.flags(["\\Answered", "\\Flagged", "\\Deleted", "\\Seen", "\\Draft", "$Forwarded"]))
    },
    Fixture(name: "permanentflags", wire: "* OK [PERMANENTFLAGS (\\Deleted \\Seen \\*)] Limited\r\n") {
        if case .untagged(.state(let state)) = $0 { return state.code == .permanentFlags(["\\Deleted", "\\Seen", "\\*"]) } else { return false }
    },
    Fixture(name: "uidvalidity", wire: "* OK [UIDVALIDITY 3857529045] UIDs valid\r\n") {
        if case .untagged(.state(let state)) = $0 { return state.code == .uidValidity(3_857_529_045) } else { return false }
    },
    Fixture(name: "uidnext", wire: "* OK [UIDNEXT 4392] Predicted next UID\r\n") {
        if case .untagged(.state(let state)) = $0 { return state.code == .uidNext(4392) } else { return false }
    },
    Fixture(name: "highestmodseq", wire: "* OK [HIGHESTMODSEQ 715194045007] Highest\r\n") {
        if case .untagged(.state(let state)) = $0 { return state.code == .highestModSeq(715_194_045_007) } else { return false }
    },
    Fixture(name: "nomodseq", wire: "* OK [NOMODSEQ] Sorry, this mailbox format doesn't support modsequences\r\n") {
        if case .untagged(.state(let state)) = $0 { return state.code == .noModSeq } else { return false }
    },
    Fixture(name: "read-write select", wire: "a6 OK [READ-WRITE] Select completed (0.001 + 0.000 secs).\r\n") {
        if case .tagged(_, let state) = $0 { return state.code == .readWrite } else { return false }
    },
    Fixture(name: "appenduid", wire: "a7 OK [APPENDUID 38505 3955] APPEND completed\r\n") {
        if case .tagged(_, let state) = $0 { return state.code == .appendUID(uidValidity: 38505, uids: UIDSet(uids: [3955])) } else { return false }
    },
    Fixture(name: "copyuid", wire: "a8 OK [COPYUID 38505 304,319:320 3956:3958] Done\r\n") {
        if case .tagged(_, let state) = $0 {
            return state.code == .copyUID(uidValidity: 38505, source: UIDSet([304...304, 319...320]), destination: UIDSet([3956...3958]))
        } else {
            return false
        }
    },
    Fixture(name: "unknown code", wire: "a9 NO [OVERQUOTA] Quota exceeded\r\n") {
        if case .tagged(_, let state) = $0 { return state.code == .other(name: "OVERQUOTA", text: nil) } else { return false }
    },
    Fixture(name: "gmail list all mail", wire: "* LIST (\\All \\HasNoChildren) \"/\" \"[Gmail]/All Mail\"\r\n") {
        guard case .untagged(.list(let listing)) = $0 else { return false }
        return listing.name == "[Gmail]/All Mail" && listing.role == .all && listing.delimiter == "/"
    },
    Fixture(name: "gmail list important", wire: "* LIST (\\HasNoChildren \\Important) \"/\" \"[Gmail]/Important\"\r\n") {
        if case .untagged(.list(let listing)) = $0 { return listing.role == .important } else { return false }
    },
    Fixture(name: "gmail container", wire: "* LIST (\\HasChildren \\Noselect) \"/\" \"[Gmail]\"\r\n") {
        if case .untagged(.list(let listing)) = $0 { return listing.role == .container } else { return false }
    },
    Fixture(name: "list inbox atom", wire: "* LIST (\\HasNoChildren) \"/\" INBOX\r\n") {
        if case .untagged(.list(let listing)) = $0 { return listing.role == .inbox && listing.name == "INBOX" } else { return false }
    },
    Fixture(name: "list junk", wire: "* LIST (\\HasNoChildren \\Junk) \"/\" \"[Gmail]/Spam\"\r\n") {
        if case .untagged(.list(let listing)) = $0 { return listing.role == .junk } else { return false }
    },
    Fixture(name: "list starred", wire: "* LIST (\\Flagged \\HasNoChildren) \"/\" \"[Gmail]/Starred\"\r\n") {
        if case .untagged(.list(let listing)) = $0 { return listing.role == .flagged } else { return false }
    },
    Fixture(name: "list sent drafts trash", wire: "* LIST (\\Sent) \".\" Sent\r\n") {
        if case .untagged(.list(let listing)) = $0 { return listing.role == .sent && listing.delimiter == "." } else { return false }
    },
    Fixture(name: "list nil delimiter", wire: "* LIST (\\Noselect) NIL \"\"\r\n") {
        if case .untagged(.list(let listing)) = $0 { return listing.delimiter == nil && listing.name.isEmpty } else { return false }
    },
    Fixture(name: "list modified utf-7", wire: "* LIST () \"/\" \"Entw&APw-rfe\"\r\n") {
        if case .untagged(.list(let listing)) = $0 { return listing.name == "Entwürfe" && listing.rawName == "Entw&APw-rfe" } else { return false }
    },
    Fixture(name: "list japanese", wire: "* LIST () \"/\" \"&ZeVnLIqe-\"\r\n") {
        if case .untagged(.list(let listing)) = $0 { return listing.name == "日本語" } else { return false }
    },
    Fixture(name: "list literal name", wire: "* LIST () \"/\" {8}\r\nWork/Q&A\r\n") {
        if case .untagged(.list(let listing)) = $0 { return listing.rawName == "Work/Q&A" } else { return false }
    },
    Fixture(name: "list extended childinfo", wire: "* LIST (\\HasChildren) \"/\" \"Foo\" (\"CHILDINFO\" (\"SUBSCRIBED\"))\r\n") {
        if case .untagged(.list(let listing)) = $0 { return listing.name == "Foo" } else { return false }
    },
    Fixture(name: "namespace dovecot", wire: "* NAMESPACE ((\"\" \"/\")) NIL NIL\r\n") {
        guard case .untagged(.namespace(let namespaces)) = $0 else { return false }
        return namespaces.personal == [.init(prefix: "", delimiter: "/")] && namespaces.otherUsers.isEmpty
            && namespaces.personalName("Trash") == "Trash"
    },
    Fixture(name: "namespace cyrus", wire: "* NAMESPACE ((\"INBOX.\" \".\")) ((\"user.\" \".\")) ((\"\" \".\"))\r\n") {
        guard case .untagged(.namespace(let namespaces)) = $0 else { return false }
        return namespaces.personalName("Trash") == "INBOX.Trash" && namespaces.otherUsers.first?.prefix == "user."
            && namespaces.shared.first?.delimiter == "."
    },
    Fixture(
        name: "namespace with extension and nil delimiter",
        wire: "* NAMESPACE ((\"\" NIL \"X-PARAM\" (\"FLAG1\" \"FLAG2\"))) NIL ((\"Public Folders/\" \"/\"))\r\n"
    ) {
        guard case .untagged(.namespace(let namespaces)) = $0 else { return false }
        return namespaces.personal == [.init(prefix: "", delimiter: nil)] && namespaces.shared.first?.prefix == "Public Folders/"
    },
    Fixture(name: "namespace modified utf-7 prefix", wire: "* NAMESPACE ((\"Entw&APw-rfe/\" \"/\")) NIL NIL\r\n") {
        guard case .untagged(.namespace(let namespaces)) = $0 else { return false }
        return namespaces.personal.first?.prefix == "Entwürfe/"
    },
    Fixture(name: "lsub", wire: "* LSUB () \".\" #news.comp.mail.misc\r\n") {
        if case .untagged(.lsub(let listing)) = $0 { return listing.name == "#news.comp.mail.misc" } else { return false }
    },
    Fixture(name: "status", wire: "* STATUS INBOX (MESSAGES 231 UIDNEXT 44292 UIDVALIDITY 1 UNSEEN 3 HIGHESTMODSEQ 12)\r\n") {
        $0
            == .untagged(
                .status(mailbox: "INBOX", attributes: ["MESSAGES": 231, "UIDNEXT": 44292, "UIDVALIDITY": 1, "UNSEEN": 3, "HIGHESTMODSEQ": 12]))
    },
    Fixture(name: "status quoted mailbox", wire: "* STATUS \"[Gmail]/Sent Mail\" (MESSAGES 5)\r\n") {
        $0 == .untagged(.status(mailbox: "[Gmail]/Sent Mail", attributes: ["MESSAGES": 5]))
    },
    Fixture(name: "search", wire: "* SEARCH 2 84 882\r\n") { $0 == .untagged(.search(ids: [2, 84, 882], highestModSeq: nil)) },
    Fixture(name: "search empty", wire: "* SEARCH\r\n") { $0 == .untagged(.search(ids: [], highestModSeq: nil)) },
    Fixture(name: "search modseq", wire: "* SEARCH 2 5 6 7 11 12 18 19 20 23 (MODSEQ 917162500)\r\n") {
        $0 == .untagged(.search(ids: [2, 5, 6, 7, 11, 12, 18, 19, 20, 23], highestModSeq: 917_162_500))
    },
    Fixture(name: "vanished earlier", wire: "* VANISHED (EARLIER) 41,43:116,118,120:211\r\n") {
        if case .untagged(.vanished(true, let uids)) = $0 { return uids.contains(50) && !uids.contains(42) } else { return false }
    },
    Fixture(name: "id", wire: "* ID (\"name\" \"Dovecot\" \"version\" NIL)\r\n") {
        $0 == .untagged(.id(["name": "Dovecot"]))
    },
    Fixture(name: "id nil", wire: "* ID NIL\r\n") { $0 == .untagged(.id([:])) },
    Fixture(name: "fetch flags uid", wire: "* 12 FETCH (FLAGS (\\Seen \\Flagged) UID 4827313)\r\n") {
        $0 == .untagged(.fetch(sequence: 12, attributes: [.flags(["\\Seen", "\\Flagged"]), .uid(4_827_313)]))
    },
    Fixture(name: "fetch empty flags", wire: "* 1 FETCH (UID 7 FLAGS ())\r\n") {
        $0 == .untagged(.fetch(sequence: 1, attributes: [.uid(7), .flags([])]))
    },
    Fixture(name: "fetch modseq", wire: "* 4 FETCH (UID 8 MODSEQ (12121231000) FLAGS (\\Deleted))\r\n") {
        $0 == .untagged(.fetch(sequence: 4, attributes: [.uid(8), .modSeq(12_121_231_000), .flags(["\\Deleted"])]))
    },
    Fixture(name: "fetch size internaldate", wire: "* 2 FETCH (RFC822.SIZE 44827 INTERNALDATE \"17-Jul-1996 02:44:25 -0700\")\r\n") {
        $0 == .untagged(.fetch(sequence: 2, attributes: [.rfc822Size(44827), .internalDate(Date(timeIntervalSince1970: 837_596_665))]))
    },
    Fixture(name: "fetch internaldate space day", wire: "* 3 FETCH (INTERNALDATE \" 5-Jan-2026 10:00:00 +0000\")\r\n") {
        $0 == .untagged(.fetch(sequence: 3, attributes: [.internalDate(Date(timeIntervalSince1970: 1_767_607_200))]))
    },
    Fixture(
        name: "fetch gmail ext",
        wire:
            "* 1 FETCH (X-GM-THRID 1278455344230334865 X-GM-MSGID 1278455344230334865 X-GM-LABELS (\\Inbox \\Sent Important \"Muy Importante\") UID 4)\r\n"
    ) {
        guard case .untagged(.fetch(_, let attributes)) = $0 else { return false }
        return attributes.contains(.gmailThreadID(1_278_455_344_230_334_865))
            && attributes.contains(.gmailLabels(["\\Inbox", "\\Sent", "Important", "Muy Importante"]))
    },
    Fixture(
        name: "fetch body section literal", wire: "* 5 FETCH (UID 10 BODY[HEADER.FIELDS (REFERENCES)] {27}\r\nReferences: <a@x> <b@y>\r\n\r\n)\r\n"
    ) {
        $0
            == .untagged(
                .fetch(
                    sequence: 5,
                    attributes: [
                        .uid(10),
                        .bodySection(
                            section: "HEADER.FIELDS (REFERENCES)", origin: nil,
                            data: Array("References: <a@x> <b@y>\r\n\r\n".utf8))
                    ]))
    },
    Fixture(name: "fetch body section partial", wire: "* 6 FETCH (BODY[1]<0> {5}\r\nhello UID 3)\r\n") {
        $0 == .untagged(.fetch(sequence: 6, attributes: [.bodySection(section: "1", origin: 0, data: Array("hello".utf8)), .uid(3)]))
    },
    Fixture(name: "fetch body section nil", wire: "* 6 FETCH (BODY[2] NIL)\r\n") {
        $0 == .untagged(.fetch(sequence: 6, attributes: [.bodySection(section: "2", origin: nil, data: nil)]))
    },
    Fixture(name: "fetch body section quoted", wire: "* 6 FETCH (BODY[1.MIME] \"Content-Type: text/plain\")\r\n") {
        $0 == .untagged(.fetch(sequence: 6, attributes: [.bodySection(section: "1.MIME", origin: nil, data: Array("Content-Type: text/plain".utf8))]))
    },
    Fixture(name: "fetch rfc822.header", wire: "* 7 FETCH (RFC822.HEADER {12}\r\nSubject: x\r\n)\r\n") {
        $0 == .untagged(.fetch(sequence: 7, attributes: [.bodySection(section: "HEADER", origin: nil, data: Array("Subject: x\r\n".utf8))]))
    },
    Fixture(name: "fetch binary literal", wire: "* 8 FETCH (BINARY[2] ~{3}\r\n\u{0}\u{1}\u{2})\r\n") {
        $0 == .untagged(.fetch(sequence: 8, attributes: [.bodySection(section: "2", origin: nil, data: [0, 1, 2])]))
    },
    Fixture(name: "fetch literal plus", wire: "* 9 FETCH (BODY[] {4+}\r\nabcd)\r\n") {
        $0 == .untagged(.fetch(sequence: 9, attributes: [.bodySection(section: "", origin: nil, data: Array("abcd".utf8))]))
    },
    Fixture(name: "fetch unknown attribute skipped", wire: "* 1 FETCH (X-UNKNOWN (a (b c) \"d\") UID 5)\r\n") {
        $0 == .untagged(.fetch(sequence: 1, attributes: [.other(name: "X-UNKNOWN"), .uid(5)]))
    },
    Fixture(
        name: "envelope",
        wire:
            "* 12 FETCH (ENVELOPE (\"Wed, 17 Jul 1996 02:23:25 -0700 (PDT)\" \"IMAP4rev1 WG mtg summary and minutes\" ((\"Terry Gray\" NIL \"gray\" \"cac.washington.edu\")) ((\"Terry Gray\" NIL \"gray\" \"cac.washington.edu\")) ((\"Terry Gray\" NIL \"gray\" \"cac.washington.edu\")) ((NIL NIL \"imap\" \"cac.washington.edu\")) ((NIL NIL \"minutes\" \"CNRI.Reston.VA.US\")(\"John Klensin\" NIL \"KLENSIN\" \"MIT.EDU\")) NIL NIL \"<B27397-0100000@cac.washington.edu>\"))\r\n"
    ) {
        guard case .untagged(.fetch(12, let attributes)) = $0, case .envelope(let envelope)? = attributes.first else { return false }
        return envelope.subject == "IMAP4rev1 WG mtg summary and minutes"
            && envelope.from == [IMAPAddress(name: "Terry Gray", address: "gray@cac.washington.edu")]
            && envelope.cc.count == 2 && envelope.messageId == "<B27397-0100000@cac.washington.edu>" && envelope.bcc.isEmpty
    },
    Fixture(
        name: "envelope encoded words and group",
        wire:
            "* 1 FETCH (ENVELOPE (NIL \"=?utf-8?Q?caf=C3=A9?=\" ((\"=?utf-8?B?w4lsb2RpZQ==?=\" NIL \"e\" \"x.fr\")) NIL NIL ((NIL NIL \"team\" NIL)(NIL NIL \"a\" \"x.org\")(NIL NIL NIL NIL)) NIL NIL NIL NIL))\r\n"
    ) {
        guard case .untagged(.fetch(1, let attributes)) = $0, case .envelope(let envelope)? = attributes.first else { return false }
        return envelope.subject == "café" && envelope.from.first?.name == "Élodie" && envelope.to == [IMAPAddress(address: "a@x.org")]
            && envelope.date == nil
    },
    Fixture(name: "envelope literal subject", wire: "* 2 FETCH (ENVELOPE (\"d\" {5}\r\nhello NIL NIL NIL NIL NIL NIL NIL NIL))\r\n") {
        guard case .untagged(.fetch(2, let attributes)) = $0, case .envelope(let envelope)? = attributes.first else { return false }
        return envelope.subject == "hello"
    },
    Fixture(
        name: "bodystructure text", wire: "* 1 FETCH (BODYSTRUCTURE (\"TEXT\" \"PLAIN\" (\"CHARSET\" \"US-ASCII\") NIL NIL \"7BIT\" 3028 92))\r\n"
    ) {
        guard case .untagged(.fetch(1, let attributes)) = $0, case .bodyStructure(let part)? = attributes.first else { return false }
        return part.partId == "1" && part.contentType == "text/plain" && part.charset == "US-ASCII" && part.sizeBytes == 3028
    },
    Fixture(
        name: "bodystructure alternative with extensions",
        wire:
            "* 2 FETCH (UID 9 BODYSTRUCTURE ((\"text\" \"plain\" (\"charset\" \"utf-8\") NIL NIL \"quoted-printable\" 400 10 NIL NIL NIL NIL)(\"text\" \"html\" (\"charset\" \"utf-8\") NIL NIL \"base64\" 1200 16 NIL NIL NIL NIL) \"alternative\" (\"boundary\" \"b1\") NIL NIL NIL))\r\n"
    ) {
        guard case .untagged(.fetch(2, let attributes)) = $0, case .bodyStructure(let part)? = attributes.last else { return false }
        let plan = BodyPlanner.plan(part)
        return part.contentType == "multipart/alternative" && part.parameters["boundary"] == "b1" && plan.plainPartIds == ["1"]
            && plan.htmlPartIds == ["2"]
    },
    Fixture(
        name: "bodystructure mixed attachment rfc2231",
        wire:
            "* 3 FETCH (BODYSTRUCTURE ((\"text\" \"plain\" (\"charset\" \"utf-8\") NIL NIL \"7bit\" 10 1 NIL NIL NIL NIL)(\"application\" \"pdf\" (\"name\" \"report.pdf\") NIL NIL \"base64\" 10962 NIL (\"attachment\" (\"filename*0*\" \"UTF-8''%C3%9Cber\" \"filename*1\" \"sicht.pdf\")) NIL NIL) \"mixed\" (\"boundary\" \"x\") NIL NIL NIL))\r\n"
    ) {
        guard case .untagged(.fetch(3, let attributes)) = $0, case .bodyStructure(let part)? = attributes.first else { return false }
        let plan = BodyPlanner.plan(part)
        return plan.attachments.first?.filename == "Übersicht.pdf" && plan.attachments.first?.partId == "2"
            && plan.attachments.first?.sizeBytes == 8010
    },
    Fixture(
        name: "bodystructure related inline cid",
        wire:
            "* 4 FETCH (BODYSTRUCTURE ((\"text\" \"html\" (\"charset\" \"utf-8\") NIL NIL \"7bit\" 50 2 NIL NIL NIL NIL)(\"image\" \"png\" (\"name\" \"logo.png\") \"<logo@x>\" NIL \"base64\" 800 NIL (\"inline\" (\"filename\" \"logo.png\")) NIL NIL) \"related\" (\"boundary\" \"r\") NIL NIL NIL))\r\n"
    ) {
        guard case .untagged(.fetch(4, let attributes)) = $0, case .bodyStructure(let part)? = attributes.first else { return false }
        let plan = BodyPlanner.plan(part)
        return plan.attachments.first?.contentId == "logo@x" && plan.attachments.first?.isInline == true && plan.htmlPartIds == ["1"]
    },
    Fixture(
        name: "bodystructure message rfc822",
        wire:
            "* 5 FETCH (BODYSTRUCTURE ((\"text\" \"plain\" NIL NIL NIL \"7bit\" 5 1)(\"message\" \"rfc822\" NIL NIL NIL \"7bit\" 300 (NIL \"Inner\" NIL NIL NIL NIL NIL NIL NIL NIL) ((\"text\" \"plain\" NIL NIL NIL \"7bit\" 10 1)(\"text\" \"html\" NIL NIL NIL \"7bit\" 20 1) \"alternative\") 12) \"mixed\"))\r\n"
    ) {
        guard case .untagged(.fetch(5, let attributes)) = $0, case .bodyStructure(let part)? = attributes.first else { return false }
        let message = part.children[1]
        let plan = BodyPlanner.plan(part)
        return message.contentType == "message/rfc822" && message.children.first?.children.map(\.partId) == ["2.1", "2.2"]
            && plan.attachments.first?.filename == "Inner.eml" && plan.plainPartIds == ["1"]
    },
    Fixture(
        name: "bodystructure nested numbering",
        wire:
            "* 6 FETCH (BODYSTRUCTURE (((\"text\" \"plain\" NIL NIL NIL \"7bit\" 5 1)(\"text\" \"html\" NIL NIL NIL \"7bit\" 5 1) \"alternative\")(\"image\" \"jpeg\" NIL NIL NIL \"base64\" 400) \"mixed\"))\r\n"
    ) {
        guard case .untagged(.fetch(6, let attributes)) = $0, case .bodyStructure(let part)? = attributes.first else { return false }
        let plan = BodyPlanner.plan(part)
        return plan.plainPartIds == ["1.1"] && plan.htmlPartIds == ["1.2"] && plan.attachments.first?.partId == "2"
    },
    Fixture(name: "bodystructure empty params quirk", wire: "* 7 FETCH (BODYSTRUCTURE (\"text\" \"plain\" () NIL NIL \"7bit\" 5 1))\r\n") {
        guard case .untagged(.fetch(7, let attributes)) = $0, case .bodyStructure(let part)? = attributes.first else { return false }
        return part.parameters.isEmpty && part.contentType == "text/plain"
    },
    Fixture(name: "bodystructure nil type quirk", wire: "* 8 FETCH (BODYSTRUCTURE (NIL NIL NIL NIL NIL NIL 0))\r\n") {
        guard case .untagged(.fetch(8, let attributes)) = $0, case .bodyStructure(let part)? = attributes.first else { return false }
        return part.contentType == "application/octet-stream"
    },
    Fixture(
        name: "bodystructure encoded filename gmail",
        wire:
            "* 9 FETCH (BODYSTRUCTURE ((\"text\" \"plain\" NIL NIL NIL \"7bit\" 5 1)(\"application\" \"vnd.ms-excel\" (\"name\" \"=?UTF-8?B?w5xiZXJzaWNodC54bHM=?=\") NIL NIL \"base64\" 400 NIL (\"attachment\" (\"filename\" \"=?UTF-8?B?w5xiZXJzaWNodC54bHM=?=\")) NIL) \"mixed\" (\"boundary\" \"g\") NIL NIL))\r\n"
    ) {
        guard case .untagged(.fetch(9, let attributes)) = $0, case .bodyStructure(let part)? = attributes.first else { return false }
        return BodyPlanner.plan(part).attachments.first?.filename == "Übersicht.xls"
    },
    Fixture(
        name: "bodystructure literal strings",
        wire: "* 10 FETCH (BODYSTRUCTURE (\"text\" \"plain\" (\"name\" {8}\r\nnote.txt) NIL NIL \"7bit\" 5 1 NIL (\"attachment\" NIL) NIL NIL))\r\n"
    ) {
        guard case .untagged(.fetch(10, let attributes)) = $0, case .bodyStructure(let part)? = attributes.first else { return false }
        return part.filename == "note.txt" && part.disposition == "attachment"
    },
    Fixture(name: "body non-extensible", wire: "* 11 FETCH (BODY (\"text\" \"plain\" (\"charset\" \"utf-8\") NIL NIL \"8bit\" 12 1))\r\n") {
        guard case .untagged(.fetch(11, let attributes)) = $0, case .bodyStructure(let part)? = attributes.first else { return false }
        return part.transferEncoding == "8bit"
    },
    Fixture(
        name: "bodystructure language list",
        wire:
            "* 12 FETCH (BODYSTRUCTURE (\"text\" \"plain\" (\"charset\" \"utf-8\") NIL NIL \"7bit\" 5 1 NIL NIL (\"en\" \"de\") \"http://loc\"))\r\n"
    ) {
        guard case .untagged(.fetch(12, let attributes)) = $0, case .bodyStructure(let part)? = attributes.first else { return false }
        return part.charset == "utf-8"
    },
    Fixture(name: "extra spaces quirk", wire: "* 13 FETCH (UID 5  FLAGS (\\Seen) )\r\n") {
        $0 == .untagged(.fetch(sequence: 13, attributes: [.uid(5), .flags(["\\Seen"])]))
    },
    Fixture(name: "yahoo odd atom flags", wire: "* 14 FETCH (FLAGS (\\Seen $Junk NonJunk $label1 Old-Flag!))\r\n") {
        $0 == .untagged(.fetch(sequence: 14, attributes: [.flags(["\\Seen", "$Junk", "NonJunk", "$label1", "Old-Flag!"])]))
    },
    Fixture(name: "lf only line ending", wire: "* 3 EXISTS\n") { $0 == .untagged(.exists(3)) }
]

@Suite struct ResponseParserTests {
    @Test(arguments: fixtures + serverFixtures)
    func parsesFixture(_ fixture: Fixture) throws {
        let wire = Array(fixture.wire.utf8)
        let frames = try frameAll(wire)
        #expect(frames.count == 1)
        let response = try ResponseParser().parse(try #require(frames.first))
        #expect(fixture.check(response), "\(response)")
    }

    /// A response split at any byte boundary frames and parses the same.
    @Test(arguments: fixtures + serverFixtures)
    func parsesFixtureSplitAtEveryByte(_ fixture: Fixture) throws {
        let wire = Array(fixture.wire.utf8)
        let whole = try frameAll(wire)
        for split in 0...wire.count {
            #expect(try frameAll(wire, splitAt: split) == whole, "split at \(split)")
        }
    }

    /// RFC 4731 ESEARCH, as Dovecot and Gmail answer `UID SEARCH RETURN (ALL)` (issue 38).
    @Test func extendedSearchKeepsItsRanges() throws {
        let parse = { (line: String) throws -> IMAPResponse in try ResponseParser().parse(try #require(try frameAll(Array(line.utf8)).first)) }
        #expect(
            try parse("* ESEARCH (TAG \"A282\") UID ALL 2,10:11,300:330000\r\n")
                == .untagged(.extendedSearch(ExtendedSearchResult(tag: "A282", uid: true, all: UIDSet([2...2, 10...11, 300...330_000])))))
        #expect(try parse("* ESEARCH (TAG \"a7\") UID\r\n") == .untagged(.extendedSearch(ExtendedSearchResult(tag: "a7", uid: true))))
        #expect(
            try parse("* ESEARCH UID COUNT 17 MIN 4 MAX 9000 MODSEQ 917162500\r\n")
                == .untagged(.extendedSearch(ExtendedSearchResult(uid: true, min: 4, max: 9000, count: 17, highestModSeq: 917_162_500))))
        #expect(try parse("* ESEARCH ALL 1:3\r\n") == .untagged(.extendedSearch(ExtendedSearchResult(all: UIDSet([1...3])))))
        for broken in ["* ESEARCH (TAG) UID\r\n", "* ESEARCH UID ALL\r\n", "* ESEARCH UID ALL 3:x\r\n", "* ESEARCH UID PARTIAL (1:10 1:5)\r\n"] {
            #expect(throws: IMAPProtocolError.self, "\(broken)") { try parse(broken) }
        }
    }

    @Test func interleavedUntaggedAndTaggedResponses() throws {
        let wire = Array("* 3 EXISTS\r\n* 1 FETCH (FLAGS (\\Seen) UID 9)\r\n* 2 EXPUNGE\r\na1 OK [READ-WRITE] done\r\n".utf8)
        let responses = try frameAll(wire).map { try ResponseParser().parse($0) }
        #expect(responses.count == 4)
        #expect(responses[2] == .untagged(.expunge(sequence: 2)))
        if case .tagged("a1", _) = responses[3] {} else { Issue.record("last is not the tagged response") }
    }

    @Test func byteByByteStreaming() throws {
        let wire = Array((fixtures + serverFixtures).map(\.wire).joined().utf8)
        var framer = ResponseFramer()
        var frames = 0
        for byte in wire {
            framer.append([byte])
            while try framer.next() != nil { frames += 1 }
        }
        #expect(frames == fixtures.count + serverFixtures.count)
    }

    @Test func oversizedLiteralIsRefusedBeforeItArrives() {
        var limits = ResponseFramer.Limits()
        limits.maxLiteralBytes = 1000
        var framer = ResponseFramer(limits: limits)
        framer.append(Array("* 1 FETCH (BODY[] {999999999}\r\n".utf8))
        #expect(throws: IMAPProtocolError.literalTooLarge(999_999_999)) { try framer.next() }
    }

    @Test func overlongLineIsRefused() {
        var limits = ResponseFramer.Limits()
        limits.maxLineBytes = 100
        var framer = ResponseFramer(limits: limits)
        framer.append(Array(repeating: UInt8(ascii: "a"), count: 200))
        #expect(throws: IMAPProtocolError.self) { try framer.next() }
    }

    /// Issue 38: a 20-year Inbox answers `UID SEARCH ALL` with every UID on one line (2.3 MB for
    /// 330,072 messages), which the default limits frame and parse whole.
    @Test func searchAnswerOfATwentyYearInboxIsOneLineWithinTheLimits() throws {
        let uids = (1...330_072).map(UInt32.init)
        var framer = ResponseFramer()
        let wire = "* SEARCH " + uids.map(String.init).joined(separator: " ") + "\r\n"
        let bytes = Array(wire.utf8)
        #expect(bytes.count > 2_000_000)
        for chunk in stride(from: 0, to: bytes.count, by: 65_536) { framer.append(bytes[chunk..<min(chunk + 65_536, bytes.count)]) }
        let line = try #require(try framer.next())
        #expect(try ResponseParser().parse(line) == .untagged(.search(ids: uids, highestModSeq: nil)))
    }

    @Test func deepNestingIsRefused() {
        let wire = "* 1 FETCH (BODYSTRUCTURE " + String(repeating: "(", count: 500) + String(repeating: ")", count: 500) + ")"
        #expect(throws: IMAPProtocolError.self) { try ResponseParser().parse(Array(wire.utf8)) }
    }

    @Test(arguments: [
        "* 1 FETCH (UID", "a1", "* LIST (\\Sent \"/\" Sent", "* 1 FETCH (BODY[] {10}\r\nabc)", "* 99999999999 EXISTS", "(((", "* STATUS",
        "* NAMESPACE ((\"\" \"/\")", "* NAMESPACE (", "* NAMESPACE ((\"\"))"
    ])
    func malformedResponsesGiveTypedErrorsWithBytes(wire: String) {
        do {
            _ = try ResponseParser().parse(Array(wire.utf8))
            Issue.record("parsed malformed input")
        } catch {
            if case .malformed(_, let bytes) = error { #expect(bytes == Array(wire.utf8)) }
        }
    }

    /// Found by the fuzzer: an INTERNALDATE zone of many digits overflowed the offset arithmetic.
    @Test(arguments: ["\" 5-Jan-2026 10:00:00 +077777777777777615\"", "\"99-Jan-2026 10:00:00 +0000\"", "\" 5-Jan-99999 10:00:00 +0000\""])
    func hostileInternalDateIsAnErrorNotACrash(date: String) {
        #expect(throws: IMAPProtocolError.self) { try ResponseParser().parse(Array("* 1 FETCH (INTERNALDATE \(date))".utf8)) }
    }

    @Test func mailboxNamesRoundTrip() {
        for name in ["INBOX", "Entwürfe", "日本語", "Q&A", "&", "Mixed ü and 中文 & more", "[Gmail]/Sent Mail"] {
            #expect(MailboxName.decode(MailboxName.encode(name)) == name)
        }
        #expect(MailboxName.encode("Entwürfe") == "Entw&APw-rfe")
        #expect(MailboxName.encode("Q&A") == "Q&-A")
    }

    @Test func uidSetsMergeAndPrint() {
        var set = UIDSet([1...3, 5...5])
        set.insert(4...4)
        #expect(set.description == "1:5")
        set.insert(10...UInt32.max)
        #expect(set.description == "1:5,10:*")
        #expect(UIDSet(parsing: "7,1:3,4")?.description == "1:4,7")
        #expect(UIDSet(parsing: "x") == nil)
    }
}
