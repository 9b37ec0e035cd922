import TernCore
import Testing

@testable import WebUI

/// Issue 32: a received attachment's name is shown with its invisible characters made visible, and
/// the dangerous-type warning is judged without them.
@Suite struct AttachmentListViewTests {
    @Test func invisibleCharactersInANameAreShownAndDoNotHideTheWarning() {
        let name = "invoice\u{200B}.exe\u{200B}"
        let attachment = AttachmentView(
            id: 7, filename: name, mimeType: "application/octet-stream", size: 10, isDownloaded: false,
            isInline: false, warnings: AttachmentWarning.before(downloading: name, size: 10, metered: false))
        let markup = AttachmentListView(attachments: [attachment], csrfToken: "token").render().markup
        #expect(markup.contains("<span class=\"attachment-name\">invoice⟨U+200B⟩.exe⟨U+200B⟩</span>"))
        #expect(!markup.unicodeScalars.contains("\u{200B}"))
        #expect(markup.contains("data-warnings=\"This file is a Windows executable.\""))
    }
}
