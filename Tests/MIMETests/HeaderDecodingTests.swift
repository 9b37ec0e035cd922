import Foundation
import Testing
import TernCore
@testable import MIME

@Suite struct EncodedWordTests {
    @Test(arguments: [
        ("=?UTF-8?B?SGVsbG8gV29ybGQ=?=", "Hello World"),
        ("=?utf-8?q?caf=C3=A9_au_lait?=", "café au lait"),
        ("=?ISO-8859-1?Q?Andr=E9?= Pirard", "André Pirard"),
        // RFC 2047 section 8: whitespace between adjacent encoded words is dropped.
        ("=?ISO-8859-1?Q?a?= =?ISO-8859-1?Q?b?=", "ab"),
        ("=?ISO-8859-1?Q?a?=\r\n  =?ISO-8859-1?Q?b?=", "ab"),
        ("=?ISO-8859-1?Q?a?= b", "a b"),
        ("a =?ISO-8859-1?Q?b?=", "a b"),
        ("=?ISO-8859-1?Q?a_b?=", "a b"),
        // A character split across two words (é = C3 A9).
        ("=?UTF-8?Q?caf=C3?= =?UTF-8?Q?=A9?=", "café"),
        ("=?UTF-8?B?w6k=?= =?UTF-8?B?w6k=?=", "éé"),
        ("=?koi8-r?B?8NLJ18XU?=", "Привет"),
        ("=?ISO-2022-JP?B?GyRCJEskWyQzJCEkXBsoQg==?=", "にほこぁぼ"),
        ("=?gb2312?B?1tDOxA==?=", "中文"),
        ("=?big5?B?pKSk5Q==?=", "中文"),
        ("=?euc-kr?B?x9GxuQ==?=", "한국"),
        ("=?shift_jis?B?k/qWe4zq?=", "日本語"),
        ("=?windows-1252?Q?=80_5?=", "€ 5"),
        ("=?UTF-8*en?Q?language_tag?=", "language tag"),
        // Missing padding, lowercase encoding letter, glued to text.
        ("=?utf-8?b?w6k?=", "é"),
        ("Re:=?utf-8?Q?_caf=C3=A9?=", "Re: café"),
        ("plain text", "plain text"),
        ("=?bogus", "=?bogus"),
        ("=?utf-8?X?abc?=", "=?utf-8?X?abc?="),
    ])
    func decodes(input: String, expected: String) {
        #expect(EncodedWordDecoder.decode(input) == expected)
    }

    @Test func unknownCharsetIsDecodedAndReported() {
        var problems: [String] = []
        let text = EncodedWordDecoder.decode(Array("=?x-unknown-42?Q?caf=E9?=".utf8)[...], problems: &problems)
        #expect(text == "caf\u{FFFD}")
        #expect(problems.contains { $0.contains("unknown charset") })
    }
}

@Suite struct AddressParserTests {
    @Test(arguments: [
        ("john@example.com", [MailboxAddress(name: nil, address: "john@example.com")]),
        ("John Doe <john@example.com>", [MailboxAddress(name: "John Doe", address: "john@example.com")]),
        ("\"Doe, John\" <john@example.com>, jane@example.com",
         [MailboxAddress(name: "Doe, John", address: "john@example.com"), MailboxAddress(name: nil, address: "jane@example.com")]),
        ("=?UTF-8?B?w4lsb2RpZQ==?= <elodie@example.fr>", [MailboxAddress(name: "Élodie", address: "elodie@example.fr")]),
        ("\"=?UTF-8?B?w4lsb2RpZQ==?=\" <elodie@example.fr>", [MailboxAddress(name: "Élodie", address: "elodie@example.fr")]),
        ("john@example.com (John Doe)", [MailboxAddress(name: "John Doe", address: "john@example.com")]),
        ("Team: a@x.org, B <b@x.org>;, c@x.org",
         [MailboxAddress(name: nil, address: "a@x.org"), MailboxAddress(name: "B", address: "b@x.org"), MailboxAddress(name: nil, address: "c@x.org")]),
        ("undisclosed-recipients:;", []),
        ("John Doe john@example.com", [MailboxAddress(name: "John Doe", address: "john@example.com")]),
        ("<john@example.com>", [MailboxAddress(name: nil, address: "john@example.com")]),
        ("\"Quote \\\"Me\\\"\" <q@x.org>", [MailboxAddress(name: "Quote \"Me\"", address: "q@x.org")]),
        ("Jörg <jörg@bücher.de>", [MailboxAddress(name: "Jörg", address: "jörg@bücher.de")]),
        ("user@xn--bcher-kva.example", [MailboxAddress(name: nil, address: "user@xn--bcher-kva.example")]),
        ("<@relay.example:route@example.com>", [MailboxAddress(name: nil, address: "route@example.com")]),
        ("A <a@x.org> B <b@x.org>", [MailboxAddress(name: "A", address: "a@x.org"), MailboxAddress(name: "B", address: "b@x.org")]),
        ("John Q. Public <jqp@example.com>", [MailboxAddress(name: "John Q. Public", address: "jqp@example.com")]),
        (",,a@x.org,,", [MailboxAddress(name: nil, address: "a@x.org")]),
    ])
    func parses(input: String, expected: [MailboxAddress]) {
        #expect(AddressParser.parse(input) == expected)
    }

