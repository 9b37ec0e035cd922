import Foundation
import Testing

/// Issue 32: a file attached from the command line is taken into `$TERN_HOME` as a copy of its
/// bytes, and nothing outside the home has its mode changed.
@Suite struct AttachedFileTests {
    /// An account whose servers refuse at once (port 9), so a saved draft stays local.
    func ternWithAccount() throws -> TernProcess {
        var tern = TernProcess()
        tern.environment["TERN_TEST_SECRET"] = "pw-\(UUID().uuidString)"
        let added = try tern.run(
            "account", "add", "work", "--email", "me@tern.test", "--imap", "127.0.0.1:9", "--smtp", "127.0.0.1:9",
            "--user", "me", "--password-env", "TERN_TEST_SECRET")
        #expect(added.status == 0, "\(added.stderr)")
        return tern
    }

    func json(_ result: TernProcess.Result) throws -> [String: Any] {
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test func attachingALinkCopiesItsTargetNowAndLeavesTheTargetsModeAlone() throws {
        let tern = try ternWithAccount()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tern-attach-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = folder.appendingPathComponent("report.txt")
        let other = folder.appendingPathComponent("other.txt")
        let link = folder.appendingPathComponent("link.txt")
        try Data("as attached".utf8).write(to: original)
        try Data("another file".utf8).write(to: other)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: original.path)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: original.path)

        let saved = try json(
            try tern.run(
                "compose", "--to", "you@tern.test", "--subject", "Report", "--body", "Attached.",
                "--attach", link.path, "--draft", "--json"))
        let mode = try FileManager.default.attributesOfItem(atPath: original.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o644)

        // The link's target changes, and then the link itself: the draft keeps what was attached.
        try Data("changed later".utf8).write(to: original)
        try FileManager.default.removeItem(at: link)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: other.path)
        let draftId = try #require(saved["draftId"] as? Int)
        let shown = try json(try tern.run("drafts", "show", "d\(draftId)", "--json"))
        let attachments = try #require(shown["attachments"] as? [[String: Any]])
        let kept = try #require(attachments.first?["path"] as? String)
        #expect(attachments.first?["filename"] as? String == "link.txt")
        #expect(kept.hasPrefix(tern.home.path + "/"))
        let attributes = try FileManager.default.attributesOfItem(atPath: kept)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(String(decoding: try Data(contentsOf: URL(fileURLWithPath: kept)), as: UTF8.self) == "as attached")
    }

    @Test func attachingAFolderIsRefused() throws {
        let tern = try ternWithAccount()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tern-attach-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try tern.run("compose", "--to", "you@tern.test", "--subject", "Folder", "--body", "b", "--attach", folder.path, "--draft")
        #expect(result.status != 0)
        #expect(result.stderr.contains("not a regular file"), "\(result.stderr)")
    }
}
