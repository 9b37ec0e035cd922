import Foundation
import IMAP
import TernCore
import Testing

@testable import TernRuntime

/// Issue 33: the drafts adapters. The Drafts mailbox keeps a refused sign-in apart from a dropped
/// connection (it once turned every IMAP error into a retryable `connectionLost`), and the local
/// copies of a draft's files are kept as the comments of `LocalDraftFiles` say (issue 32).
@Suite(.timeLimit(.minutes(1)))
struct LiveDraftsTests {
    @Test func theDraftsMailboxKeepsARefusedSignInApartFromADrop() async {
        let cases: [(IMAPError, TernError)] = [
            (.authenticationFailed("bad password"), .authenticationRefused("bad password")),
            (.server(status: .no, text: "over quota"), .serverFailure(IMAPError.server(status: .no, text: "over quota").description)),
            (.timeout("no answer"), .connectionLost(IMAPError.timeout("no answer").description))
        ]
        for (failure, expected) in cases {
            let drafts = LiveDraftMailbox(connections: failingPools(failure))
            await #expect(throws: expected) {
                _ = try await drafts.perform([], draftsMailbox: "Drafts", account: liveTestAccount(), credentials: passwordCredentials())
            }
        }
    }

    static func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-draft-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func aKeptFileIsAnOwnerOnlyCopyAndNamesDoNotCollide() throws {
        let scratch = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let original = scratch.appendingPathComponent("report.pdf")
        try Data("first".utf8).write(to: original)
        let files = LocalDraftFiles(directory: scratch.appendingPathComponent("drafts"))
        let kept = try files.keep(original.path, key: "<d1@tern.test>")
        #expect(kept != original.path && kept.hasSuffix("/report.pdf"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: kept)) == Data("first".utf8))
        let mode = try FileManager.default.attributesOfItem(atPath: kept)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // The original changes after it was attached: the draft keeps what was attached.
        try Data("second".utf8).write(to: original)
        let again = try files.keep(original.path, key: "<d1@tern.test>")
        #expect(again.hasSuffix("/2-report.pdf"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: kept)) == Data("first".utf8))
        #expect(try files.keep(kept, key: "<d1@tern.test>") == kept, "a file already kept is not copied again")
        files.removeAll(key: "<d1@tern.test>")
        #expect(!FileManager.default.fileExists(atPath: kept))
    }

    @Test func aFileThatIsGoneIsNotFound() throws {
        let scratch = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let files = LocalDraftFiles(directory: scratch)
        #expect {
            _ = try files.keep(scratch.appendingPathComponent("missing.txt").path, key: "<d2@tern.test>")
        } throws: { error in
            guard case .notFound(let text) = error as? TernError else { return false }
            return text.contains("missing.txt")
        }
    }

    @Test func eachDraftsFolderIsNamedByItsMessageIDsHash() {
        let name = LocalDraftFiles.name("<d1@tern.test>")
        #expect(name.count == 24 && name.allSatisfy(\.isHexDigit))
        #expect(name == LocalDraftFiles.name("<d1@tern.test>") && name != LocalDraftFiles.name("<d2@tern.test>"))
        #expect(!name.contains("tern"), "the folder does not show the Message-ID")
    }
}
