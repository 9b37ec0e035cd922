import MIME
import TernCore

extension EmailAddress {
    /// Issue 33: MIME reads mailboxes in its own type; the domain's address is made of one here,
    /// the one conversion of parsed addresses (sync, drafts read back, typed recipients).
    public init(_ mailbox: MailboxAddress) {
        self.init(name: mailbox.name, address: mailbox.address)
    }
}
