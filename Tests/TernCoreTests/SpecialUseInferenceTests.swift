import TernCore
import Testing

/// Issue 22: a server that does not mark its folders (no SPECIAL-USE) has its Sent, Drafts, Trash,
/// Junk and Archive recognised by name, at the top of the personal namespace only.
struct SpecialUseInferenceTests {
    func roles(_ listing: [(String, FolderType)], delimiter: String = ".") -> [String: FolderType] {
        let folders = listing.map { DiscoveredFolder(path: $0.0, delimiter: delimiter, folderType: $0.1) }
        return Dictionary(uniqueKeysWithValues: SpecialUseInference.completing(folders).map { ($0.path, $0.folderType) })
    }

    @Test func cyrusFoldersUnderTheInboxAreNamedRoles() {
        let found = roles([
            ("INBOX", .inbox), ("INBOX.Sent", .custom), ("INBOX.Drafts", .custom), ("INBOX.Trash", .custom),
            ("INBOX.Junk", .custom), ("INBOX.Archive", .custom), ("INBOX.Projects", .custom)
        ])
        #expect(
            found == [
                "INBOX": .inbox, "INBOX.Sent": .sent, "INBOX.Drafts": .drafts, "INBOX.Trash": .trash,
                "INBOX.Junk": .spam, "INBOX.Archive": .archive, "INBOX.Projects": .custom
            ])
    }

    @Test func localizedAndExchangeNamesWithoutCaseOrAccents() {
        let found = roles(
            [
                ("INBOX", .inbox), ("Éléments envoyés", .custom), ("PAPIERKORB", .custom), ("Entwurfe", .custom),
                ("Junk E-mail", .custom)
            ], delimiter: "/")
        #expect(
            found["Éléments envoyés"] == .sent && found["PAPIERKORB"] == .trash && found["Entwurfe"] == .drafts
                && found["Junk E-mail"] == .spam)
    }

    @Test func aMarkedRoleIsNeverTakenFromANameAndNestedFoldersAreTheUsers() {
        let found = roles(
            [
                ("INBOX", .inbox), ("Deleted Items", .trash), ("Trash", .custom), ("Projects/Sent", .custom),
                ("[Gmail]/All Mail", .all), ("Archive", .custom)
            ], delimiter: "/")
        #expect(found["Trash"] == .custom, "the server marked Deleted Items")
        #expect(found["Projects/Sent"] == .custom, "not at the top of the namespace")
        #expect(found["Archive"] == .custom, "Gmail's All Mail is the archive")
    }

    @Test func thePreferredNameWinsWhenSeveralMatch() {
        let found = roles([("INBOX", .inbox), ("Deleted Messages", .custom), ("Trash", .custom), ("INBOX.Trash", .custom)])
        #expect(found["Trash"] == .trash && found["INBOX.Trash"] == .custom && found["Deleted Messages"] == .custom)
    }
}
