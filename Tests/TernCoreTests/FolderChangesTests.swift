import Foundation
import Testing

@testable import TernCore

/// Issue 36: what a folder change refuses before the server is asked (the server's own answers are
/// in SystemTests/integration/test_folders.py).
struct FolderChangesTests {
    let account = AccountID("acc")
    var folders: [Folder] {
        [
            Folder(accountId: account, path: "INBOX", folderType: .inbox), Folder(accountId: account, path: "Sent", folderType: .sent),
            Folder(accountId: account, path: "Snoozed", folderType: .custom), Folder(accountId: account, path: "Work", folderType: .custom),
            Folder(accountId: account, path: "[Gmail]", folderType: .container)
        ]
    }

    @Test func aNewFolderNeedsAFreeUsableName() throws {
        try FolderChangesUseCase.check(.create(path: "Projects/2026"), against: folders)
        #expect(throws: TernError.alreadyExists("folder 'Work'")) { try FolderChangesUseCase.check(.create(path: "Work"), against: folders) }
        #expect(throws: TernError.alreadyExists("folder 'INBOX'")) { try FolderChangesUseCase.check(.create(path: "inbox"), against: folders) }
        for name in ["", " Work2", "a*b", "a%b", "bad\u{7}name"] {
            #expect(throws: TernError.self, "\(name)") { try FolderChangesUseCase.check(.create(path: name), against: folders) }
        }
    }

    @Test func theAccountsSpecialFoldersAndSnoozedAreKept() throws {
        try FolderChangesUseCase.check(.rename(from: "Work", to: "Jobs"), against: folders)
        try FolderChangesUseCase.check(.delete(path: "Work"), against: folders)
        for path in ["INBOX", "Sent", "Snoozed", "[Gmail]"] {
            #expect(throws: TernError.self, "\(path)") { try FolderChangesUseCase.check(.delete(path: path), against: folders) }
            #expect(throws: TernError.self, "\(path)") { try FolderChangesUseCase.check(.rename(from: path, to: "Other"), against: folders) }
        }
    }

    @Test func aFolderThatIsNotThereOrANameTakenIsRefused() {
        #expect(throws: TernError.notFound("folder 'Gone'")) { try FolderChangesUseCase.check(.delete(path: "Gone"), against: folders) }
        #expect(throws: TernError.alreadyExists("folder 'Sent'")) {
            try FolderChangesUseCase.check(.rename(from: "Work", to: "Sent"), against: folders)
        }
    }
}