    @Test func brokenInputNeverCrashes() {
        for input in ["\"unterminated <a@b>", "(((", "<<<>>>", "a@", "@", ":;:;", "\"\\", "<a@b"] {
            _ = AddressParser.parse(input)
        }
    }

    @Test func fromNameFallsBackToAddress() {
        #expect(EmailAddress(name: nil, address: "a@x.org").displayName == "a@x.org")
        #expect(EmailAddress(name: "  ", address: "a@x.org").displayName == "a@x.org")
    }
}

@Suite struct DateParserTests {
    static let reference = Date(timeIntervalSince1970: 1_767_607_200)  // 2026-01-05 10:00:00 UTC

    @Test(arguments: [
        "Mon, 05 Jan 2026 10:00:00 +0000",
        "Mon, 5 Jan 2026 10:00:00 +0000",
        "5 Jan 2026 10:00:00 +0000",
        "Mon, 05 Jan 2026 11:00:00 +0100",
        "Mon, 05 Jan 2026 05:00:00 -0500",
        "Mon, 05 Jan 2026 05:00:00 EST",
        "Mon, 05 Jan 2026 10:00:00 GMT",
        "Mon, 05 Jan 2026 10:00:00 UT",
        "Mon, 05 Jan 26 10:00:00 +0000",
        "Mon, 05 Jan 2026 10:00:00 +0000 (UTC)",
        "Mon, 05 Jan 2026 11:00:00 +01:00",
        "Mon, 05 Jan 2026 10:00:00 Z",
        "Monday, 05-Jan-2026 10:00:00 GMT",
        "Mon Jan  5 10:00:00 2026",
        "2026-01-05T10:00:00Z",
        "2026-01-05 11:00:00 +0100",
        "Mon, 05 January 2026 10:00:00 +0000",
        "Mon,05 Jan 2026 10:00:00 +0000",
        "05 Jan 2026 10:00 +0000",
    ])
    func parses(input: String) {
        #expect(DateParser.parse(input) == Self.reference, "\(input)")
    }

    @Test func obsoleteYears() {
        #expect(DateParser.parse("Fri, 05 Jan 99 10:00:00 +0000") == Date(timeIntervalSince1970: 915_530_400))
        #expect(DateParser.parse("Fri, 05 Jan 099 10:00:00 +0000") == Date(timeIntervalSince1970: 915_530_400))
    }

    @Test(arguments: ["", "yesterday", "Mon, 32 Jan 2026 10:00:00 +0000", "Jan 2026", "99:99:99", "Mon, 05 Foo 2026 10:00:00 +0000",
                      "2026-01-05T10:00:00+9999999999999999", "9999-01-05T10:00:00Z"])
    func unreadableIsNil(input: String) {
        #expect(DateParser.parse(input) == nil)
    }
}

