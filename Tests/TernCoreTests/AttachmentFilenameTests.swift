import FileNameSafety
import Foundation
import Testing

@testable import TernCore

/// Issue 21: attachment names are a stranger's text that becomes a file name and is shown.
@Suite struct AttachmentFilenameTests {
    /// 200 characters of CJK or emoji are 600-800 bytes: saving failed with ENAMETOOLONG.
    @Test(arguments: [
        String(repeating: "報", count: 200) + ".pdf", String(repeating: "👩‍💻", count: 120) + ".tar.gz",
        String(repeating: "é", count: 300), "a" + String(repeating: "\u{301}", count: 600) + ".txt"
    ])
    func savedNamesFitOnePathComponent(name: String) throws {
        let fileName = DownloadAttachmentUseCase.fileName(attachmentId: AttachmentID(Int64.max), filename: name)
        #expect(fileName.utf8.count <= 255)
        #expect(fileName.hasPrefix("\(Int64.max)-"))
        if let dot = name.lastIndex(of: ".") { #expect(fileName.hasSuffix(name[dot...])) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-filename-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(FileManager.default.createFile(atPath: directory.appendingPathComponent(fileName).path, contents: Data("x".utf8)))
    }

    @Test func cutKeepsTheExtensionAndWholeCharacters() {
        let name = String(repeating: "日本", count: 100) + ".pdf"
        let cut = AttachmentFilename.sanitized(name)
        #expect(cut.utf8.count <= 255 && cut.utf8.count > 250)
        #expect(cut.hasSuffix("日.pdf") || cut.hasSuffix("本.pdf"))
        #expect(AttachmentFilename.sanitized("short.pdf") == "short.pdf")
    }

    /// A right-to-left override shows `invoice‮fdp.exe` as `invoiceexe.pdf`.
    @Test(arguments: [
        ("invoice\u{202E}fdp.exe", "invoicefdp.exe"), ("a\u{202A}\u{202B}\u{202C}\u{202D}b", "ab"),
        ("\u{2066}x\u{2067}\u{2068}\u{2069}y", "xy"), ("l\u{200E}r\u{200F}.txt", "lr.txt"), ("arabic\u{061C}mark", "arabicmark"),
        ("c1\u{0085}next\u{009B}31m.txt", "c1next31m.txt"), ("del\u{7F}\u{1B}[2J.txt", "del[2J.txt"),
        ("line\u{2028}para\u{2029}.txt", "linepara.txt"), ("../../.bashrc\r\n", "bashrc"), ("C:\\docs\\a.pdf", "a.pdf"),
        ("\u{202E}", "attachment"), ("  spaced name.pdf  ", "spaced name.pdf"), ("日本語.pdf", "日本語.pdf")
    ])
    func controlsAreDropped(name: String, expected: String) {
        #expect(AttachmentFilename.sanitized(name) == expected)
        #expect(DownloadAttachmentUseCase.fileName(attachmentId: 7, filename: name) == "7-" + expected)
    }
}
