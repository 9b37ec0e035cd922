import Foundation
import Sync
import TernCore
import Testing

@testable import MIME

@Suite struct MessageBuilderTests {
    let alice = MailboxAddress(name: "Alice Example", address: "alice@tern.test")
    let bob = MailboxAddress(name: "Bob", address: "bob@tern.test")

    func build(_ message: OutgoingMIMEMessage) throws -> (bytes: [UInt8], parsed: ParsedMessage) {
        let bytes = try MessageBuilder().build(message)
        return (bytes, MessageParser().parse(bytes))
    }

    @Test func roundTripsEveryField() throws {
        let date = Date(timeIntervalSince1970: 1_767_607_200)
        let message = OutgoingMIMEMessage(
            from: MailboxAddress(name: "Zoë Dubois", address: "zoe@example.fr"),
            to: [bob, MailboxAddress(name: "Doe, John \"JD\"", address: "john@example.com")],
            cc: [MailboxAddress(name: "田中 由紀", address: "yuki@example.jp")],
            bcc: [MailboxAddress(address: "secret@example.org")],
            subject: "Réunion — 会議 ✓ with a subject long enough that it has to be folded across several header lines",
            date: date, messageId: "<fixed@example.fr>", inReplyTo: "<parent@x>", references: ["<root@x>", "<parent@x>"],
            bodyPlain: "Hello Bob,\n\nthe café opens at 9.\n> not a quote\nFrom here on\n\n-- \nZoë",
            attachments: [
                OutgoingMIMEAttachment(filename: "Übersicht 2026.pdf", mimeType: "application/pdf", data: Data("%PDF-1.4\nbinary\u{0}\u{1}".utf8)),
                OutgoingMIMEAttachment(filename: "notes.txt", mimeType: "text/plain", data: Data("plain notes".utf8))
            ])
        let (bytes, parsed) = try build(message)
        #expect(parsed.from == [message.from])
        #expect(parsed.to == message.to)
        #expect(parsed.cc == message.cc)
        #expect(parsed.bcc.isEmpty)
        #expect(parsed.subject == message.subject)
        #expect(parsed.date == date)
        #expect(parsed.messageId == "<fixed@example.fr>")
        #expect(parsed.inReplyTo == ["<parent@x>"])
        #expect(parsed.references == ["<root@x>", "<parent@x>"])
        #expect(parsed.bodyPlain == message.bodyPlain)
        #expect(parsed.bodyHTML?.contains("the café opens at 9.") == true)
        #expect(parsed.attachments.map(\.filename) == ["Übersicht 2026.pdf", "notes.txt"])
        let pdf = try #require(parsed.attachments.first)
        #expect(parsed.content(ofPart: pdf.partId) == [UInt8](message.attachments[0].data))
        #expect(parsed.problems.isEmpty, "\(parsed.problems)")
        // Bcc never travels in the header.
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("secret@example.org"))
        #expect(!text.lowercased().contains("bcc:"))
    }

    @Test func linesAreCRLFAndShort() throws {
        let longLine = String(repeating: "word ", count: 400) + String(repeating: "x", count: 1200)
        let (bytes, parsed) = try build(OutgoingMIMEMessage(from: alice, to: [bob], subject: "long", bodyPlain: longLine))
        var previous: UInt8 = 0
        var lineLength = 0
        for byte in bytes {
            if byte == ASCII.lf {
                #expect(previous == ASCII.cr, "bare LF")
                lineLength = 0
            } else {
                lineLength += 1
            }
            #expect(lineLength <= 999)
            previous = byte
        }
        #expect(parsed.bodyPlain == longLine)
    }

    @Test(arguments: ["Subject\r\nBcc: victim@x.org", "Subject\nX: y", "Sub\rject", "nul\u{0}"])
    func headerInjectionInSubjectIsRefused(subject: String) {
        #expect(throws: MessageBuildError.self) {
            _ = try MessageBuilder().build(OutgoingMIMEMessage(from: alice, to: [bob], subject: subject, bodyPlain: "x"))
        }
    }

    @Test func headerInjectionInOtherFieldsIsRefused() {
        let cases: [OutgoingMIMEMessage] = [
            OutgoingMIMEMessage(from: MailboxAddress(name: "Eve\r\nBcc: x@y", address: "eve@x.org"), to: [bob], subject: "s", bodyPlain: "x"),
            OutgoingMIMEMessage(from: alice, to: [MailboxAddress(address: "bob@tern.test\r\nBcc: x@y")], subject: "s", bodyPlain: "x"),
            OutgoingMIMEMessage(from: alice, to: [MailboxAddress(address: "bob@tern.test>, <x@y")], subject: "s", bodyPlain: "x"),
            OutgoingMIMEMessage(
                from: alice, to: [bob], subject: "s", bodyPlain: "x",
                attachments: [OutgoingMIMEAttachment(filename: "a\r\nContent-Type: text/html", mimeType: "text/plain", data: Data())]),
            OutgoingMIMEMessage(from: alice, to: [bob], subject: "s", inReplyTo: "<a@x>\r\nBcc: x@y", bodyPlain: "x"),
            OutgoingMIMEMessage(from: alice, to: [], subject: "s", bodyPlain: "x")
        ]
        for message in cases {
            #expect(throws: MessageBuildError.self) { _ = try MessageBuilder().build(message) }
        }
    }

    @Test func generatedMessageIdUsesSenderDomainAndIsUnique() throws {
        let first = try build(OutgoingMIMEMessage(from: alice, to: [bob], subject: "s", bodyPlain: "x")).parsed.messageId
        let second = try build(OutgoingMIMEMessage(from: alice, to: [bob], subject: "s", bodyPlain: "x")).parsed.messageId
        #expect(first?.hasSuffix("@tern.test>") == true)
        #expect(first != second)
    }

    @Test func inlineImagesGoInRelated() throws {
        let (_, parsed) = try build(
            OutgoingMIMEMessage(
                from: alice, to: [bob], subject: "s", bodyPlain: "x", bodyHTML: "<img src=\"cid:pic@tern\">",
                attachments: [OutgoingMIMEAttachment(filename: "pic.png", mimeType: "image/png", data: Data([1, 2, 3]), contentId: "pic@tern")]))
        #expect(parsed.attachments.first?.isInline == true)
        #expect(parsed.attachments.first?.contentId == "pic@tern")
        #expect(parsed.bodyHTML == "<img src=\"cid:pic@tern\">")
    }

    /// CO01-16 (issue 34): the composer's inline images. RFC 2387: a `multipart/related` whose root, the HTML,
    /// comes first and is named by `type`, inside the alternative (so a plain reader never sees the images),
    /// inside the `mixed` of ordinary attachments; each image `inline` with its file name and a Content-ID
    /// (RFC 2392) the HTML's `cid:` resolves to; base64 in lines of 76; every boundary its own and in no part.
    @Test func inlineImagesAreRelatedPartsOfTheHTMLAlternative() throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<3000).map { UInt8($0 % 251) })
        let jpeg = Data([0xFF, 0xD8, 0xFF] + (0..<100).map { UInt8($0) })
        let html = "<div>Look: <img src=\"cid:image.1@tern.invalid\" alt=\"chart.png\"><br>\n<img src=\"cid:image.2@tern.invalid\" alt=\"p\"></div>"
        let (bytes, parsed) = try build(
            OutgoingMIMEMessage(
                from: alice, to: [bob], subject: "inline", bodyPlain: "Look: [image: chart.png]\n[image: p]", bodyHTML: html,
                attachments: [
                    OutgoingMIMEAttachment(filename: "chart.png", mimeType: "image/png", data: png, contentId: "image.1@tern.invalid"),
                    OutgoingMIMEAttachment(filename: "report.pdf", mimeType: "application/pdf", data: Data("%PDF-1.4".utf8)),
                    OutgoingMIMEAttachment(filename: "photo ü.jpg", mimeType: "image/jpeg", data: jpeg, contentId: "image.2@tern.invalid")
                ]))
        #expect(parsed.problems.isEmpty, "\(parsed.problems)")
        let root = parsed.structure
        #expect(root.contentType == "multipart/mixed")
        #expect(root.children.map(\.contentType) == ["multipart/alternative", "application/pdf"])
        let alternative = root.children[0]
        #expect(alternative.children.map(\.contentType) == ["text/plain", "multipart/related"])
        let related = alternative.children[1]
        #expect(related.parameters["type"] == "text/html")
        #expect(related.children.map(\.contentType) == ["text/html", "image/png", "image/jpeg"])
        let images = Array(related.children.dropFirst())
        #expect(images.map(\.contentId) == ["image.1@tern.invalid", "image.2@tern.invalid"])
        #expect(images.allSatisfy { $0.disposition == "inline" && $0.transferEncoding == "base64" })
        #expect(images.map(\.filename) == ["chart.png", "photo ü.jpg"])
        #expect(root.children[1].disposition == "attachment" && root.children[1].contentId == nil)
        // Every cid: of the HTML names one of the related parts.
        let sources = parsed.bodyHTML?.components(separatedBy: "src=\"cid:").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(sources == images.compactMap(\.contentId))
        #expect(parsed.bodyPlain == "Look: [image: chart.png]\n[image: p]")
        #expect(parsed.content(ofPart: images[0].partId) == [UInt8](png))
        #expect(parsed.content(ofPart: images[1].partId) == [UInt8](jpeg))
        // The header of each image, as written.
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("Content-ID: <image.1@tern.invalid>\r\nContent-Disposition: inline; filename=\"chart.png\"\r\n"))
        #expect(text.contains("multipart/related; type=\"text/html\"; boundary="))
        // Base64 in lines of at most 76 characters (RFC 2045 section 6.8).
        let lines = text.components(separatedBy: "\r\n")
        let imageStart = try #require(lines.firstIndex { $0.hasPrefix("Content-ID: <image.1") }) + 3
        let base64 = lines[imageStart...].prefix { !$0.isEmpty && !$0.hasPrefix("--") }
        #expect(base64.count == ((png.count + 2) / 3 * 4 + 75) / 76 && base64.allSatisfy { $0.count <= 76 })
        #expect(base64.dropLast().allSatisfy { $0.count == 76 })
        // Three boundaries, each different, none inside a part.
        let boundaries = lines.compactMap { line -> String? in
            guard let range = line.range(of: "boundary=\"") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != "\"" })
        }
        #expect(Set(boundaries).count == 3)
        for boundary in boundaries {
            let delimiters = lines.filter { $0.contains(boundary) && !$0.contains("boundary=") }
            #expect(delimiters.allSatisfy { $0 == "--\(boundary)" || $0 == "--\(boundary)--" })
        }
    }

    /// RFC 2392: a Content-ID is a msg-id's inside; anything else would write a header no reader resolves.
    @Test(arguments: ["no-at-sign", "two words@x", "@x", "x@", "a<b@x", "a@b>"])
    func contentIdsThatAreNoMsgIdAreRefused(_ contentId: String) {
        let message = OutgoingMIMEMessage(
            from: alice, to: [bob], subject: "s", bodyPlain: "x",
            attachments: [OutgoingMIMEAttachment(filename: "a.png", mimeType: "image/png", data: Data([1]), contentId: contentId)])
        #expect(throws: MessageBuildError.invalidContentID(contentId)) { try MessageBuilder().build(message) }
    }

    /// RFC 3676 section 4.5: a reply's quotes are quote depth, not text that starts with ">": a flowed reader
    /// shows them as quotes, and a long quoted line wraps with its marks on every piece.
    @Test func quotesAreQuoteDepthInFormatFlowed() throws {
        let long = Array(repeating: "word", count: 40).joined(separator: " ")
        let body = "Reply.\nOn Monday, Zoe wrote:\n> First line\n>> Older line\n>\n> \(long)"
        let encoded = MessageBuilder.encodeFlowed(body)
        let lines = encoded.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[2] == "> First line" && lines[3] == ">> Older line" && lines[4] == ">")
        #expect(lines.dropFirst(5).allSatisfy { $0.hasPrefix("> word") } && lines.count > 6, "every piece carries the marks")
        #expect(lines.allSatisfy { $0.count <= 78 })
        #expect(FormatFlowed.decode(encoded, delSp: false) == body.replacingOccurrences(of: "\n>\n", with: "\n> \n"))
    }

    @Test(arguments: ["utf-8 ✓ ünïcödé", "plain ascii", "日本語のテキストです。日本語のテキストです。", "tab\tand trailing space \nnext", ".\nFrom the start\n.."])
    func bodiesRoundTrip(body: String) throws {
        // Trailing spaces of a line are dropped: in format=flowed they would join the next line.
        let (_, parsed) = try build(OutgoingMIMEMessage(from: alice, to: [bob], subject: "round trip", bodyPlain: body))
        #expect(parsed.bodyPlain == body.replacingOccurrences(of: " \n", with: "\n"))
        let subject = body.replacingOccurrences(of: "\n", with: " ")
        #expect(try build(OutgoingMIMEMessage(from: alice, to: [bob], subject: subject, bodyPlain: "x")).parsed.subject == subject)
    }
}