@Suite struct MessageIDTests {
    @Test(arguments: [
        ("<a@x>", ["<a@x>"]),
        ("<a@x> <b@y>", ["<a@x>", "<b@y>"]),
        ("<a@x>,<b@y>", ["<a@x>", "<b@y>"]),
        ("<a@x>\r\n\t<b@y>", ["<a@x>", "<b@y>"]),
        ("a@x b@y", ["<a@x>", "<b@y>"]),
        ("Your message of Mon, 5 Jan <a@x>", ["<a@x>"]),
        ("<a@x> <a@x>", ["<a@x>"]),
        ("<a @x>", ["<a@x>"]),
        ("", []),
        ("<>", []),
    ])
    func parsesLists(input: String, expected: [String]) {
        #expect(MessageIDParser.parseList(input) == expected)
    }
}

@Suite struct ParameterTests {
    func parse(_ text: String) -> ParameterizedValue {
        var problems: [String] = []
        return ParameterizedValue.parse(Array(text.utf8)[...], problems: &problems)
    }

    @Test func simpleAndQuoted() {
        let value = parse("Text/Plain; charset=\"UTF-8\"; format=flowed")
        #expect(value.value == "text/plain")
        #expect(value.parameters == ["charset": "UTF-8", "format": "flowed"])
    }

    @Test func rfc2231ContinuationsAndCharset() {
        let value = parse("attachment; filename*0*=UTF-8''%C3%9Cber; filename*1*=sicht%20; filename*2=\"2026.pdf\"")
        #expect(value.parameters["filename"] == "Übersicht 2026.pdf")
        let single = parse("attachment; filename*=iso-8859-1'de'Gr%FC%DFe.txt")
        #expect(single.parameters["filename"] == "Grüße.txt")
    }

    @Test func encodedWordInQuotedFilename() {
        #expect(parse("attachment; filename=\"=?UTF-8?B?w5xiZXJzaWNodC5wZGY=?=\"").parameters["filename"] == "Übersicht.pdf")
    }

    @Test func missingSemicolonAndUnquotedSpaces() {
        let value = parse("multipart/mixed; boundary=abc charset=utf-8")
        #expect(value.parameters["boundary"] == "abc")
        #expect(value.parameters["charset"] == "utf-8")
        #expect(parse("attachment; filename=my report.pdf").parameters["filename"] == "my report.pdf")
    }

    @Test func windowsPathKeepsBackslashes() {
        #expect(parse("attachment; filename=\"C:\\docs\\a.pdf\"").parameters["filename"] == "C:\\docs\\a.pdf")
        let part = MIMEPart(partId: "2", contentType: "application/pdf", dispositionParameters: ["filename": "C:\\docs\\a.pdf"])
        #expect(part.filename == "a.pdf")
        let hostile = MIMEPart(partId: "2", contentType: "application/pdf", dispositionParameters: ["filename": "../../.bashrc\r\n"])
        #expect(hostile.filename == "bashrc")
    }
}

@Suite struct TransferDecodingTests {
    @Test(arguments: [
        ("SGVsbG8=", "Hello"), ("SGVsbG8", "Hello"), ("SGVs\r\nbG8=", "Hello"), ("SGV*sbG8=", "Hello"),
        ("SGVsbG8=\r\nV29ybGQ=", "HelloWorld"), ("", ""),
    ])
    func base64(input: String, expected: String) {
        #expect(String(decoding: TransferDecoding.decodeBase64(Array(input.utf8)).bytes, as: UTF8.self) == expected)
    }

    @Test(arguments: [
        ("caf=C3=A9", "café"), ("soft=\r\nbreak", "softbreak"), ("soft=\nbreak", "softbreak"), ("soft= \r\nbreak", "softbreak"),
        ("bad=ZZescape", "bad=ZZescape"), ("lower=c3=a9", "loweré"), ("end=", "end"), ("a=3D=3Db", "a==b"),
    ])
    func quotedPrintable(input: String, expected: String) {
        #expect(String(decoding: TransferDecoding.decodeQuotedPrintable(Array(input.utf8)), as: UTF8.self) == expected)
    }
}

