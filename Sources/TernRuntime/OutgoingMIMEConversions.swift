import MIME
import TernCore

/// Issue 33: MIME's builder takes its own types; the core's message to send is made into one here,
/// the one conversion on the building side (sends, drafts' server copies, `tern-bench`).
extension OutgoingMIMEMessage {
    public init(_ message: OutgoingMessage) {
        self.init(
            from: MailboxAddress(message.from), to: message.to.map(MailboxAddress.init), cc: message.cc.map(MailboxAddress.init),
            bcc: message.bcc.map(MailboxAddress.init), replyTo: message.replyTo.map(MailboxAddress.init), subject: message.subject,
            date: message.date, messageId: message.messageId, inReplyTo: message.inReplyTo, references: message.references,
            bodyPlain: message.bodyPlain, bodyHTML: message.bodyHTML, attachments: message.attachments.map(OutgoingMIMEAttachment.init))
        dispositionNotification = message.dispositionNotice.map {
            DispositionNotificationFields(
                reportingUA: $0.reportingUA, originalRecipient: $0.originalRecipient, finalRecipient: $0.finalRecipient,
                originalMessageId: $0.originalMessageId,
                disposition: $0.disposition)
        }
    }
}

extension OutgoingMIMEAttachment {
    public init(_ attachment: OutgoingAttachment) {
        self.init(filename: attachment.filename, mimeType: attachment.mimeType, data: attachment.data, contentId: attachment.contentId)
    }
}

extension MailboxAddress {
    public init(_ address: EmailAddress) {
        self.init(name: address.name, address: address.address)
    }
}
