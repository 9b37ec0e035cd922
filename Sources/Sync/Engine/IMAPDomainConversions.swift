import IMAP
import TernCore

extension FolderType {
    /// Issue 33: IMAP says what a mailbox is for (`MailboxRole`); the domain's folder type is made
    /// of it here. FR-SYNC-01 step 1: `\\All` and `\\Important` are kept apart (never synced).
    public init(_ role: MailboxRole) {
        self =
            switch role {
            case .inbox: .inbox
            case .sent: .sent
            case .drafts: .drafts
            case .trash: .trash
            case .junk: .spam
            case .flagged: .starred
            case .all: .all
            case .important: .important
            case .archive: .archive
            case .container: .container
            case .ordinary: .custom
            }
    }
}

extension MailboxListing {
    /// The folder type the domain gives this mailbox.
    public var folderType: FolderType { FolderType(role) }
}