/// Build → parse gives back every field, for text in every script and every structure the builder makes.
@Suite struct RoundTripMatrixTests {
    static let scripts = [
        "plain ASCII text", "Grüße aus Köln, ça va? Ñandú", "Привет, как дела? Отчёт готов", "Γειά σου κόσμε",
        "会議の議事録を送ります", "项目进度更新：本周完成", "季度報告草稿已完成", "다음 주 회의 일정", "مرحبا بالعالم", "שלום עולם",
        "नमस्ते दुनिया", "สวัสดีชาวโลก", "emoji 🌍☕️👩‍💻 and ZWJ", "mixed: café 中文 Ελληνικά 🙂"
    ]
    static let structures = ["plain", "html", "attachments", "inline", "reply"]

    @Test(arguments: scripts, structures)
    func roundTrips(text: String, structure: String) throws {
        let longBody = text + "\n\n" + Array(repeating: text, count: 30).joined(separator: " ") + "\n> not a quote\n-- \nsig"
        var message = OutgoingMIMEMessage(
            from: MailboxAddress(name: text, address: "sender@example.org"), to: [MailboxAddress(name: "Re: \(text)", address: "to@example.org")],
            cc: [MailboxAddress(name: text + ", Jr.", address: "cc@example.org")], subject: text, date: Date(timeIntervalSince1970: 1_767_607_200),
            bodyPlain: longBody)
        switch structure {
        case "html": message.bodyHTML = "<p>\(text)</p>"
        case "attachments":
            message.attachments = [
                OutgoingMIMEAttachment(filename: "\(text).pdf", mimeType: "application/pdf", data: Data((0..<3000).map { UInt8($0 % 256) })),
                OutgoingMIMEAttachment(filename: "notes.txt", mimeType: "text/plain", data: Data(text.utf8))
            ]
        case "inline":
            message.bodyHTML = "<p>\(text)</p><img src=\"cid:img@x\">"
            message.attachments = [
                OutgoingMIMEAttachment(filename: "image.png", mimeType: "image/png", data: Data([0x89, 0x50, 0x4E, 0x47]), contentId: "img@x")
            ]
        case "reply":
            message.inReplyTo = "<parent@example.org>"
            message.references = ["<root@example.org>", "<parent@example.org>"]
        default: break
        }
        let bytes = try MessageBuilder().build(message)
        let parsed = MessageParser().parse(bytes)
        #expect(parsed.problems.isEmpty, "\(parsed.problems)")
        #expect(parsed.subject == text)
        #expect(parsed.from == [message.from])
        #expect(parsed.to == message.to)
        #expect(parsed.cc == message.cc)
        #expect(parsed.date == message.date)
        #expect(parsed.bodyPlain == longBody)
        if let html = message.bodyHTML {
            #expect(parsed.bodyHTML == html)
        } else {
            #expect(parsed.bodyHTML?.contains(text.replacingOccurrences(of: "&", with: "&amp;")) == true)
        }
        #expect(parsed.attachments.map(\.filename) == message.attachments.map { MIMEPart.sanitizedFilename($0.filename) })
        for (attachment, original) in zip(parsed.attachments, message.attachments) {
            #expect(parsed.content(ofPart: attachment.partId) == [UInt8](original.data))
            #expect(attachment.contentId == original.contentId)
        }
        #expect(parsed.inReplyTo == (message.inReplyTo.map { [$0] } ?? []))
        #expect(parsed.references == message.references)
    }
}

