import FileNameSafety
import Foundation
import Hummingbird
import NIOCore
import TernCore
import TernRuntime

/// FR-ED-03 in the browser: a download starts only on the user's click, after the warnings were
/// confirmed (the page asks them; a request without `confirmed=1` for an attachment with warnings
/// is refused); progress and the end arrive on the change feed. A downloaded file is served for
/// saving (`attachment`) or, for images and PDF whose bytes say so, for preview, always with
/// nosniff and a sandboxing policy: nothing in it can run.
struct AttachmentRoutes: Sendable {
    let services: TernServices
    let state: WebState
    let page: PageSecrets

    static let filePolicy = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; object-src 'self'; plugin-types application/pdf; sandbox"

    func register(on router: Router<BasicRequestContext>) {
        router.post("attachments/:id/download") { request, context in
            let id = try context.parameters.require("id", as: AttachmentID.self)
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit)))
            let check = try await services.downloadAttachment.check(attachmentId: id)
            let scripted = WebResponse.isScripted(request)
            if !check.warnings.isEmpty, form["confirmed"] != "1" {
                if scripted {
                    return WebResponse.json(
                        ActionReply(ok: false, error: check.warnings.map(\.text).joined(separator: " ")), status: .preconditionRequired)
                }
                return WebResponse.html(confirmationPage(check, form: form), status: .preconditionRequired)
            }
            _ = state.downloads.start(id) { [download = services.downloadAttachment] in _ = try? await download.download(attachmentId: id) }
            return scripted
                ? WebResponse.json(ActionReply(ok: true, toast: "Downloading \(AttachmentFilename.visible(check.filename))…"))
                : WebResponse.redirect(to: form["return"])
        }
        router.post("attachments/:id/cancel") { request, context in
            let id = try context.parameters.require("id", as: AttachmentID.self)
            let cancelled = state.downloads.cancel(id)
            return WebResponse.json(ActionReply(ok: cancelled, toast: cancelled ? "Download cancelled." : nil))
        }
        router.get("attachments/:id/file") { _, context in
            try await file(context.parameters.require("id", as: AttachmentID.self), preview: false, context: context)
        }
        router.get("attachments/:id/preview") { _, context in
            try await file(context.parameters.require("id", as: AttachmentID.self), preview: true, context: context)
        }
    }

    /// Streamed from the local copy in 128 KiB chunks: a 25 MB attachment is never held whole.
    func file(_ id: AttachmentID, preview: Bool, context: some RequestContext) async throws -> Response {
        let check = try await services.downloadAttachment.check(attachmentId: id)
        guard check.isDownloaded else { throw HTTPError(.conflict, message: "Download the attachment first.") }
        let local = try await services.downloadAttachment.download(attachmentId: id)
        let previewable = preview && AttachmentListView.isPreviewable(local.sniffedType)
        let type = previewable ? local.sniffedType : "application/octet-stream"
        let body = try await FileIO().loadFile(path: local.path, context: context)
        var response = Response(status: .ok, headers: [.contentType: type], body: body)
        response.headers[.contentDisposition] = (previewable ? "inline" : "attachment") + "; filename*=UTF-8''" + Self.encoded(check.filename)
        response.headers[SecurityHeaders.cspName] = Self.filePolicy
        response.headers[SecurityHeaders.frameOptionsName] = "DENY"
        return response
    }

    /// RFC 8187 for the Content-Disposition file name: only attr-chars stay as they are.
    static func encoded(_ name: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "!#$&+-.^_`|~")
        return name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "attachment"
    }

    /// Without script, the warnings are a page of their own with Download and Cancel. The name is
    /// shown with its invisible characters as markers; the way back is rebuilt from the list's
    /// query, never copied from the form into a link (issue 32).
    func confirmationPage(_ check: AttachmentDownloadCheck, form: FormFields) -> HTMLText {
        var check = check
        check.filename = AttachmentFilename.visible(check.filename)
        var warnings = HTMLText()
        for warning in check.warnings { warnings += "<p>\(warning.text)</p>" }
        let back = MailLocation(query: FormFields(URLComponents(string: form["return"] ?? "/mail")?.percentEncodedQuery ?? ""))
        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\
            \(html: page.head)<title>Download \(check.filename)? — Tern</title><link rel="stylesheet" href="/assets/app.css"></head>\
            <body class="plain-page"><main><h1>Download \(check.filename)?</h1>\(html: warnings)\
            <form method="post" action="attachments/\(check.attachmentId)/download"><input type="hidden" name="csrf" value="\(page.csrfToken)">\
            <input type="hidden" name="confirmed" value="1"><input type="hidden" name="return" value="\(back.returnPath)">\
            <button type="submit" class="button">Download</button> <a class="button" href="\(back.url)">Cancel</a></form></main></body></html>
            """
    }
}
