import Foundation
import Testing
@testable import MIME

func parse(_ text: String) -> ParsedMessage {
    MessageParser().parse(Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8))
}

@Suite struct MessageParserTests {
    @Test func simplePlainMessage() {
        let message = parse("""
            From: Zoë <zoe@example.fr>
            To: ivan@example.ru
            Subject: Hello
            Date: Mon, 05 Jan 2026 10:00:00 +0000
            Message-ID: <m1@example.fr>
            Content-Type: text/plain; charset=utf-8

            Hi there.

            """)
        #expect(message.from == [MailboxAddress(name: "Zoë", address: "zoe@example.fr")])
        #expect(message.subject == "Hello")
        #expect(message.messageId == "<m1@example.fr>")
        #expect(message.bodyPlain == "Hi there.\n")
        #expect(message.bodyHTML == nil)
        #expect(message.structure.partId == "1")
        #expect(message.problems.isEmpty)
    }

    @Test func foldedHeadersAndObsoleteSpaceBeforeColon() {
        let message = parse("""
            From : a@x.org
            Subject: a long
             folded
            \tsubject
            Date: Mon, 05 Jan 2026 10:00:00 +0000

            body
            """)
        #expect(message.subject == "a long folded\tsubject")
        #expect(message.from.first?.address == "a@x.org")
    }

    @Test func alternativeChoosesBoth() {
        let message = parse("""
            From: a@x.org
            Content-Type: multipart/alternative; boundary="b1"

            preamble is ignored
            --b1
            Content-Type: text/plain; charset=us-ascii

            plain
            --b1
            Content-Type: text/html; charset=us-ascii

            <p>html</p>
            --b1--
            epilogue is ignored
            """)
        #expect(message.bodyPlain == "plain")
        #expect(message.bodyHTML == "<p>html</p>")
        #expect(message.structure.children.map(\.partId) == ["1", "2"])
    }

    @Test func htmlOnlyLeavesPlainNil() {
        let message = parse("From: a@x.org\nContent-Type: text/html\n\n<b>x</b>")
        #expect(message.bodyPlain == nil)
        #expect(message.bodyHTML == "<b>x</b>")
    }

    @Test func mixedWithRelatedAndAttachments() {
        let message = parse("""
            From: a@x.org
            Content-Type: multipart/mixed; boundary=outer

            --outer
            Content-Type: multipart/alternative; boundary=alt

            --alt
            Content-Type: text/plain

            see image
            --alt
            Content-Type: multipart/related; boundary=rel

            --rel
            Content-Type: text/html

            <img src="cid:logo@x">
            --rel
            Content-Type: image/png
            Content-ID: <logo@x>
            Content-Transfer-Encoding: base64

            iVBORw0KGgo=
            --rel--
            --alt--
            --outer
            Content-Type: application/pdf; name="report.pdf"
            Content-Disposition: attachment; filename="report.pdf"
            Content-Transfer-Encoding: base64

            JVBERi0xLjQK
            --outer
            Content-Type: application/ms-tnef
            Content-Transfer-Encoding: base64

            eJ8+Ig==
            --outer--
            """)
        #expect(message.bodyPlain == "see image")
        #expect(message.bodyHTML == "<img src=\"cid:logo@x\">")
        let names = message.attachments.map(\.filename)
        #expect(names.contains("report.pdf"))
        #expect(names.contains("winmail.dat"))
        let inline = message.attachments.first { $0.contentId == "logo@x" }
        #expect(inline?.isInline == true)
        #expect(inline?.partId == "1.2.2")
        let pdf = message.attachments.first { $0.filename == "report.pdf" }
        #expect(pdf?.partId == "2")
        #expect(message.content(ofPart: "2") == Array("%PDF-1.4\n".utf8))
    }

    @Test func missingFinalBoundaryKeepsLastPart() {
        let message = parse("""
            From: a@x.org
            Content-Type: multipart/mixed; boundary=b

            --b
            Content-Type: text/plain

            first
            --b
            Content-Type: text/plain; name=notes.txt
            Content-Disposition: attachment

            cut off here
            """)
        #expect(message.bodyPlain == "first")
        #expect(message.attachments.map(\.filename) == ["notes.txt"])
        #expect(message.problems.contains { $0.kind == .multipart })
    }

