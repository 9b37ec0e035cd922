import Foundation
import IDNA
import Testing
@testable import MIME

/// Issue 21: Message-IDs Tern writes are RFC 5322 msg-ids in ASCII, and no header line it writes is
/// longer than 998 bytes.
@Suite struct MessageIDBuildingTests {
    let alice = MailboxAddress(name: "Alice", address: "alice@tern.test")
    let bob = MailboxAddress(address: "bob@tern.test")

    func message(messageId: String? = nil, inReplyTo: String? = nil, references: [String] = []) -> OutgoingMIMEMessage {
        OutgoingMIMEMessage(from: alice, to: [bob], subject: "s", messageId: messageId, inReplyTo: inReplyTo, references: references, bodyPlain: "x")
    }

    static let invalidIds = [
        "plain@host", "<no-at-sign>", "<a b@host>", "<a@host name>", "<é@host>", "<a@bücher.de>", "<a@host", "a@host>", "<<a@host>",
        "<a@host>>", "<@host>", "<a@>", "<>", "<a@host> <b@host>", "<a@host>\t", "<a\u{7F}@host>", "<a@host\u{85}>",
        "<" + String(repeating: "x", count: 1_000) + "@host>",
    ]

    @Test(arguments: invalidIds)
    func malformedIdsAreRefusedInEveryField(id: String) {
        #expect(throws: MessageBuildError.self) { try MessageBuilder().build(message(messageId: id)) }
        #expect(throws: MessageBuildError.self) { try MessageBuilder().build(message(inReplyTo: id)) }
        #expect(throws: MessageBuildError.self) { try MessageBuilder().build(message(references: ["<root@host>", id])) }
    }

    @Test(arguments: ["<a@host>", "<CAKx=3+_-Y@mail.gmail.com>", "<1234.5678@[192.0.2.1]>", "<\"quoted\"@host>", "<a.b!#$%&'*+/=?^_`{|}~@host>"])
    func wellFormedIdsAreKept(id: String) throws {
        let parsed = MessageParser().parse(try MessageBuilder().build(message(messageId: id, inReplyTo: id, references: [id])))
        #expect(parsed.messageId == id)
        #expect(parsed.inReplyTo == [id])
        #expect(parsed.references == [id])
    }

    @Test func refusalNamesTheField() {
        #expect(throws: MessageBuildError.invalidMessageID(field: "References", id: "<a b@host>")) {
            try MessageBuilder().build(message(references: ["<a b@host>"]))
        }
    }

    /// Each id on a line of its own, every line within RFC 5322's 998 bytes.
    @Test func longReferencesFoldBetweenIds() throws {
        let longest = "<" + String(repeating: "r", count: MessageID.maxBytes - 7) + "@host>"
        let references = (0..<40).map { "<" + String(repeating: "r", count: 980) + "\($0)@host.example>" } + [longest]
        let bytes = try MessageBuilder().build(message(references: references))
        #expect(Self.longestLine(bytes) <= 998)
        #expect(MessageParser().parse(bytes).references == references)
    }

    /// An ASCII subject or name with a word too long for one line is written as encoded words.
    @Test func longWordsInTextAreEncodedNotOverlong() throws {
        let word = String(repeating: "w", count: 2_000)
        var outgoing = message()
        outgoing.subject = "see " + word + " end"
        outgoing.to = [MailboxAddress(name: word, address: "bob@tern.test")]
        let bytes = try MessageBuilder().build(outgoing)
        #expect(Self.longestLine(bytes) <= 998)
        let parsed = MessageParser().parse(bytes)
        #expect(parsed.subject == outgoing.subject)
        #expect(parsed.to == outgoing.to)
    }

    /// A token no folding can split is refused with what it was, not sent as a broken message.
    @Test func unfoldableLinesAreRefused() {
        var outgoing = message()
        outgoing.bodyHTML = "<img src=\"cid:x\">"
        outgoing.attachments = [OutgoingMIMEAttachment(filename: "a.png", mimeType: "image/png", data: Data([1]),
                                                   contentId: String(repeating: "c", count: 1_200) + "@x")]
        #expect(throws: MessageBuildError.lineTooLong(start: "Content-ID: <" + String(repeating: "c", count: 27), length: 1_216)) {
            try MessageBuilder().build(outgoing)
        }
    }

    /// IMAP SEARCH takes no 8-bit text, and the Sent check after a crash searches by Message-ID.
    @Test(arguments: [("zoe@bücher.de", "xn--bcher-kva.de"), ("zoe@BÜCHER.de", "xn--bcher-kva.de"), ("a@例え.テスト", "xn--r8jz45g.xn--zckzah"),
                      ("a@münchen。de", "xn--mnchen-3ya.de"), ("a@tern.test", "tern.test")])
    func generatedIdsAreASCIIForInternationalizedDomains(address: String, domain: String) throws {
        var outgoing = message()
        outgoing.from = MailboxAddress(address: address)
        let parsed = MessageParser().parse(try MessageBuilder().build(outgoing))
        let id = try #require(parsed.messageId)
        #expect(id.hasSuffix("@\(domain)>"), "\(id)")
        #expect(MessageID.isValid(id))
    }

    /// RFC 3492 section 7.1 samples.
    @Test(arguments: [
        ("ليهمابتكلموشعربي؟", "egbpdaj6bu4bxfgehfvwxn"), ("他们为什么不说中文", "ihqwcrb4cv8a8dqg056pqjye"),
        ("Pročprostěnemluvíčesky", "Proprostnemluvesky-uyb24dma41a"), ("3年B組金八先生", "3B-ww4c5e180e575a65lsy2b"),
        ("安室奈美恵-with-SUPER-MONKEYS", "-with-SUPER-MONKEYS-pc58ag80a8qai00g7n9n"), ("bücher", "bcher-kva"),
    ])
    func punycodeEncodesTheRFCSamples(input: String, expected: String) {
        #expect(Punycode.encode(input) == expected)
    }

    static func longestLine(_ bytes: [UInt8]) -> Int {
        bytes.split(separator: 10).map { $0.count - ($0.last == 13 ? 1 : 0) }.max() ?? 0
    }
}