@Suite struct CharsetTests {
    @Test(arguments: [
        ("iso-8859-1", [0x63, 0x61, 0x66, 0xE9] as [UInt8], "café"),
        ("iso-8859-2", [0xB3, 0xF3, 0x64, 0xBC], "łódź"),
        ("iso-8859-5", [0xBF, 0xE0, 0xD8], "При"),
        ("iso-8859-7", [0xE1, 0xE2, 0xE3], "αβγ"),
        ("iso-8859-15", [0xA4], "€"),
        ("iso-8859-16", [0xAA], "Ș"),
        ("windows-1250", [0x9A], "š"),
        ("windows-1251", [0xCF, 0xF0, 0xE8], "При"),
        ("windows-1252", [0x80, 0x93, 0x94], "€\u{201C}\u{201D}"),
        ("windows-1253", [0xE1], "α"),
        ("windows-1254", [0xFD], "ı"),
        ("windows-1255", [0xF9], "ש"),
        ("windows-1256", [0xC7], "ا"),
        ("windows-1257", [0xE0], "ą"),
        ("windows-1258", [0xE0], "à"),
        ("koi8-r", [0xF0, 0xD2, 0xC9], "При"),
        ("koi8-u", [0xA4], "є"),
        ("shift_jis", [0x93, 0xFA, 0x96, 0x7B], "日本"),
        ("euc-jp", [0xC6, 0xFC, 0xCB, 0xDC], "日本"),
        ("iso-2022-jp", [0x1B, 0x24, 0x42, 0x46, 0x7C, 0x4B, 0x5C, 0x1B, 0x28, 0x42], "日本"),
        ("gb2312", [0xD6, 0xD0], "中"),
        ("gbk", [0xD6, 0xD0], "中"),
        ("gb18030", [0xD6, 0xD0], "中"),
        ("big5", [0xA4, 0xA4], "中"),
        ("euc-kr", [0xC7, 0xD1], "한"),
        ("ks_c_5601-1987", [0xC7, 0xD1], "한"),
        ("us-ascii", [0x61], "a"),
        ("UTF8", [0xC3, 0xA9], "é"),
    ])
    func decodes(charset: String, bytes: [UInt8], expected: String) {
        let result = CharsetDecoder.decode(bytes, charset: charset)
        #expect(result.text == expected)
        #expect(result.problem == nil)
    }

    @Test func asciiLabelOnUTF8IsUTF8() {
        let result = CharsetDecoder.decode(Array("café".utf8), charset: "us-ascii")
        #expect(result.text == "café")
    }

    @Test func latin1LabelOnUTF8IsUTF8() {
        let result = CharsetDecoder.decode(Array("Grüße".utf8), charset: "iso-8859-1")
        #expect(result.text == "Grüße")
        #expect(result.problem != nil)
    }

    @Test func unknownCharsetIsReportedNotDropped() {
        let result = CharsetDecoder.decode([0x61, 0xFF, 0x62], charset: "x-martian")
        #expect(result.text == "a\u{FFFD}b")
        #expect(result.problem?.contains("x-martian") == true)
    }

    @Test func invalidBytesInMultiByteCharsetAreReplaced() {
        let result = CharsetDecoder.decode([0x61, 0x80, 0x62], charset: "shift_jis")
        #expect(result.text.hasPrefix("a"))
        #expect(result.text.hasSuffix("b"))
    }
}

@Suite struct FormatFlowedTests {
    @Test func joinsFlowedLines() {
        #expect(FormatFlowed.decode("Hello \r\nworld\r\n", delSp: false) == "Hello world\n")
        #expect(FormatFlowed.decode("Hel\u{20}\r\nlo\r\n", delSp: true) == "Hello\n")
        #expect(FormatFlowed.decode(" From me\r\n", delSp: false) == "From me\n")
        #expect(FormatFlowed.decode("> quoted \r\n> more\r\nnew\r\n", delSp: false) == "> quoted more\nnew\n")
        #expect(FormatFlowed.decode("a \r\n>b\r\n", delSp: false) == "a \n> b\n")
        #expect(FormatFlowed.decode("-- \r\nsig\r\n", delSp: false) == "-- \nsig\n")
    }
}
