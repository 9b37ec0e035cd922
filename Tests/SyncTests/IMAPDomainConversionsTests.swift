import IMAP
import Sync
import TernCore
import Testing

/// Issue 33: IMAP names what a mailbox is for; the domain's folder type is made of it in Sync.
struct IMAPDomainConversionsTests {
    @Test func everyRoleHasItsFolderType() {
        let expected: [MailboxRole: FolderType] = [
            .inbox: .inbox, .sent: .sent, .drafts: .drafts, .trash: .trash, .junk: .spam, .flagged: .starred, .all: .all,
            .important: .important, .archive: .archive, .container: .container, .ordinary: .custom
        ]
        #expect(Set(expected.keys) == Set(MailboxRole.allCases))
        for (role, type) in expected { #expect(FolderType(role) == type, "\(role)") }
    }

    /// FR-SYNC-01 step 1: `\All`, `\Important` and unselectable mailboxes are never synced; `\Archive` is.
    @Test func onlySyncableRolesAreSynced() {
        let unsynced = MailboxRole.allCases.filter { !FolderType($0).isSyncable }
        #expect(Set(unsynced) == [.all, .important, .container])
        let listing = MailboxListing(attributes: ["\\HasNoChildren", "\\Archive"], delimiter: "/", name: "Archive", rawName: "Archive")
        #expect(listing.folderType == .archive && listing.folderType.isSyncable)
    }
}
