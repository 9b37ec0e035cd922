import Foundation
import Hummingbird
import NIOCore
import TernCore
import TernRuntime

/// Every endpoint of the app. Each parses the request, calls use cases and writes markup or JSON;
/// nothing here reads the store, IMAP or HTML itself.
struct WebRoutes: Sendable {
    let services: TernServices
    let state: WebState
    let page: PageSecrets
    var csrfToken: String { page.csrfToken }
    /// How long `fragments/bodies` waits for the bodies a page lacks.
    static let bodiesBound: Duration = .seconds(20)
    /// How long a whole page waits for the bodies it lacks before it is drawn: a page without script
    /// has no other way to get them, and a page with script may finish fetching before its change
    /// feed is open. Past it, the page is drawn with the placeholders.
    static let pageBodiesWait: Duration = .seconds(2)

    func register(on router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in Response(status: .seeOther, headers: [.location: "/mail"]) }
        router.get("mail") { request, _ in try await page(MailLocation(query: query(request))) }
        router.get("fragments/threads") { request, _ in try await moreThreads(query(request)) }
        router.get("fragments/conversation") { request, _ in
            WebResponse.html(await conversationPane(MailLocation(query: query(request))))
        }
        router.get("fragments/folders") { request, _ in
            WebResponse.html(try await folderPane(MailLocation(query: query(request))))
        }
        router.get("fragments/message") { request, _ in try await messageFragment(query(request)) }
        router.get("fragments/earlier") { request, _ in try await earlierFragment(query(request)) }
        router.get("fragments/bodies") { request, _ in try await bodiesArrived(query(request)) }
        router.get("bodies/:id") { request, context in
            let query = query(request)
            return try await body(
                context.parameters.require("id", as: EmailID.self), threadId: query["thread"].flatMap { ThreadID($0) } ?? 0,
                remoteImages: query["images"] == "1")
        }
        // NFR-ED-03: a message's "Copy text" (its text as a reader sees it, quotes marked with `>`).
        router.get("texts/:id") { request, context in
            let query = query(request)
            return try await text(context.parameters.require("id", as: EmailID.self), threadId: query["thread"].flatMap { ThreadID($0) } ?? 0)
        }
        ActionRoutes(services: services, state: state, page: page).register(on: router)
        ComposeRoutes(services: services, state: state, page: page).register(on: router)
        AttachmentRoutes(services: services, state: state, page: page).register(on: router)
        SettingsRoutes(services: services, state: state, page: page).register(on: router)
        IdentityRoutes(services: services, state: state, page: page).register(on: router)
        AccountRoutes(services: services, page: page, signIns: state.oauthSignIns).register(on: router)
        OAuthRoutes(services: services, page: page, signIns: state.oauthSignIns).register(on: router)
        AssistRoutes(services: services).register(on: router)
        OriginalMessageRoutes(services: services, page: page).register(on: router)
        EventRoutes(changes: services.changes).register(on: router)
        AssetRoutes.register(on: router)
    }

    func query(_ request: Request) -> FormFields { FormFields(request.uri.query ?? "") }

    // MARK: The page

    func page(_ location: MailLocation) async throws -> Response {
        async let folders = folderPane(location)
        async let list = threadList(location, cursor: nil)
        // Issue 35: with no account yet, the page opens on "Add account".
        let firstRun = try await services.listAccounts().isEmpty && location.compose == nil && location.threadId == nil
        let thread: HTMLText? =
            if firstRun {
                await AccountRoutes(services: services, page: page, signIns: state.oauthSignIns).setupView(headingLevel: 2).render()
            } else if let compose = location.compose {
                await composerPane(compose, location: location)
            } else if location.threadId != nil {
                await conversationPane(location, bodiesWait: Self.pageBodiesWait)
            } else {
                nil
            }
        let layout = PageLayout(
            title: location.title, page: page, location: location, folders: try await folders,
            list: await list.render(), thread: thread, appearance: await appearance())
        return WebResponse.html(layout.render())
    }

    func folderPane(_ location: MailLocation) async throws -> HTMLText {
        async let accounts = services.listAccounts()
        async let folders = services.browse.folders(account: nil)
        return FolderPane(
            accounts: try await accounts, folders: try await folders, syncStates: state.syncStatuses.current, location: location,
            expectsFirstSync: state.syncStatuses.expectsFirstSync
        ).render()
    }

    /// One page of the list; a failure becomes the list's error state, never a broken page.
    func threadList(_ location: MailLocation, cursor: ThreadListCursor?) async -> ThreadListView {
        let size = ThreadListView.pageSize
        do {
            var rows: [ThreadRow]
            var next: ThreadListCursor?
            switch location.source {
            case .unifiedInbox, .folder, .virtual:
                let source: ThreadListSource =
                    switch location.source {
                    case .folder(let account, let path): .folder(account: account, path: path)
                    case .virtual(let view, let account): .virtual(view, account: account)
                    default: .folder(account: nil, path: nil)
                    }
                let summaries = try await services.browse.threads(source, before: cursor, limit: size + 1)
                rows = summaries.prefix(size).map(ThreadRow.init)
                if case .folder(let account, let path) = location.source, path == "Snoozed" || path.hasSuffix(".Snoozed") {
                    // Issue 36: each snoozed conversation says when it comes back.
                    var wakes: [ThreadID: Date] = [:]
                    for item in try await services.snooze.list(account: account) {
                        if let thread = item.threadId { wakes[thread] = min(wakes[thread] ?? item.wake, item.wake) }
                    }
                    for index in rows.indices { rows[index].wake = rows[index].id.flatMap { wakes[$0] } }
                }
                if summaries.count > size, let last = summaries.prefix(size).last { next = ThreadListCursor(after: last) }
                var view = ThreadListView(location: location, rows: rows, hasMore: next != nil, nextCursor: next)
                if next == nil, case .folder(let account, let path) = location.source {
                    view.historyComplete = try await services.browse.historyComplete(account: account, folder: path)
                }
                return view
            case .drafts(let account):
                let names: [AccountID: AccountName] = Dictionary(
                    try await services.listAccounts().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
                rows = try await services.drafts.list(account: account).map { ThreadRow($0, account: names[$0.accountId] ?? AccountName("")) }
                return ThreadListView(location: location, rows: rows, hasMore: false, nextCursor: nil)
            case .search(let text):
                // Hits are messages: one row per thread, the newest hit first.
                let hits: [SearchHit]
                do {
                    hits = try await services.browse.search(text, account: nil, limit: 200)
                } catch is SearchQueryError {
                    var view = ThreadListView(location: location, rows: [], hasMore: false, nextCursor: nil)
                    view.searchUnreadable = true
                    return view
                }
                var seen = Set<ThreadID>()
                rows = hits.filter { $0.threadId != nil && seen.insert($0.threadId!).inserted }.map(ThreadRow.init)
                return ThreadListView(location: location, rows: rows, hasMore: false, nextCursor: nil)
            }
        } catch {
            return ThreadListView(location: location, rows: [], hasMore: false, nextCursor: nil, error: WebErrorText.describe(error))
        }
    }

    func moreThreads(_ query: FormFields) async throws -> Response {
        let location = MailLocation(query: query)
        guard let cursor = ThreadListCursor(query: query) else { throw HTTPError(.badRequest, message: "before and after are needed") }
        return WebResponse.html(await threadList(location, cursor: cursor).continuation())
    }

    /// FR-ED-01: open the thread (marks it read first), the page from the store at once; bodies the
    /// store lacks are fetched meanwhile, and the change feed tells the page when they arrived
    /// (`body`, `bodiesunavailable`), which then asks for them (`fragments/bodies`).
    func conversationPane(_ location: MailLocation, bodiesWait: Duration? = nil) async -> HTMLText {
        guard let threadId = location.threadId else { return ConversationView.nothingSelected }
        let arrivals = bodiesWait.map { _ in services.bodyArrivals.listen(threadId: threadId) }
        do {
            let options = OpenThreadUseCase.Options(markRead: true, earlierPages: location.earlierPages, loadRemoteImages: location.remoteImages)
            switch try await services.openThread(threadId: threadId, options: options) {
            case .empty: return ConversationView.empty(location: location)
            case .opened(let opened, _):
                var conversation = opened
                let loading = Set(conversation.messages.filter { $0.bodyState == .loading }.map(\.id))
                if let arrivals, let bodiesWait, !loading.isEmpty {
                    let settled = await arrivals.wait(for: loading, within: bodiesWait)
                    if settled != .timedOut {
                        conversation = try await services.openThread.refreshed(
                            conversation, loadRemoteImages: location.remoteImages,
                            offline: settled == .unavailable(offline: true))
                    }
                }
                try await expand(&conversation, location: location)
                return ConversationView(
                    conversation: conversation, location: location, csrfToken: csrfToken,
                    assist: await services.summarizeThread.opening(threadId: threadId)
                ).render()
            }
        } catch TernError.notFound {
            return ConversationView.empty(location: location)
        } catch {
            return ConversationView.failed(location: location, reason: WebErrorText.describe(error))
        }
    }

    /// The composer in the third pane; its Discard goes back to where it was opened from.
    func composerPane(_ target: ComposeTarget, location: MailLocation) async -> HTMLText {
        var origin = location
        origin.compose = nil
        do {
            return try await ComposeRoutes(services: services, state: state, page: page).composer(target, location: origin)
        } catch {
            return ConversationView.failed(location: location, reason: WebErrorText.describe(error), title: "Couldn't open the composer")
        }
    }

    /// The messages the user expanded by hand (`open=` in the address).
    func expand(_ conversation: inout Conversation, location: MailLocation) async throws {
        for index in conversation.messages.indices {
            let message = conversation.messages[index]
            guard message.collapsed, location.expanded.contains(message.id) else { continue }
            conversation.messages[index] = try await services.openThread.message(
                message.id, threadId: conversation.threadId, loadRemoteImages: location.remoteImages.contains(message.id))
        }
    }

    /// The conversation again once the bodies its page lacked are stored (or reported unavailable:
    /// E-05's offline state), as the change feed says, waiting at most `bodiesBound`; what is still
    /// missing then shows as not downloaded. The page asks when the change feed's `body` event names
    /// its thread, and after `bodiesunavailable` with `offline` (0 or 1, drawn at once); a thread that
    /// is not there answers 204.
    func bodiesArrived(_ query: FormFields) async throws -> Response {
        let location = MailLocation(query: query)
        guard let threadId = location.threadId else { throw HTTPError(.badRequest, message: "thread is needed") }
        let arrivals = services.bodyArrivals.listen(threadId: threadId)
        let options = OpenThreadUseCase.Options(
            markRead: false, earlierPages: location.earlierPages, loadRemoteImages: location.remoteImages,
            fetchMissingBodies: false)
        let opening: ThreadOpening
        do {
            opening = try await services.openThread(threadId: threadId, options: options)
        } catch TernError.notFound {
            return Response(status: .noContent)
        }
        guard case .opened(var conversation, _) = opening else { return WebResponse.html(ConversationView.empty(location: location)) }
        // `offline` (0 or 1): the change feed already said they are unavailable; nothing to wait for.
        let reported = query["offline"] != nil
        var offline = query["offline"] == "1"
        let missing = Set(conversation.messages.filter { $0.bodyState == .unavailableOffline }.map(\.id))
        if !reported, !missing.isEmpty {
            switch await arrivals.wait(for: missing, within: Self.bodiesBound) {
            case .unavailable(let unreachable): offline = unreachable
            case .arrived, .timedOut: break
            }
            if case .opened(let again, _) = try await services.openThread(threadId: threadId, options: options) { conversation = again }
        }
        conversation.offline = offline
        try await expand(&conversation, location: location)
        return WebResponse.html(
            ConversationView(
                conversation: conversation, location: location, csrfToken: csrfToken,
                assist: await services.summarizeThread.opening(threadId: threadId)
            ).render())
    }

    /// One message expanded (its body fetched when missing, remote images when asked) or collapsed.
    func messageFragment(_ query: FormFields) async throws -> Response {
        guard let id = query["id"].flatMap({ EmailID($0) }), let threadId = query["thread"].flatMap({ ThreadID($0) }) else {
            throw HTTPError(.badRequest, message: "id and thread are needed")
        }
        var message = try await services.openThread.message(id, threadId: threadId, loadRemoteImages: query["images"] == "1")
        if query["expanded"] == "0" {
            message.collapsed = true
            message.body = nil
        }
        var location = MailLocation(query: FormFields(query["location"] ?? ""))
        location.threadId = threadId
        return WebResponse.html(
            MessageView(message: message, threadId: threadId, location: location, csrfToken: csrfToken, time: RelativeTime()).render())
    }

    /// FR-ED-05: the next page above, with the control for the one after it.
    func earlierFragment(_ query: FormFields) async throws -> Response {
        guard let threadId = query["thread"].flatMap({ ThreadID($0) }), let page = query["page"].flatMap({ Int($0) }),
            MailLocation.earlierPagesRange.contains(page)
        else {
            throw HTTPError(.badRequest, message: "thread and page are needed")
        }
        let (messages, remaining) = try await services.openThread.earlier(threadId: threadId, page: page)
        var location = MailLocation(source: .unifiedInbox, threadId: threadId)
        location.earlierPages = page
        var markup = HTMLText()
        if remaining > 0 {
            let next = MailLocation.url(
                path: "fragments/earlier",
                items: [
                    URLQueryItem(name: "thread", value: String(threadId)), URLQueryItem(name: "page", value: String(page + 1))
                ])
            markup +=
                "<div class=\"earlier\" id=\"earlier\"><a class=\"button\" href=\"#\" data-fragment=\"\(next)\">Show earlier messages (\(remaining))</a></div>"
        }
        for message in messages {
            markup += MessageView(message: message, threadId: threadId, location: location, csrfToken: csrfToken, time: RelativeTime()).render()
        }
        return WebResponse.html("<template data-earlier>\(html: markup)</template>")
    }

    /// A message's text for the clipboard (issue 34, per-message actions); 404 when it is not downloaded.
    func text(_ emailId: EmailID, threadId: ThreadID) async throws -> Response {
        let message = try await services.openThread.message(emailId, threadId: threadId, loadRemoteImages: false)
        guard let text = message.body?.text, message.bodyState == .available || message.bodyState == .truncated else {
            throw HTTPError(.notFound, message: "This message isn't downloaded yet.")
        }
        return WebResponse.json(MessageText(text: text))
    }

    /// A message body as its own document (see `BodyDocument`).
    func body(_ emailId: EmailID, threadId: ThreadID, remoteImages: Bool) async throws -> Response {
        let message: ConversationMessage
        let appearance = await appearance()
        do {
            message = try await services.openThread.message(emailId, threadId: threadId, loadRemoteImages: remoteImages)
        } catch TernError.notFound {
            return BodyDocument.response(html: "<p>This message is no longer here.</p>", remoteImages: false, appearance: appearance)
        }
        guard let rendered = message.body, let html = rendered.html else {
            return BodyDocument.response(html: "<p>Message body not available offline</p>", remoteImages: false, appearance: appearance)
        }
        return BodyDocument.response(html: html, remoteImages: rendered.remoteImagesLoaded, appearance: appearance)
    }

    /// Issue 39: the person's appearance settings; the defaults when the store cannot say.
    func appearance() async -> Appearance {
        Appearance((try? await services.settings.current()) ?? TernSettings())
    }
}

