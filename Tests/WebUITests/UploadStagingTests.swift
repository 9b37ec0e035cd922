import FileNameSafety
import Foundation
import Testing
import TernCore
@testable import WebUI

/// Issue 32: a browser's file name is a stranger's text like a received attachment's, and is made
/// safe by the same sanitizer on upload, before any draft holds it.
@Suite struct UploadStagingTests {
    @Test(arguments: [
        ("../evil\r\nX: y.txt", "evilX: y.txt"),
        ("..\\..\\boot.ini", "boot.ini"),
        ("\u{1B}[31mred\u{7}.pdf", "[31mred.pdf"),
        ("invoice\u{202E}fdp.exe", "invoicefdp.exe"),
        (".hidden", "hidden"),
        ("  ", "attachment"),
    ])
    func uploadedNamesAreSanitizedAsReceivedNamesAre(name: String, expected: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-uploads-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let upload = try UploadStaging(directory: directory).store(bytes: Array("x".utf8), filename: name, mimeType: "text/plain")
        #expect(upload.name == expected)
        #expect(upload.name == AttachmentFilename.sanitized(name))
    }
}
