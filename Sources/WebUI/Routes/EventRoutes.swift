import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle
import TernCore

/// `GET /events`: the change feed as server-sent events, so the page updates without reload (new
/// mail from IDLE, sync states, bodies that arrived or could not be fetched, changes the server
/// refused, download progress).
/// A comment every 20 s keeps the stream from timing out and finds a page that has gone (the write
/// fails). Graceful shutdown ends every stream, so stopping the server never waits on an open tab.
struct EventRoutes: Sendable {
    let changes: ChangeFeed
    static let heartbeat: Duration = .seconds(20)

    func register(on router: Router<BasicRequestContext>) {
        router.get("events") { _, _ in
            let feed = changes.changes()
            let heartbeat = Self.heartbeat
            var response = Response(
                status: .ok, headers: [.contentType: "text/event-stream"],
                body: .init { writer in
                    let (events, sink) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(512))
                    let following = Task {
                        for await change in feed {
                            if let event = ServerSentEvent(change) { sink.yield(event.text) }
                        }
                        sink.finish()
                    }
                    let beating = Task {
                        while !Task.isCancelled {
                            try? await Task.sleep(for: heartbeat)
                            sink.yield(": ping\n\n")
                        }
                    }
                    defer {
                        following.cancel()
                        beating.cancel()
                    }
                    try await writer.write(ByteBuffer(string: "retry: 3000\n\n"))
                    try await withGracefulShutdownHandler {
                        for await text in events { try await writer.write(ByteBuffer(string: text)) }
                    } onGracefulShutdown: {
                        sink.finish()
                    }
                    try await writer.finish(nil)
                })
            response.headers[.cacheControl] = "no-store"
            return response
        }
    }
}

/// One change as an event the page's script understands: a name and a JSON object.
struct ServerSentEvent: Sendable {
    var name: String
    var data: [String: String]

    var text: String {
        let json = (try? JSONSerialization.data(withJSONObject: data, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "event: \(name)\ndata: \(json)\n\n"
    }

    init?(_ change: MailChange) {
        switch change {
        case .threadsChanged(let accountId): (name, data) = ("threads", ["account": accountId?.rawValue ?? ""])
        case .bodyArrived(let emailId, let threadId): (name, data) = ("body", ["email": String(emailId), "thread": threadId.map { String($0) } ?? ""])
        case .bodiesUnavailable(let threadId, let offline):
            (name, data) = ("bodiesunavailable", ["thread": String(threadId), "offline": offline ? "1" : "0"])
        case .syncState(let account, let state, let detail):
            let status = SyncStatus(state: state, detail: detail, date: Date())
            (name, data) = ("sync", ["account": account.rawValue, "state": state.rawValue, "kind": status.kind, "text": status.text])
        case .newMail(let account, let accountName, let count):
            (name, data) = (
                "newmail",
                [
                    "account": account.rawValue, "count": String(count),
                    "text": count == 1 ? "1 new message in \(accountName)." : "\(count) new messages in \(accountName)."
                ]
            )
        case .inboxArrivals(let account, let messages):
            // Issue 36: what a notification shows; the page decides (the person's choice) how much of it.
            let list = messages.prefix(20).map { message in
                [
                    "thread": message.threadId.map { String($0) } ?? "", "from": message.from.displayName,
                    "subject": String(message.subject.prefix(200))
                ]
            }
            let json = (try? JSONSerialization.data(withJSONObject: list, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
            (name, data) = ("newmessages", ["account": account.rawValue, "count": String(messages.count), "messages": json])
        case .outboxChanged(let account): (name, data) = ("outbox", ["account": account.rawValue])
        case .sendOutcome(let emailId, let state, let error):
            (name, data) = ("sendstate", ["email": String(emailId), "state": state.rawValue, "error": error ?? ""])
        case .changeFailed(let summary):
            (name, data) = (
                "failed",
                [
                    "change": String(summary.id), "thread": summary.threadId.map { String($0) } ?? "",
                    "text": "Couldn't \(ChangeWording.verb(summary)). Tap to retry."
                ]
            )
        case .removalUndone: (name, data) = ("threads", ["account": ""])
        case .folderChangeFailed(let account, let text): (name, data) = ("folderfailed", ["account": account.rawValue, "text": text])
        case .attachmentProgress(let progress):
            var fields = ["attachment": String(progress.attachmentId), "phase": progress.phase.rawValue, "received": String(progress.receivedBytes)]
            if let total = progress.totalBytes { fields["total"] = String(total) }
            if let error = progress.error { fields["error"] = error }
            (name, data) = ("attachment", fields)
        case .trustedSendersChanged, .settingChanged: (name, data) = ("settings", [:])
        case .draftsChanged: (name, data) = ("drafts", [:])
        case .draftChangedOnServer(let draftId): (name, data) = ("draftconflict", ["draft": String(draftId)])
        case .accountsChanged: (name, data) = ("accounts", [:])
        case .headerProgress(let progress):
            (name, data) = (
                "headers",
                [
                    "account": progress.accountId.rawValue, "fetched": String(progress.accountFetched), "total": String(progress.accountTotal),
                    "text": HeaderProgressText.text(progress)
                ]
            )
        case .composerSend(let update):
            (name, data) = (
                "send",
                [
                    "draft": String(update.draftId), "email": String(update.emailId), "state": update.state.rawValue,
                    "error": update.error ?? ""
                ]
            )
        }
    }
}

/// E-10, E-11: "Couldn't archive", "Couldn't delete", "Couldn't mark as read", …
enum ChangeWording {
    static func verb(_ summary: PendingChangeSummary) -> String {
        switch (summary.kind, summary.flag) {
        case (.archive, _): "archive"
        case (.delete, _): "delete"
        case (.fileSentCopy, _): "file the Sent copy"
        case (.move, _): "move"
        case (.copy, _): "label"
        case (.addFlag, "\\Seen"): "mark as read"
        case (.removeFlag, "\\Seen"): "mark as unread"
        case (.addFlag, "\\Flagged"): "star"
        case (.removeFlag, "\\Flagged"): "unstar"
        default: "save the change"
        }
    }
}