extension ThreadListCursor {
    init?(query: FormFields) {
        guard let before = query["before"].flatMap({ Double($0) }), let after = query["after"].flatMap({ ThreadID($0) }) else { return nil }
        self.init(latestDate: Date(timeIntervalSince1970: before), threadId: after)
    }

    /// `before` (seconds since 1970, exact) and `after` (the last row's thread id).
    var queryItems: [URLQueryItem] {
        [URLQueryItem(name: "before", value: String(latestDate.timeIntervalSince1970)), URLQueryItem(name: "after", value: String(threadId))]
    }
}

/// Errors as the web app words them: the core's neutral text, with what helps on this front end.
enum WebErrorText {
    static func describe(_ error: any Error) -> String {
        if let error = error as? TernError {
            switch error {
            case .signInRequired(let account): return "Account \(account) must sign in again (tern account login \(account))."
            case .nothingToUndo: return "Nothing to undo: the undo window has passed."
            case .readReceiptRefused(let refusal): return "No read receipt was sent: \(refusal.sentence)."
            case .authenticationRefused(let text):
                return
                    "The server refused the sign-in (\(text)). Nothing is retried until it is fixed: check the password, or sign in again (tern account login)."
            case .tlsRefused(let text): return "The server's secure connection was refused (\(text)), so nothing was sent to it."
            case .folderNeeded(let target, let folders):
                return folders.isEmpty
                    ? "This conversation is in no synced folder (already archived)."
                    : "This conversation is in \(folders.joined(separator: ", ")): open it from that folder to archive or delete it there. (\(target))"
            case .accountNeeded(let available):
                return available.isEmpty
                    ? "There is no account yet: add one with tern account add."
                    : "Choose the account to send from: \(available.map(\.rawValue).joined(separator: ", "))."
            default: return error.message
            }
        }
        return String(describing: error)
    }
}

/// A message's text as the page's "Copy text" reads it.
struct MessageText: Encodable, Sendable {
    var text: String
}
