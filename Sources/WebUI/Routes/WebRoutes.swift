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
            return try await body(context.parameters.require("id", as: Int64.self), threadId: query["thread"].flatMap { Int64($0) } ?? 0,
                                  remoteImages: query["images"] == "1")
        }
        ActionRoutes(services: services, state: state, page: page).register(on: router)
        ComposeRoutes(services: services, state: state, page: page).register(on: router)
        AttachmentRoutes(services: services, state: state, page: page).register(on: router)
        SettingsRoutes(services: services, state: state, page: page).register(on: router)
        AssistRoutes(services: services).register(on: router)
        EventRoutes(changes: services.changes).register(on: router)
        AssetRoutes.register(on: router)
    }

    func query(_ request: Request) -> FormFields { FormFields(request.uri.query ?? "") }

    // MARK: The page

    func page(_ location: MailLocation) async throws -> Response {
        async let folders = folderPane(location)
        async let list = threadList(location, cursor: nil)
        let thread: HTMLText? = if let compose = location.compose {
            await composerPane(compose, location: location)
        } else if location.threadId != nil {
            await conversationPane(location)
        } else {
            nil
        }
        let layout = PageLayout(title: location.title, page: page, location: location, folders: try await folders,
                                list: await list.render(), thread: thread)
        return WebResponse.html(layout.render())
    }

    func folderPane(_ location: MailLocation) async throws -> HTMLText {
        async let accounts = services.listAccounts()
        async let folders = services.mailQueries.folders(account: nil)
        return FolderPane(accounts: try await accounts, folders: try await folders, syncStates: state.syncStatuses, location: location).render()
    }

    /// One page of the list; a failure becomes the list's error state, never a broken page.
    func threadList(_ location: MailLocation, cursor: ThreadListCursor?) async -> ThreadListView {
        let size = ThreadListView.pageSize
        do {
            let rows: [ThreadRow]
            var next: ThreadListCursor?
            switch location.source {
            case .unifiedInbox, .folder, .virtual:
                let summaries: [ThreadSummary] = switch location.source {
                case .folder(let account, let path): try await services.mailQueries.threads(account: account, folder: path, before: cursor, limit: size + 1)
                case .virtual(let view, let account): try await services.mailQueries.threads(in: view, account: account, before: cursor, limit: size + 1)
                default: try await services.mailQueries.threads(account: nil, folder: nil, before: cursor, limit: size + 1)
                }
                rows = summaries.prefix(size).map(ThreadRow.init)
                if summaries.count > size, let last = summaries.prefix(size).last { next = ThreadListCursor(after: last) }
                return ThreadListView(location: location, rows: rows, hasMore: next != nil, nextCursor: next)
            case .drafts(let account):
                let names = Dictionary(try await services.listAccounts().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
                rows = try await services.drafts.list(account: account).map { ThreadRow($0, account: names[$0.accountId] ?? "") }
                return ThreadListView(location: location, rows: rows, hasMore: false, nextCursor: nil)
            case .search(let text):
                // Hits are messages: one row per thread, the newest hit first.
                let hits = try await services.mailQueries.search(text, account: nil, limit: 200)
                var seen = Set<Int64>()
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
    /// store lacks are fetched meanwhile and the page asks for them (`fragments/bodies`).
    func conversationPane(_ location: MailLocation) async -> HTMLText {
        guard let threadId = location.threadId else { return ConversationView.nothingSelected }
        do {
            let options = OpenThreadUseCase.Options(markRead: true, earlierPages: location.earlierPages, loadRemoteImages: location.remoteImages)
            switch try await services.openThread(threadId: threadId, options: options) {
            case .empty: return ConversationView.empty(location: location)
            case .opened(let opened, let network):
                var conversation = opened
                try await expand(&conversation, location: location)
                if let network { state.register(network, threadId: threadId) }
                return ConversationView(conversation: conversation, location: location, csrfToken: csrfToken,
                                        assist: await services.summarizeThread.opening(threadId: threadId)).render()
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

    /// The long-poll the page makes after opening a thread whose bodies were missing: answered when
    /// the fetch ends, with the conversation again (bodies, or the offline state E-05).
    func bodiesArrived(_ query: FormFields) async throws -> Response {
        let location = MailLocation(query: query)
        guard let threadId = location.threadId else { throw HTTPError(.badRequest, message: "thread is needed") }
        guard let work = state.takeNetworkWork(threadId: threadId) else { return Response(status: .noContent) }
        let outcome = await work.outcome()
        let options = OpenThreadUseCase.Options(markRead: false, earlierPages: location.earlierPages, loadRemoteImages: location.remoteImages,
                                                fetchMissingBodies: false)
        guard case .opened(var conversation, _) = try await services.openThread(threadId: threadId, options: options) else {
            return WebResponse.html(ConversationView.empty(location: location))
        }
        conversation.offline = outcome.offline
        try await expand(&conversation, location: location)
        return WebResponse.html(ConversationView(conversation: conversation, location: location, csrfToken: csrfToken,
                                                 assist: await services.summarizeThread.opening(threadId: threadId)).render())
    }

    /// One message expanded (its body fetched when missing, remote images when asked) or collapsed.
    func messageFragment(_ query: FormFields) async throws -> Response {
        guard let id = query["id"].flatMap({ Int64($0) }), let threadId = query["thread"].flatMap({ Int64($0) }) else {
            throw HTTPError(.badRequest, message: "id and thread are needed")
        }
        var message = try await services.openThread.message(id, threadId: threadId, loadRemoteImages: query["images"] == "1")
        if query["expanded"] == "0" {
            message.collapsed = true
            message.body = nil
        }
        var location = MailLocation(query: FormFields(query["location"] ?? ""))
        location.threadId = threadId
        return WebResponse.html(MessageView(message: message, threadId: threadId, location: location, csrfToken: csrfToken, time: RelativeTime()).render())
    }

    /// FR-ED-05: the next page above, with the control for the one after it.
    func earlierFragment(_ query: FormFields) async throws -> Response {
        guard let threadId = query["thread"].flatMap({ Int64($0) }), let page = query["page"].flatMap({ Int($0) }),
              MailLocation.earlierPagesRange.contains(page) else {
            throw HTTPError(.badRequest, message: "thread and page are needed")
        }
        let (messages, remaining) = try await services.openThread.earlier(threadId: threadId, page: page)
        var location = MailLocation(source: .unifiedInbox, threadId: threadId)
        location.earlierPages = page
        var markup = HTMLText()
        if remaining > 0 {
            let next = MailLocation.url(path: "fragments/earlier", items: [
                URLQueryItem(name: "thread", value: String(threadId)), URLQueryItem(name: "page", value: String(page + 1)),
            ])
            markup += "<div class=\"earlier\" id=\"earlier\"><a class=\"button\" href=\"#\" data-fragment=\"\(next)\">Show earlier messages (\(remaining))</a></div>"
        }
        for message in messages {
            markup += MessageView(message: message, threadId: threadId, location: location, csrfToken: csrfToken, time: RelativeTime()).render()
        }
        return WebResponse.html("<template data-earlier>\(html: markup)</template>")
    }

    /// A message body as its own document (see `BodyDocument`).
    func body(_ emailId: Int64, threadId: Int64, remoteImages: Bool) async throws -> Response {
        let message: ConversationMessage
        do {
            message = try await services.openThread.message(emailId, threadId: threadId, loadRemoteImages: remoteImages)
        } catch TernError.notFound {
            return BodyDocument.response(html: "<p>This message is no longer here.</p>", remoteImages: false)
        }
        guard let rendered = message.body, let html = rendered.html else {
            return BodyDocument.response(html: "<p>Message body not available offline</p>", remoteImages: false)
        }
        return BodyDocument.response(html: html, remoteImages: rendered.remoteImagesLoaded)
    }
}

extension ThreadListCursor {
    init?(query: FormFields) {
        guard let before = query["before"].flatMap({ Double($0) }), let after = query["after"].flatMap({ Int64($0) }) else { return nil }
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
            case .authenticationRefused(let text):
                return "The server refused the sign-in (\(text)). Nothing is retried until it is fixed: check the password, or sign in again (tern account login)."
            case .tlsRefused(let text): return "The server's secure connection was refused (\(text)), so nothing was sent to it."
            case .folderNeeded(let target, let folders):
                return folders.isEmpty ? "This conversation is in no synced folder (already archived)."
                    : "This conversation is in \(folders.joined(separator: ", ")): open it from that folder to archive or delete it there. (\(target))"
            case .accountNeeded(let available):
                return available.isEmpty ? "There is no account yet: add one with tern account add."
                    : "Choose the account to send from: \(available.joined(separator: ", "))."
            default: return error.message
            }
        }
        return String(describing: error)
    }
}
