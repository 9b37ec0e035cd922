import Testing

@testable import AccountDiscovery

/// Issue 35: DNS queries built and answers parsed (RFC 1035 section 4, RFC 2782's SRV).
@Suite struct DNSMessageTests {
    static func name(_ text: String) -> [UInt8] {
        text.split(separator: ".").flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) } + [0]
    }

    static func header(id: UInt16, flags: UInt16, questions: UInt16 = 1, answers: UInt16) -> [UInt8] {
        [UInt8(id >> 8), UInt8(id & 0xFF), UInt8(flags >> 8), UInt8(flags & 0xFF), 0, UInt8(questions), 0, UInt8(answers), 0, 0, 0, 0]
    }

    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    /// An answer whose records' owner names point back at the question (offset 12).
    static func answer(id: UInt16 = 0x1234, flags: UInt16 = 0x8180, question: String, type: UInt16, records: [(UInt16, [UInt8])]) -> [UInt8] {
        var bytes = header(id: id, flags: flags, answers: UInt16(records.count)) + name(question) + be16(type) + be16(1)
        for (recordType, data) in records {
            bytes += [0xC0, 0x0C] + be16(recordType) + be16(1) + [0, 0, 0x0E, 0x10] + be16(UInt16(data.count)) + data
        }
        return bytes
    }

    @Test func buildsAQueryWithRecursionDesired() throws {
        let query = try DNSMessage.query(id: 0xBEEF, name: "_imaps._tcp.example.org.", type: .srv)
        #expect(query == [0xBE, 0xEF, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0] + Self.name("_imaps._tcp.example.org") + [0, 33, 0, 1])
        #expect(throws: DNSMessage.BuildError.self) { try DNSMessage.query(id: 1, name: "a..b", type: .mx) }
        #expect(throws: DNSMessage.BuildError.self) { try DNSMessage.query(id: 1, name: String(repeating: "a", count: 64) + ".org", type: .mx) }
        #expect(throws: DNSMessage.BuildError.self) { try DNSMessage.query(id: 1, name: "sp ace.org", type: .mx) }
    }

    @Test func parsesSRVWithACompressedTarget() throws {
        // The target "mail" + a pointer to "example.org" inside the question (offset 12 + "_imaps"+"_tcp" labels = 24).
        let target: [UInt8] = [4] + Array("mail".utf8) + [0xC0, 24]
        let bytes = Self.answer(
            question: "_imaps._tcp.example.org", type: 33, records: [(33, Self.be16(10) + Self.be16(5) + Self.be16(993) + target)])
        let message = try DNSMessage.parse(bytes)
        #expect(message.id == 0x1234 && message.isResponse && !message.isTruncated && message.responseCode == 0)
        #expect(message.questions == [.init(name: "_imaps._tcp.example.org", type: .srv, recordClass: 1)])
        #expect(message.answers.map(\.data) == [.srv(priority: 10, weight: 5, port: 993, target: "mail.example.org")])
        #expect(message.answers.first?.name == "_imaps._tcp.example.org")
        #expect(message.answers.first?.ttl == 3600)
    }

    @Test func parsesMXAndSkipsOtherTypes() throws {
        let bytes = Self.answer(
            question: "example.org", type: 15,
            records: [(15, Self.be16(10) + Self.name("aspmx.l.google.com")), (1, [192, 0, 2, 1]), (15, Self.be16(20) + [0xC0, 0x0C])])
        let message = try DNSMessage.parse(bytes)
        #expect(
            message.answers.map(\.data) == [.mx(preference: 10, exchange: "aspmx.l.google.com"), .other, .mx(preference: 20, exchange: "example.org")]
        )
    }

    @Test func refusesPointerLoopsAndOverlongNames() {
        // The question's name is a pointer to itself.
        let loop = Self.header(id: 1, flags: 0x8180, answers: 0) + [0xC0, 0x0C, 0, 15, 0, 1]
        #expect(throws: DNSMessage.ParseError.malformedName("compression pointers loop")) { try DNSMessage.parse(loop) }
        let long =
            Self.header(id: 1, flags: 0x8180, answers: 0)
            + Array(repeating: [63] + Array(repeating: UInt8(ascii: "a"), count: 63), count: 5).flatMap { $0 } + [0, 0, 15, 0, 1]
        #expect(throws: DNSMessage.ParseError.malformedName("a name over 255 bytes")) { try DNSMessage.parse(long) }
        let retired = Self.header(id: 1, flags: 0x8180, answers: 0) + [0x41, 0, 0, 15, 0, 1]
        #expect(throws: DNSMessage.ParseError.self) { try DNSMessage.parse(retired) }
    }

    @Test func aTruncatedAnswerKeepsWhatIsWholeAndSaysSo() throws {
        let whole = Self.answer(
            flags: 0x8380, question: "example.org", type: 15,
            records: [(15, Self.be16(10) + Self.name("mx1.example.org")), (15, Self.be16(20) + Self.name("mx2.example.org"))])
        let message = try DNSMessage.parse(Array(whole.dropLast(5)))
        #expect(message.isTruncated)
        #expect(message.answers.map(\.data) == [.mx(preference: 10, exchange: "mx1.example.org")])
        // Cut short without the TC bit, the answer is broken.
        let cut = Self.answer(question: "example.org", type: 15, records: [(15, Self.be16(10) + Self.name("mx1.example.org"))]).dropLast(3)
        #expect(throws: DNSMessage.ParseError.truncatedMessage) { try DNSMessage.parse(Array(cut)) }
    }

    @Test func aRecordsDataStaysInsideItsLength() {
        // An MX whose declared length ends inside its exchange name.
        let bytes = Self.answer(question: "example.org", type: 15, records: [(15, Self.be16(10) + Self.name("mx.example.org"))])
        var short = bytes
        short[short.count - 19] = 4 // the data length's low byte: 4 instead of 2 + 16
        #expect(throws: DNSMessage.ParseError.self) { try DNSMessage.parse(short) }
    }

    @Test func namesTheRCode() throws {
        let message = try DNSMessage.parse(Self.header(id: 7, flags: 0x8183, questions: 0, answers: 0))
        #expect(message.responseCode == DNSMessage.nameError)
    }

    @Test func escapesBytesThatAreNotHostNameText() throws {
        let bytes = Self.header(id: 1, flags: 0x8180, answers: 0) + [3, UInt8(ascii: "a"), UInt8(ascii: "."), 0xFF, 0, 0, 15, 0, 1]
        #expect(try DNSMessage.parse(bytes).questions.first?.name == "a\\046\\255")
    }
}
