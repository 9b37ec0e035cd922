import Testing

@testable import SMTP

struct SMTPReplyTests {
    static let samples: [(String, [SMTPReply])] = [
        ("220 mx.tern.test ESMTP Postfix\r\n", [SMTPReply(code: 220, lines: ["mx.tern.test ESMTP Postfix"])]),
        (
            "250-mx.tern.test\r\n250-PIPELINING\r\n250-SIZE 10240000\r\n250-AUTH PLAIN LOGIN\r\n250-ENHANCEDSTATUSCODES\r\n250 8BITMIME\r\n",
            [SMTPReply(code: 250, lines: ["mx.tern.test", "PIPELINING", "SIZE 10240000", "AUTH PLAIN LOGIN", "ENHANCEDSTATUSCODES", "8BITMIME"])]
        ),
        (
            "550 5.1.1 <nobody@tern.test>: Recipient address rejected: User unknown\r\n",
            [SMTPReply(code: 550, enhancedCode: "5.1.1", lines: ["<nobody@tern.test>: Recipient address rejected: User unknown"])]
        ),
        (
            "250 2.1.0 Ok\r\n250 2.1.5 Ok\r\n354 End data with <CR><LF>.<CR><LF>\r\n",
            [
                SMTPReply(code: 250, enhancedCode: "2.1.0", lines: ["Ok"]), SMTPReply(code: 250, enhancedCode: "2.1.5", lines: ["Ok"]),
                SMTPReply(code: 354, lines: ["End data with <CR><LF>.<CR><LF>"])
            ]
        ),
        ("334 \r\n", [SMTPReply(code: 334, lines: [""])]),
        ("235\r\n", [SMTPReply(code: 235, lines: [""])]),
        (
            "421-4.3.2 Service shutting down\r\n421 4.3.2 try later\r\n",
            [SMTPReply(code: 421, enhancedCode: "4.3.2", lines: ["Service shutting down", "try later"])]
        ),
        ("250 ok\n", [SMTPReply(code: 250, lines: ["ok"])]) // bare LF from a sloppy server
    ]

    @Test(arguments: samples.indices)
    func parsesWhateverTheSplit(_ index: Int) throws {
        let (text, expected) = Self.samples[index]
        let bytes = Array(text.utf8)
        for split in 0...bytes.count {
            var parser = SMTPReplyParser()
            var replies: [SMTPReply] = []
            parser.append(bytes[..<split])
            while let reply = try parser.next() { replies.append(reply) }
            parser.append(bytes[split...])
            while let reply = try parser.next() { replies.append(reply) }
            #expect(replies == expected, "split at \(split)")
        }
    }

    @Test func malformedRepliesAreProtocolViolations() {
        for bad in ["HELLO\r\n", "25 short\r\n", "250-a\r\n251 b\r\n", "250xno separator\r\n"] {
            var parser = SMTPReplyParser()
            parser.append(Array(bad.utf8))
            #expect(throws: SMTPError.self, "\(bad)") { while try parser.next() != nil {} }
        }
        var parser = SMTPReplyParser()
        parser.append(Array(repeating: UInt8(ascii: "2"), count: SMTPReplyParser.maxLineBytes + 10))
        #expect(throws: SMTPError.self) { _ = try parser.next() }
    }
}

struct DotStuffingTests {
    @Test func normalizesLineEndingsAndStuffsDots() {
        let encoded = DotStuffing.encode(Array("Subject: x\n\n.hidden\r.\r\nend\n..two\r\n".utf8))
        #expect(String(decoding: encoded, as: UTF8.self) == "Subject: x\r\n\r\n..hidden\r\n..\r\nend\r\n...two")
    }

    @Test func smugglingSequencesCannotEndTheData() {
        // "\n.\n" and "\r\n.\r" tricks: after encoding, the only "\r\n.\r\n" is the one the client appends.
        for payload in ["a\n.\nMAIL FROM:<x>\n", "a\r\n.\rMAIL FROM:<x>\r\n", "a\r.\r\nRCPT", "a\n.\r\nDATA"] {
            let wire = DotStuffing.encode(Array(payload.utf8)) + Array("\r\n.\r\n".utf8)
            let text = String(decoding: wire, as: UTF8.self)
            #expect(text.components(separatedBy: "\r\n.\r\n").count == 2, "\(payload.debugDescription) → \(text.debugDescription)")
            #expect(!wire.enumerated().contains { $0.element == 10 && ($0.offset == 0 || wire[$0.offset - 1] != 13) }, "bare LF")
            #expect(!wire.enumerated().contains { $0.element == 13 && ($0.offset + 1 == wire.count || wire[$0.offset + 1] != 10) }, "bare CR")
        }
    }

    @Test func emptyAndUnterminatedMessages() {
        #expect(DotStuffing.encode([]) == [])
        #expect(DotStuffing.encode(Array("x".utf8)) == Array("x".utf8))
        #expect(DotStuffing.encode(Array(".".utf8)) == Array("..".utf8))
    }

    @Test func addressesThatCouldInjectCommandsAreRefused() {
        for address in ["a@b\r\nRCPT TO:<c@d>", "a@b>", "a b@c", "<a@b"] {
            #expect(throws: SMTPError.self) { try SMTPClient.validate(SMTPEnvelope(sender: "me@tern.test", recipients: [address])) }
        }
        #expect(throws: SMTPError.self) { try SMTPClient.validate(SMTPEnvelope(sender: "me@tern.test", recipients: [])) }
        #expect(throws: Never.self) { try SMTPClient.validate(SMTPEnvelope(sender: "", recipients: ["bob@tern.test"])) }
    }
}

struct SMTPReplyParserFailureTests {
    /// Found by the fuzzer: after a violation, later bytes must not assemble into a reply.
    @Test func aViolationIsFinal() {
        var parser = SMTPReplyParser()
        parser.append(Array("250-a\r\n251-b\r\n".utf8))
        #expect(throws: SMTPError.self) { while try parser.next() != nil {} }
        parser.append(Array("250 c\r\n".utf8))
        #expect(throws: SMTPError.self) { _ = try parser.next() }
    }
}
