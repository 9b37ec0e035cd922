import Foundation
import MIME
import Sync
import TernCore

/// `MessageComposing` on `MessageBuilder` (FR-SYNC-07): the message gets its Message-ID here, once,
/// so every attempt sends the same bytes and the Sent check after a crash can find them. The Email
/// row is read back from those bytes by the same parser sync uses, so the Sent copy, when synced,
/// deduplicates onto it (same Message-ID, same canonical key). The builder's refusals (header
/// injection, bad addresses) are input errors.
public struct OutgoingMessageComposer: MessageComposing {
    public init() {}

    public func compose(_ message: OutgoingMessage, accountId: Account.ID, at date: Date) throws -> ComposedMessage {
        var message = message
        message.date = date
        // MessageBuilder gives the message its Message-ID; the Email row reads it back from the bytes.
        let raw: [UInt8]
        do {
            raw = try MessageBuilder().build(OutgoingMIMEMessage(message))
        } catch let error as MessageBuildError {
            throw TernError.invalidInput(error.description)
        }
        var email = MessageParser().parse(raw).email(accountId: accountId, internalDate: date, sizeBytes: Int64(raw.count))
        // Kept locally only: the sender's own record of whom the message went to.
        email.bccAddresses = message.bcc
        email.isRead = true
        return ComposedMessage(raw: raw, email: email,
                               envelope: MessageEnvelope(sender: message.from.address, recipients: message.envelopeRecipients))
    }
}
