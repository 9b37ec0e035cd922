import Foundation
import TernCore

/// FR-ED-02's summary section as the conversation is first drawn: nothing when Assist is off; the
/// summary itself when cached and current; else a placeholder with a subtle loading indicator that
/// `app.js` fills from `/fragments/assist/summary` or removes (never an error, AC-U-11).
struct AssistSummaryView: Sendable {
    var threadId: ThreadID
    var panel: SummarizeThreadUseCase.Opening

    func render() -> HTMLText {
        switch panel {
        case .off: return ""
        case .cached(let digest): return Self.section(digest)
        case .pending:
            return """
                <section class="assist-summary" id="assist-summary" aria-labelledby="assist-summary-title" aria-busy="true" \
                data-assist-summary="fragments/assist/summary?thread=\(threadId)"><h3 class="assist-title" id="assist-summary-title">Summary</h3>\
                <p class="assist-loading"><span class="assist-spinner" aria-hidden="true"></span>Summarizing…</p></section>
                """
        }
    }

    /// The summary as text: a model's answer is untrusted, so it is escaped like any other text.
    static func section(_ digest: ThreadDigest) -> HTMLText {
        let source = digest.provider == "endpoint" ? "your local model" : "Tern, on this computer"
        return """
            <section class="assist-summary ready" id="assist-summary" aria-labelledby="assist-summary-title">\
            <h3 class="assist-title" id="assist-summary-title">Summary</h3><p class="assist-text">\(digest.text)</p>\
            <p class="assist-source">Written by \(source)</p></section>
            """
    }
}

/// FR-ED-02, FR-COMP-03: up to three smart replies. In the thread they are links that open the
/// reply composer with the text above the quote; in the composer they are buttons that insert it.
struct SmartRepliesView: Sendable {
    enum Place: String, Sendable {
        case thread, composer
    }

    /// nil in the composer, which knows only the message it replies to.
    var threadId: ThreadID?
    var place: Place
    /// The message a reply from the thread answers, and where the composer returns to.
    var replyTo: EmailID?
    var location: MailLocation?

    /// The empty placeholder `app.js` fills.
    func placeholder() -> HTMLText {
        var items = [URLQueryItem(name: "place", value: place.rawValue)]
        if let threadId { items.append(URLQueryItem(name: "thread", value: String(threadId))) }
        if let replyTo { items.append(URLQueryItem(name: "message", value: String(replyTo))) }
        if let location { items.append(URLQueryItem(name: "location", value: location.url)) }
        let url = MailLocation.url(path: "fragments/assist/replies", items: items)
        return """
            <section class="smart-replies \(place.rawValue)-replies" id="smart-replies" aria-label="Suggested replies" hidden \
            data-assist-replies="\(url)"></section>
            """
    }

    func render(_ replies: [SmartReply]) -> HTMLText {
        var chips = HTMLText()
        for reply in replies {
            switch place {
            case .thread:
                guard let replyTo, var target = location else { continue }
                var compose = ComposeTarget(mode: .reply, messageId: replyTo)
                compose.suggestion = reply.text
                target.compose = compose
                chips += "<li><a class=\"chip compose-link\" href=\"\(target.url)\">\(reply.text)</a></li>"
            case .composer:
                chips += "<li><button type=\"button\" class=\"chip\" data-suggestion=\"\(reply.text)\">\(reply.text)</button></li>"
            }
        }
        let title = place == .thread ? "Suggested replies" : "Suggested replies: choose one to insert it"
        return """
            <section class="smart-replies \(place.rawValue)-replies appearing" id="smart-replies" aria-labelledby="smart-replies-title">\
            <h3 class="assist-title" id="smart-replies-title">\(title)</h3><ul class="chips">\(html: chips)</ul></section>
            """
    }
}