@Suite struct EmailMappingTests {
    @Test func unreadableDateFallsBackToInternalDateNotNow() {
        let parsed = MessageParser().parse(Array("From: a@x.org\r\nDate: garbage\r\nSubject: s\r\n\r\nbody text here".utf8))
        let serverDate = Date(timeIntervalSince1970: 1_000_000)
        let email = parsed.email(accountId: "acc", internalDate: serverDate, sizeBytes: 40)
        #expect(email.dateSent == nil)
        #expect(email.displayDate == serverDate)
        #expect(email.snippet == "body text here")
    }

    /// Issue 37: where a read receipt would go is kept with the message: `Disposition-Notification-To`,
    /// else `Return-Receipt-To`, at most three addresses.
    @Test func readReceiptRequestsAreKept() {
        func receiptTo(_ headers: String) -> [String] {
            MessageParser().parse(Array("From: a@x.org\r\n\(headers)\r\nbody".utf8))
                .email(accountId: "acc", internalDate: Date(), sizeBytes: 10).readReceiptTo.map(\.address)
        }
        #expect(receiptTo("Disposition-Notification-To: Zoe <zoe@x.org>\r\nReturn-Receipt-To: old@x.org\r\n") == ["zoe@x.org"])
        #expect(receiptTo("Return-Receipt-To: old@x.org\r\n") == ["old@x.org"])
        #expect(receiptTo("Disposition-Notification-To: a@x.org, b@x.org, c@x.org, d@x.org\r\n") == ["a@x.org", "b@x.org", "c@x.org"])
        #expect(receiptTo("Disposition-Notification-To: not an address\r\n") == [])
        #expect(receiptTo("Subject: none\r\n") == [])
    }

