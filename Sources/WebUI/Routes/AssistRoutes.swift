import Foundation
import Hummingbird
import TernCore
import TernRuntime

/// FR-ED-02 and FR-COMP-03 in the web app: the summary and the smart replies, each asked for by
/// the page after the conversation or composer is drawn, so neither ever delays it (AC-U-11). No
/// answer (Assist off, a slow or failing provider, nothing to say) is 204: the page removes the
/// section without a word.
struct AssistRoutes: Sendable {
    let services: TernServices

    func register(on router: Router<BasicRequestContext>) {
        router.get("fragments/assist/summary") { request, _ in
            let query = FormFields(request.uri.query ?? "")
            guard let threadId = query["thread"].flatMap({ ThreadID($0) }) else { throw HTTPError(.badRequest, message: "thread is needed") }
            guard let digest = await services.summarizeThread(threadId: threadId) else { return Response(status: .noContent) }
            return WebResponse.html(AssistSummaryView.section(digest))
        }
        router.get("fragments/assist/replies") { request, _ in
            let query = FormFields(request.uri.query ?? "")
            let threadId = query["thread"].flatMap { ThreadID($0) }
            let message = query["message"].flatMap { EmailID($0) }
            let replies: [SmartReply]
            if let threadId {
                replies = await services.smartReplies(threadId: threadId)
            } else if let message {
                replies = await services.smartReplies(replyingTo: message)
            } else {
                throw HTTPError(.badRequest, message: "thread or message is needed")
            }
            guard !replies.isEmpty else { return Response(status: .noContent) }
            let locationText = query["location"].map { $0.split(separator: "?", maxSplits: 1).last.map(String.init) ?? "" } ?? ""
            let view = SmartRepliesView(
                threadId: threadId, place: query["place"] == "composer" ? .composer : .thread,
                replyTo: message, location: MailLocation(query: FormFields(locationText)))
            return WebResponse.html(view.render(replies))
        }
    }
}
