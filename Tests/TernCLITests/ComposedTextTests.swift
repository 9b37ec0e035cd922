import Foundation
import TernCore
import TernRuntime
import Testing

@testable import TernCLI

/// Issue 32: the text form (`--print`, the `$EDITOR` file) shows an attachment's invisible
/// characters as markers, and the editor's `Attachment:` line written that way still keeps it.
@Suite struct ComposedTextTests {
    static let name = "invoice\u{200B}.exe"

    func draft() -> ComposeDraft {
        ComposeDraft(
            mode: .new, accountId: "work", from: EmailAddress(name: nil, address: "me@tern.test"), subject: "Files", body: "Here.",
            attachments: [
                ComposedAttachment(
                    source: .file(path: "/nonexistent/\(Self.name)"), filename: Self.name,
                    mimeType: "application/octet-stream", sizeBytes: 10, availability: .local)
            ])
    }

    @Test func theEditorShowsMarkersAndItsAttachmentLineKeepsTheFile() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("tern-text-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let services = try TernServices.open(environment: ["TERN_HOME": home.path])
        let text = ComposedOutput.text(draft())
        #expect(text.contains("Attachment: invoice⟨U+200B⟩.exe (10 bytes)"))
        #expect(!text.unicodeScalars.contains("\u{200B}"))
        #expect(try MessageEditor.parse(text, into: draft(), services: services).attachments.map(\.filename) == [Self.name])
        let removed = text.replacingOccurrences(of: "Attachment: invoice⟨U+200B⟩.exe (10 bytes)\n", with: "")
        #expect(try MessageEditor.parse(removed, into: draft(), services: services).attachments.isEmpty)
    }
}
