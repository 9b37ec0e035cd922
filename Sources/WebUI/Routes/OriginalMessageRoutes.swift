import Foundation
import Hummingbird
import NIOCore
import TernCore
import TernRuntime

/// Issue 36: Unsubscribe (RFC 2369, RFC 8058), Show original and Download message. Unsubscribe is
/// a question page first (what the list offers, read from the person's own server), and only its
/// form's POST contacts the list; the original is the server's bytes, shown as escaped text.
struct OriginalMessageRoutes: Sendable {
    let services: TernServices
    let page: PageSecrets

    func register(on router: Router<BasicRequestContext>) {
        router.get("unsubscribe") { request, _ in
            let query = FormFields(request.uri.query ?? "")
            guard let id = query["message"].flatMap({ EmailID($0) }) else { throw HTTPError(.badRequest, message: "message is needed") }
            return WebResponse.html(await question(id, back: Self.back(query)))
        }
        router.post("unsubscribe") { request, _ in
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit)))
            guard let id = form["message"].flatMap({ EmailID($0) }) else { throw HTTPError(.badRequest, message: "message is needed") }
            return WebResponse.html(await unsubscribe(id, back: Self.back(form)))
        }
        router.get("original") { request, _ in
            let query = FormFields(request.uri.query ?? "")
            guard let id = query["message"].flatMap({ EmailID($0) }) else { throw HTTPError(.badRequest, message: "message is needed") }
            return WebResponse.html(await original(id, back: Self.back(query)))
        }
        router.get("original/:id/message.eml") { _, context in
            try await download(context.parameters.require("id", as: EmailID.self))
        }
    }

    /// Where Cancel and Back go: rebuilt from the list's query, never copied into a link (issue 32).
    static func back(_ fields: FormFields) -> MailLocation {
        MailLocation(query: FormFields(URLComponents(string: fields["return"] ?? "/mail")?.percentEncodedQuery ?? ""))
    }

    func document(title: String, body: HTMLText) -> HTMLText {
        """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\
        \(html: page.head)<title>\(title) — Tern</title><link rel="stylesheet" href="/assets/app.css">\
        <link rel="icon" href="/assets/icon.svg" type="image/svg+xml"></head>
        <body class="plain-page"><header class="app-header"><a class="brand" href="mail"><img src="/assets/icon.svg" alt="" width="24" height="24"> Tern</a>\
        <nav class="app-links" aria-label="App"><a href="mail">Back to mail</a></nav></header>
        <main class="settings">\(html: body)</main></body></html>
        """
    }

    // MARK: Unsubscribe

    /// The question: the list, how Tern would unsubscribe and where the request goes, the earlier
    /// result if any; Unsubscribe and Cancel. Nothing has been sent to the list.
    func question(_ id: EmailID, back: MailLocation) async -> HTMLText {
        let offer: UnsubscribeOffer
        do {
            offer = try await services.unsubscribe.offer(id)
        } catch {
            return document(
                title: "Can't unsubscribe",
                body: """
                    <h1>Can't unsubscribe</h1><p role="alert">\(Self.wording(error))</p><p><a class="button" href="\(back.url)">Back</a></p>
                    """)
        }
        var previous = HTMLText()
        if let record = offer.previous {
            previous = """
                <p class="notice">You unsubscribed from this list on \(record.date.formatted(date: .abbreviated, time: .shortened)): \(record.detail).</p>
                """
        }
        let how: HTMLText =
            switch offer.methods.preferred {
            case .oneClick(let url)?:
                "<p>Tern will send the list's one-click unsubscribe request (RFC 8058) to <strong>\(url.host ?? "")</strong>. No web page is opened and nothing else is sent.</p>"
            case .mailto(let mail)?:
                "<p>Tern will send a message from your account to <strong>\(mail.address)</strong> with the subject “\(mail.subject)”.</p>"
            case nil: ""
            }
        return document(
            title: "Unsubscribe from \(offer.listLabel)?",
            body: """
                <h1>Unsubscribe from \(offer.listLabel)?</h1>\(html: previous)\(html: how)
                <form method="post" action="unsubscribe"><input type="hidden" name="csrf" value="\(page.csrfToken)">\
                <input type="hidden" name="message" value="\(id)"><input type="hidden" name="return" value="\(back.returnPath)">\
                <button type="submit" class="button primary">Unsubscribe</button> <a class="button" href="\(back.url)">Cancel</a></form>
                """)
    }

    /// After the person's Unsubscribe: the result, which is also remembered for the list.
    func unsubscribe(_ id: EmailID, back: MailLocation) async -> HTMLText {
        do {
            let record = try await services.unsubscribe.unsubscribe(id)
            let title: String =
                switch record.outcome {
                case .unsubscribed: "Unsubscribed"
                case .mailSent: "Unsubscribe message sent"
                case .mailQueued: "Unsubscribe message queued"
                case .refused, .failed: "Not unsubscribed"
                }
            return document(
                title: title,
                body: """
                    <h1>\(title)</h1><p role="\(record.succeeded ? "status" : "alert")">\(Self.sentence(record))</p>\
                    <p><a class="button" href="\(back.url)">Back to mail</a></p>
                    """)
        } catch {
            return document(
                title: "Not unsubscribed",
                body: """
                    <h1>Not unsubscribed</h1><p role="alert">\(Self.wording(error))</p><p><a class="button" href="\(back.url)">Back to mail</a></p>
                    """)
        }
    }

    static func sentence(_ record: UnsubscribeRecord) -> String {
        switch record.outcome {
        case .unsubscribed: "The list confirmed the request (\(record.detail))."
        case .mailSent: "The unsubscribe message was \(record.detail)."
        case .mailQueued: "The unsubscribe message is \(record.detail)."
        case .refused, .failed: "The request did not go through: \(record.detail)."
        }
    }

    static func wording(_ error: any Error) -> String {
        if case TernError.unsubscribeUnavailable(let reason)? = error as? TernError {
            let sentence = reason.sentence
            return sentence.prefix(1).uppercased() + sentence.dropFirst() + "."
        }
        return WebErrorText.describe(error)
    }

    // MARK: The original

    /// Show original, as Gmail lays it out: the message's identity, the provider's authentication
    /// results, the path through servers as a table, then the source as escaped text (never rendered).
    func original(_ id: EmailID, back: MailLocation) async -> HTMLText {
        let report: OriginalMessageReport
        do {
            report = try await services.originalMessage.report(id)
        } catch {
            return document(
                title: "Original message",
                body: """
                    <h1>Original message</h1><p role="alert">\(WebErrorText.describe(error))</p><p><a class="button" href="\(back.url)">Back</a></p>
                    """)
        }
        var summary = HTMLText()
        for name in ["Message-ID", "Date", "From", "To", "Subject"] {
            if let value = report.field(name) { summary += "<tr><th scope=\"row\">\(name)</th><td>\(value)</td></tr>" }
        }
        for results in report.authentication {
            for result in results.results {
                let detail = result.properties.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                summary += """
                    <tr><th scope="row">\(result.method.uppercased())</th><td>\(result.result.uppercased()) \(detail) (\(results.authservId))</td></tr>
                    """
            }
        }
        var hops = HTMLText()
        for (index, hop) in report.hops.enumerated() {
            let delay = hop.delay.map { $0 < 1 ? "0 s" : "\(Int($0)) s" } ?? ""
            hops += """
                <tr><th scope="row">\(index + 1)</th><td>\(hop.from ?? "")</td><td>\(hop.by ?? "")</td><td>\(hop.with ?? "")</td>\
                <td>\(hop.date.map { $0.formatted(date: .abbreviated, time: .standard) } ?? "")</td><td>\(delay)</td></tr>
                """
        }
        let hopsTable: HTMLText =
            report.hops.isEmpty
            ? "<p>The message has no Received fields.</p>"
            : """
            <table class="original-hops"><caption>Path through servers, first hop first</caption><thead><tr><th scope="col">Hop</th><th scope="col">From</th>\
            <th scope="col">By</th><th scope="col">With</th><th scope="col">Time</th><th scope="col">Delay</th></tr></thead><tbody>\(html: hops)</tbody></table>
            """
        let source = String(decoding: report.source, as: UTF8.self)
        return document(
            title: "Original message",
            body: """
                <h1>Original message</h1>
                <p><a class="button" href="original/\(id)/message.eml" download>Download message</a> <a class="button" href="\(back.url)">Back</a></p>
                <table class="original-summary"><caption>Message</caption><tbody>\(html: summary)</tbody></table>
                \(html: hopsTable)
                <h2 id="original-source">Source</h2>
                <pre class="original-source" tabindex="0" aria-labelledby="original-source">\(source)</pre>
                """)
    }

    /// The bytes as the server has them, to save (`message.eml`, never shown inline).
    func download(_ id: EmailID) async throws -> Response {
        let bytes: [UInt8]
        do {
            bytes = try await services.originalMessage.source(id)
        } catch TernError.notFound(let what) {
            throw HTTPError(.notFound, message: "Not found: \(what).")
        } catch {
            // The server's failure, worded; not the app's own (the page stays usable).
            throw HTTPError(.conflict, message: WebErrorText.describe(error))
        }
        var response = Response(status: .ok, headers: [.contentType: "message/rfc822"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        response.headers[.contentDisposition] = "attachment; filename=\"message-\(id.rawValue).eml\""
        response.headers[SecurityHeaders.cspName] = "default-src 'none'; sandbox"
        return response
    }
}