    /// Issue 37: an `Original-Recipient` field is kept for the MDN to repeat (RFC 8098 section
    /// 3.2.3), only as one plain rfc822 address, and only when a receipt is asked for.
    @Test func theOriginalRecipientIsKeptForAReceiptRequest() {
        func kept(_ field: String, asking: Bool = true) -> String? {
            let ask = asking ? "Disposition-Notification-To: zoe@x.org\r\n" : ""
            return MessageParser().parse(Array("From: a@x.org\r\n\(ask)Original-Recipient: \(field)\r\n\r\nbody".utf8))
                .email(accountId: "acc", internalDate: Date(), sizeBytes: 10).originalRecipient
        }
        #expect(kept("rfc822;bob@x.org") == "bob@x.org")
        #expect(kept(" RFC822 ; bob@x.org ") == "bob@x.org")
        #expect(kept("rfc822;bob@x.org", asking: false) == nil)
        #expect(kept("x400;c=us;a=b") == nil)
        #expect(kept("rfc822;bob@x.org, eve@x.org") == nil)
        #expect(kept("rfc822;<bob@x.org>") == nil)
        #expect(kept("rfc822;no-at-sign") == nil)
        #expect(kept("rfc822;" + String(repeating: "a", count: 300) + "@x.org") == nil)
    }

    /// Issue 19: the headers that make smart replies stay silent are kept with the message.
    @Test func bulkHeadersBecomeMarkers() {
        let list = MessageParser().parse(Array("From: a@x.org\r\nList-Id: Team <team.x.org>\r\nPrecedence: list\r\n\r\nbody".utf8))
        #expect(list.email(accountId: "acc", internalDate: Date(), sizeBytes: 10).bulkMarkers == [.listId, .bulkPrecedence])
        let reply = MessageParser().parse(Array("From: a@x.org\r\nAuto-Submitted: no\r\n\r\nbody".utf8))
        #expect(reply.email(accountId: "acc", internalDate: Date(), sizeBytes: 10).bulkMarkers == [])
    }

    @Test func duplicateMessageIdKeepsHeaderForThreading() {
        let parsed = MessageParser().parse(Array("From: a@x.org\r\nMessage-ID: <dup@x>\r\n\r\nbody".utf8))
        let email = parsed.email(accountId: "acc", internalDate: Date(), sizeBytes: 10, messageIdIsReliable: false)
        #expect(email.messageId == nil)
        #expect(email.headerMessageId == "<dup@x>")
        #expect(email.dedupKey == parsed.dedupKey)
    }
}
