import Foundation
import Hummingbird
import NIOCore

/// A message body as its own document, shown in `<iframe sandbox>` without `allow-scripts`
/// (PLATFORM.md). The sanitizer is the first line; this document's policy is the second: nothing
/// may load but inline styles and `data:` images, and remote images only when the user allowed them
/// for this message or its sender. Even opened on its own in a tab it stays sandboxed (the
/// `sandbox` directive). Issue 39: the sandbox keeps the app's origin (`allow-same-origin`, never
/// with `allow-scripts`) so that the app's script can read the document's height and size the
/// frame to it; nothing runs in the document either way (decisions.md "Message frames sized to
/// their content").
enum BodyDocument {
    /// The sandbox of the frame and of the document's own policy: the same tokens in both, since a
    /// document gets the intersection of the two.
    static let sandbox = "allow-same-origin allow-popups allow-popups-to-escape-sandbox"

    static func policy(remoteImages: Bool) -> String {
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:\(remoteImages ? " https: http:" : ""); "
            + "font-src 'none'; media-src 'none'; form-action 'none'; base-uri 'none'; frame-ancestors 'self'; "
            + "sandbox \(sandbox)"
    }

    /// `html` is the sanitizer's output, written as is: it is the one place markup from a message is
    /// allowed, and only inside this document. The root names the person's appearance (`body.css`
    /// reads it) and, for a body with colours of its own, the light surface it keeps in either theme.
    static func response(html: String, remoteImages: Bool, appearance: Appearance = Appearance()) -> Response {
        let style = String(decoding: PackageResources.body_css, as: UTF8.self)
        let surface: HTMLText = BodyColours.setOwn(html) ? " data-surface=\"light\"" : ""
        let document = """
            <!doctype html><html\(html: appearance.rootAttributes)\(html: surface)><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">\
            <style>\(style)</style></head><body>\(html)</body></html>
            """
        var response = Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: document)))
        response.headers[SecurityHeaders.cspName] = policy(remoteImages: remoteImages)
        response.headers[SecurityHeaders.frameOptionsName] = "SAMEORIGIN"
        return response
    }
}
