import Foundation
import MIME
import Sync
import TernCore

/// `DraftMessageCoding` on MIME's builder and parser (FR-COMP-01 "Draft lifecycle"; issue 33: the
/// adapter lives in the runtime, MIME knows nothing of drafts): a draft as the message other clients find
/// in the Drafts mailbox, and a draft another client wrote read back into the composer's fields.
/// The text part is the Markdown source as typed, so a draft resumed anywhere reads as written;
/// the HTML alternative is its rendering, as a send would write it.
public struct DraftMessageCodec: DraftMessageCoding {
    public init() {}

    public func encode(_ draft: ComposeDraft, messageId: String, attachments: [OutgoingAttachment], date: Date) throws -> [UInt8] {
        // Half-typed addresses stay in the local draft; the server copy carries only what is an address.
        func addresses(_ list: [EmailAddress]) -> [EmailAddress] { list.filter { MessageBuilder.isValidAddress($0.address) } }
        // CO01-16: the HTML shows the inline images; the text part keeps their `![name](cid:…)` as typed.
        let rendered = draft.renderedBody
        let message = OutgoingMessage(
            from: draft.from, to: addresses(draft.to), cc: addresses(draft.cc), bcc: addresses(draft.bcc), subject: draft.subject, date: date,
            messageId: messageId, inReplyTo: draft.inReplyTo.flatMap { MessageID.isValid($0) ? $0 : nil },
            references: draft.references.filter(MessageID.isValid), bodyPlain: draft.body, bodyHTML: rendered.htmlDocument, attachments: attachments)
        do {
            return try MessageBuilder().build(OutgoingMIMEMessage(message), draft: true)
        } catch let error as MessageBuildError {
            throw TernError.invalidInput(error.description)
        }
    }

    public func decode(_ raw: [UInt8]) -> DecodedDraft {
        let parsed = MessageParser().parse(raw)
        return DecodedDraft(
            from: parsed.from.first.map(EmailAddress.init), to: parsed.to.map(EmailAddress.init), cc: parsed.cc.map(EmailAddress.init),
            bcc: parsed.bcc.map(EmailAddress.init), subject: parsed.subject,
            body: parsed.bodyPlain ?? "", inReplyTo: parsed.inReplyTo.first, references: parsed.references,
            // Inline images too (CO01-16): a draft's pasted images stay when another device's version replaces it.
            attachmentNames: parsed.attachments.map(\.filename))
    }

    public func newMessageId(for sender: EmailAddress) -> String {
        MessageBuilder.generateMessageID(domain: sender.address.split(separator: "@").last.map(String.init) ?? "localhost")
    }
}
