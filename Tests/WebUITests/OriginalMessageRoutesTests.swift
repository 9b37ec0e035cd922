import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TernCore
import Testing

@testable import WebUI

/// Issue 36: Unsubscribe, Show original and Download message answer their failures on an empty
/// store: a question page that asks nothing of anyone, and worded refusals (never a 500).
@Suite struct OriginalMessageRoutesTests {
    @Test func aMissingMessageIsWordedOnEveryPage() async throws {
        try await WebRoutesTests().withApp { client, s in
            try await client.execute(uri: s.path("/unsubscribe?message=5"), method: .get, headers: s.headers()) { response in
                #expect(response.status == .ok)
                let page = String(buffer: response.body)
                #expect(page.contains("<h1>Can't unsubscribe</h1>") && page.contains("role=\"alert\""))
            }
            try await client.execute(uri: s.path("/unsubscribe"), method: .get, headers: s.headers()) { #expect($0.status == .badRequest) }
            var form = s.headers([.contentType: "application/x-www-form-urlencoded"])
            form[HTTPField.Name("X-CSRF-Token")!] = s.csrfToken
            try await client.execute(
                uri: s.path("/unsubscribe"), method: .post, headers: form, body: ByteBuffer(string: "csrf=\(s.csrfToken)&message=5")
            ) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("<h1>Not unsubscribed</h1>"))
            }
            try await client.execute(uri: s.path("/original?message=5"), method: .get, headers: s.headers()) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("<h1>Original message</h1>"))
            }
            try await client.execute(uri: s.path("/original/5/message.eml"), method: .get, headers: s.headers()) {
                #expect($0.status == .notFound)
            }
        }
    }

    /// Issue 34, ED§7-4: a downloaded attachment's Save link carries what `DownloadURL` needs.
    @Test func aDownloadedAttachmentCarriesItsDragData() {
        let attachment = AttachmentView(
            id: 9, filename: "report: q1.pdf", mimeType: "Application/PDF; x=\"y\"", size: 10, isDownloaded: true, isInline: false,
            warnings: [])
        let markup = AttachmentListView(attachments: [attachment], csrfToken: "token").render().markup
        #expect(markup.contains("draggable=\"true\" data-drag-type=\"application/pdf\""))
        #expect(markup.contains("data-drag-name=\"report_ q1.pdf\""))
        #expect(AttachmentListView.dragType("nonsense") == "application/octet-stream")
    }
}
