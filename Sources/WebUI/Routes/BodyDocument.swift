import Foundation
import Hummingbird
import NIOCore

/// A message body as its own document, shown in `<iframe sandbox>` without `allow-scripts` or
/// `allow-same-origin` (PLATFORM.md). The sanitizer is the first line; this document's policy is
/// the second: nothing may load but inline styles and `data:` images, and remote images only when
/// the user allowed them for this message or its sender. Even opened on its own in a tab it stays
/// sandboxed (the `sandbox` directive).
enum BodyDocument {
    static func policy(remoteImages: Bool) -> String {
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:\(remoteImages ? " https: http:" : ""); "
            + "font-src 'none'; media-src 'none'; form-action 'none'; base-uri 'none'; frame-ancestors 'self'; "
            + "sandbox allow-popups allow-popups-to-escape-sandbox"
    }

    /// `html` is the sanitizer's output, written as is: it is the one place markup from a message is
    /// allowed, and only inside this document.
    static func response(html: String, remoteImages: Bool) -> Response {
        let style = String(decoding: PackageResources.body_css, as: UTF8.self)
        let document = """
            <!doctype html><html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">\
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