    @Test func boundaryPrefixInBodyIsNotADelimiter() {
        let message = parse("""
            From: a@x.org
            Content-Type: multipart/mixed; boundary=abc

            --abc
            Content-Type: text/plain

            --abcdef is not a delimiter
            --abc-- inside text? no: this is the close
            """)
        #expect(message.bodyPlain == "--abcdef is not a delimiter")
    }

    @Test func messageRFC822IsNumberedLikeIMAP() {
        let message = parse("""
            From: a@x.org
            Content-Type: multipart/mixed; boundary=b

            --b
            Content-Type: text/plain

            see forwarded
            --b
            Content-Type: message/rfc822

            From: c@x.org
            Subject: Inner
            Content-Type: multipart/alternative; boundary=i

            --i
            Content-Type: text/plain

            inner plain
            --i--
            --b--
            """)
        #expect(message.bodyPlain == "see forwarded")
        let forwarded = message.attachments.first
        #expect(forwarded?.filename == "Inner.eml")
        #expect(forwarded?.mimeType == "message/rfc822")
        #expect(message.structure.children[1].children.first?.children.first?.partId == "2.1")
    }

    @Test func formatFlowedBody() {
        let message = parse("From: a@x.org\nContent-Type: text/plain; format=flowed; delsp=yes\n\nlong li \nne\n")
        #expect(message.bodyPlain == "long line\n")
    }

    @Test func quotedPrintableLatin1Body() {
        let message = parse("From: a@x.org\nContent-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable\n\nGr=FC=DFe, soft=\nbreak")
        #expect(message.bodyPlain == "Grüße, softbreak")
    }

    @Test func eightBitGarbageInHeadersNeverCrashes() {
        var bytes = Array("From: ".utf8) + [0xC3, 0xC3, 0xFF] + Array(" <a@x.org>\r\nSubject: caf".utf8) + [0xE9] + Array("\r\n\r\nbody".utf8)
        let message = MessageParser().parse(bytes)
        #expect(message.subject == "café")
        #expect(message.from.first?.address == "a@x.org")
        bytes.removeAll()
    }

    @Test func unparseableDateIsNilAndReported() {
        let message = parse("From: a@x.org\nDate: sometime last week\n\nbody")
        #expect(message.date == nil)
        #expect(message.problems.contains { $0.kind == .malformedDate })
    }

    @Test func missingEverythingStillParses() {
        let message = MessageParser().parse(Array("just some text with no headers".utf8))
        #expect(message.bodyPlain == "just some text with no headers")
        #expect(message.from.isEmpty)
        #expect(!message.problems.isEmpty)
    }

    @Test func lfOnlyLineEndings() {
        let message = MessageParser().parse(Array("From: a@x.org\nSubject: lf\nContent-Type: multipart/alternative; boundary=z\n\n--z\nContent-Type: text/plain\n\nbody\n--z--\n".utf8))
        #expect(message.subject == "lf")
        #expect(message.bodyPlain == "body")
    }

    @Test func bodyOverTheLimitIsTruncated() {
        var parser = MessageParser()
        parser.maxBodyBytes = 100
        let message = parser.parse(Array(("From: a@x.org\r\n\r\n" + String(repeating: "x", count: 500)).utf8))
        #expect(message.bodyTruncated)
        #expect(message.bodyPlain?.count == 100)
    }

    @Test func deepNestingIsCapped() {
        var text = "From: a@x.org\r\n"
        for depth in 0..<200 { text += "Content-Type: multipart/mixed; boundary=b\(depth)\r\n\r\n--b\(depth)\r\n" }
        text += "Content-Type: text/plain\r\n\r\ndeep\r\n"
        let message = MessageParser().parse(Array(text.utf8))
        #expect(message.problems.contains { $0.kind == .limit })
    }

    @Test func dedupKeyIsStableAndDistinguishing() {
        let a = parse("From: a@x.org\nTo: b@x.org\nSubject: S\nDate: Mon, 05 Jan 2026 10:00:00 +0000\n\nbody")
        let b = parse("From: A@X.ORG\nTo:  b@x.org\nSubject:  S\nDate: Mon, 05 Jan 2026 10:00:00 +0000\n\nother body")
        let c = parse("From: a@x.org\nTo: b@x.org\nSubject: T\nDate: Mon, 05 Jan 2026 10:00:00 +0000\n\nbody")
        #expect(a.dedupKey == b.dedupKey)
        #expect(a.dedupKey != c.dedupKey)
        #expect(a.dedupKey.hasPrefix("sha256:"))
    }
}
