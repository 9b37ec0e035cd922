import MIME
import Sync
import TernCore

/// The composer's `MailSyntax` from the MIME module: the Message-IDs the builder writes, and
/// recipients read strictly as typed (`RecipientSyntax`).
public struct MIMEMailSyntax: MailSyntax {
    public init() {}

    public func isValidMessageID(_ id: String) -> Bool { MessageID.isValid(id) }
    public func parseAddressList(_ text: String) -> [EmailAddress] { RecipientSyntax.parseList(text).map(EmailAddress.init) }

    public func checkAddress(_ address: String) -> AddressCheck {
        switch RecipientSyntax.check(address) {
        case .valid(let needsSMTPUTF8): .valid(needsSMTPUTF8: needsSMTPUTF8)
        case .invalid(let reason): .invalid(reason)
        }
    }
}
