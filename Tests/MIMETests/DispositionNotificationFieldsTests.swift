import Foundation
import Testing

@testable import MIME

/// Issue 37: a read receipt is RFC 8098's `multipart/report` (RFC 6522) of a human part and the
/// `message/disposition-notification` fields.
@Suite struct DispositionNotificationFieldsTests {
    let bob = MailboxAddress(name: "Bob", address: "bob@tern.test")
    let alice = MailboxAddress(address: "alice@tern.test")

    func receipt(_ fields: DispositionNotificationFields) -> OutgoingMIMEMessage {
        var message = OutgoingMIMEMessage(from: bob, to: [alice], subject: "Read: Plans", bodyPlain: "This is a read receipt.")
        message.dispositionNotification = fields
        return message
    }

    let fields = DispositionNotificationFields(
        reportingUA: "Tern", finalRecipient: "bob@tern.test", originalMessageId: "<plans@tern.test>",
        disposition: "manual-action/MDN-sent-manually; displayed")

    @Test func aReceiptIsAReportOfAHumanPartAndTheNotificationFields() throws {
        let bytes = try MessageBuilder().build(receipt(fields))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("Content-Type: multipart/report; report-type=disposition-notification; boundary="))
        let parsed = MessageParser().parse(bytes)
        #expect(parsed.bodyPlain?.contains("This is a read receipt.") == true)
        let notification = try #require(text.range(of: "Content-Type: message/disposition-notification\r\n"))
        let part = text[notification.upperBound...]
        #expect(
            part.contains(
                "\r\n\r\nReporting-UA: Tern\r\nFinal-Recipient: rfc822;bob@tern.test\r\nOriginal-Message-ID: <plans@tern.test>\r\nDisposition: manual-action/MDN-sent-manually; displayed\r\n"
            ))
        #expect(!text.contains("text/html"), "no HTML alternative in a receipt")
        #expect(!text.contains("Original-Recipient"), "never guessed")
        #expect(parsed.to.map(\.address) == ["alice@tern.test"])
        #expect(parsed.subject == "Read: Plans")
    }

    @Test func anOriginalMessageIdWithoutBracketsGetsThem() throws {
        var bare = fields
        bare.originalMessageId = "plans@tern.test"
        let text = String(decoding: try MessageBuilder().build(receipt(bare)), as: UTF8.self)
        #expect(text.contains("Original-Message-ID: <plans@tern.test>\r\n"))
    }

    @Test func aLineBreakInAFieldIsRefusedNotWritten() {
        var injected = fields
        injected.originalMessageId = "<a@b>\r\nDisposition: automatic-action/MDN-sent-automatically; deleted"
        #expect(throws: MessageBuildError.lineBreakInField("Original-Message-ID")) { try MessageBuilder().build(receipt(injected)) }
        var badRecipient = fields
        badRecipient.finalRecipient = "bob@tern.test\nX: y"
        #expect(throws: MessageBuildError.self) { try MessageBuilder().build(receipt(badRecipient)) }
    }
}
