import FileNameSafety
import Testing
@testable import TernCore

/// Issue 32: invisible characters in a name must not hide a dangerous type from FR-ED-03's warning.
@Suite struct AttachmentWarningTests {
    @Test(arguments: [
        ("invoice\u{200B}.exe\u{200B}", AttachmentWarning.Kind.windowsExecutable),
        ("run.sh\u{FEFF}", .runsCode),
        ("setup.e\u{00AD}xe", .windowsExecutable),
        ("photos.tar\u{2060}.gz", .archive),
        ("report.pdf\u{202E}.js", .script),
        ("tool.exe\u{2066}\u{2069}", .windowsExecutable),
        ("tool.bat\u{200E}", .windowsExecutable),
        ("tool.cmd\u{061C}", .windowsExecutable),
        ("tool.exe. . .", .windowsExecutable),
        ("tool.exe \u{200B}.\u{FEFF} ", .windowsExecutable),
        ("app.ap\u{E0001}k", .androidPackage),
    ])
    func invisibleCharactersDoNotHideTheType(name: String, kind: AttachmentWarning.Kind) {
        #expect(AttachmentWarning.before(downloading: name, size: 1, metered: false).map(\.kind) == [kind])
    }

    @Test func harmlessNamesStayWithoutWarnings() {
        #expect(AttachmentWarning.before(downloading: "report\u{200B}.pdf", size: 1, metered: false).isEmpty)
        #expect(AttachmentWarning.before(downloading: "👩\u{200D}💻 notes.txt", size: 1, metered: false).isEmpty)
    }

    @Test(arguments: [
        ("invoice\u{200B}.exe\u{200B}", "invoice⟨U+200B⟩.exe⟨U+200B⟩"),
        ("run.sh\u{FEFF}", "run.sh⟨U+FEFF⟩"),
        ("a\u{202E}b\u{2066}c\u{061C}", "a⟨U+202E⟩b⟨U+2066⟩c⟨U+061C⟩"),
        ("soft\u{00AD}hyphen", "soft⟨U+00AD⟩hyphen"),
        ("tag\u{E0001}", "tag⟨U+E0001⟩"),
        ("plain café.pdf", "plain café.pdf"),
    ])
    func formatCharactersAreShownAsMarkers(name: String, shown: String) {
        #expect(AttachmentFilename.visible(name) == shown)
    }
}
