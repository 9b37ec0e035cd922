import MIME
import TernCore

/// The composer's `MailSyntax` from the MIME module: the Message-IDs the builder writes, and
/// recipients read strictly as typed (`RecipientSyntax`).
public struct MIMEMailSyntax: MailSyntax {
    public init() {}

    public func isValidMessageID(_ id: String) -> Bool { MessageID.isValid(id) }
    public func parseAddressList(_ text: String) -> [EmailAddress] { RecipientSyntax.parseList(text) }
    public func checkAddress(_ address: String) -> AddressCheck { RecipientSyntax.check(address) }
}
