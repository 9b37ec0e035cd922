import Foundation

/// What opening a thread gave (FR-ED-01 view states).
public enum ThreadOpening: Sendable {
    /// The page to show now, from the store, and the network work it started (bodies of the page
    /// not stored yet, the read flags): a live front end redraws on the change feed's `bodyArrived`,
    /// the CLI waits for it.
    case opened(Conversation, network: ConversationNetworkWork?)
    /// E-08: a thread without messages ("This conversation appears empty").
    case empty(threadId: ThreadID)
}

/// The network side of opening a thread, started after the page was read from the store.
public struct ConversationNetworkWork: Sendable {
    let task: Task<ConversationNetworkOutcome, Never>

    public func outcome() async -> ConversationNetworkOutcome { await task.value }
}

public struct ConversationNetworkOutcome: Sendable, Equatable {
    public var bodiesFetched = 0
    /// E-05: the server could not be reached for the bodies.
    public var offline = false
    /// Why bodies could not be fetched, when they could not.
    public var bodyError: TernError?
    /// FR-ED-01: marking read reached the server, or is waiting for it / was refused.
    public var markRead: ActionResult?
}

/// FR-ED-01 "open a thread": marks its unread messages read at once (before any network work),
/// returns one page (FR-ED-05) oldest first with the expand/collapse defaults and the expanded
/// messages' bodies rendered (FR-ED-04), and fetches the bodies the store lacks without making the
/// page wait for them.
public struct OpenThreadUseCase: Sendable {
    let queries: any MailQueries
    let actions: MailActionsUseCase
    let bodies: FetchThreadBodiesUseCase?
    let renderer: RenderMessageUseCase
    let trustedSenders: any TrustedSenderStore
    let attachmentWarnings: AttachmentWarningsUseCase
    /// Issue 37: the `read-receipts` setting (nil: ask).
    let settings: (any SettingsStore)?

    public struct Options: Sendable, Hashable {
        /// FR-ED-01: opening marks read; `tern thread --keep-unread` does not.
        public var markRead = true
        /// FR-ED-05: "Show earlier messages" pages loaded on top of the first.
        public var earlierPages = 0
        public var expandAll = false
        /// "Load remote images" for these messages (FR-ED-04).
        public var loadRemoteImages: Set<EmailID> = []
        /// Fetch the page's missing bodies from the server (off: only what is stored).
        public var fetchMissingBodies = true

        public init(
            markRead: Bool = true, earlierPages: Int = 0, expandAll: Bool = false, loadRemoteImages: Set<EmailID> = [],
            fetchMissingBodies: Bool = true
        ) {
            self.markRead = markRead
            self.earlierPages = earlierPages
            self.expandAll = expandAll
            self.loadRemoteImages = loadRemoteImages
            self.fetchMissingBodies = fetchMissingBodies
        }
    }

    public init(
        queries: any MailQueries, actions: MailActionsUseCase, bodies: FetchThreadBodiesUseCase?, renderer: RenderMessageUseCase,
        trustedSenders: any TrustedSenderStore, attachmentWarnings: AttachmentWarningsUseCase, settings: (any SettingsStore)? = nil
    ) {
        self.settings = settings
        self.queries = queries
        self.actions = actions
        self.bodies = bodies
        self.renderer = renderer
        self.trustedSenders = trustedSenders
        self.attachmentWarnings = attachmentWarnings
    }

    public func callAsFunction(threadId: ThreadID, options: Options = Options()) async throws -> ThreadOpening {
        guard let outline = try await queries.threadOutline(id: threadId) else { throw TernError.notFound("thread \(threadId)") }
        guard !outline.entries.isEmpty else { return .empty(threadId: threadId) }
        let window = ConversationWindow(entries: outline.entries, earlierPages: options.earlierPages)
        let expanded = options.expandAll ? Set(outline.entries.map(\.emailId)) : ConversationWindow.expanded(entries: outline.entries)

        // FR-ED-01: "immediately when the thread opens": the store first, the server after.
        var readScope: ActionScope?
        if options.markRead, outline.entries.contains(where: { !$0.isRead }) {
            readScope = try await actions.markLocally(.read, [.thread(threadId)])
        }
        let ids = window.indexes.map { outline.entries[$0].emailId }
        let messages = try await queries.threadMessages(ids: ids)
        let page = try await conversationMessages(
            messages, expanded: expanded, loadRemoteImages: options.loadRemoteImages,
            fetching: options.fetchMissingBodies && bodies != nil)
        let conversation = Conversation(
            threadId: threadId, subject: outline.subject, messageCount: outline.entries.count, messages: page,
            earlierCount: window.earlierCount, offline: false)

        let missing = Set(messages.filter { !$0.bodiesFetched }.map(\.emailId))
        let fetchBodies = options.fetchMissingBodies && !missing.isEmpty ? bodies : nil
        guard fetchBodies != nil || readScope != nil else { return .opened(conversation, network: nil) }
        let task = Task { [actions] in
            var outcome = ConversationNetworkOutcome()
            if let fetchBodies {
                do {
                    outcome.bodiesFetched = try await fetchBodies(threadId: threadId, only: missing)
                } catch let error as TernError {
                    outcome.offline = true
                    outcome.bodyError = error
                } catch {
                    outcome.offline = true
                    outcome.bodyError = .connectionLost(String(describing: error))
                }
            }
            if let readScope { outcome.markRead = try? await actions.push(readScope) }
            return outcome
        }
        return .opened(conversation, network: ConversationNetworkWork(task: task))
    }

    /// The same page read again from the store (bodies that arrived, remote images now allowed),
    /// with the same messages expanded: the read state no longer says which were new.
    public func refreshed(_ conversation: Conversation, loadRemoteImages: Set<EmailID> = [], offline: Bool = false) async throws -> Conversation {
        let messages = try await queries.threadMessages(ids: conversation.messages.map(\.id))
        let expanded = Set(conversation.messages.filter { !$0.collapsed }.map(\.id))
        var refreshed = conversation
        refreshed.messages = try await conversationMessages(messages, expanded: expanded, loadRemoteImages: loadRemoteImages, fetching: false)
        refreshed.offline = offline
        return refreshed
    }

    /// FR-ED-05 "Show earlier messages": the `page`th page above the first, oldest first, and how many
    /// older messages remain after it. A failure leaves what the front end has loaded as it is.
    public func earlier(threadId: ThreadID, page: Int, loadRemoteImages: Set<EmailID> = []) async throws -> (
        messages: [ConversationMessage], remaining: Int
    ) {
        guard let outline = try await queries.threadOutline(id: threadId) else { throw TernError.notFound("thread \(threadId)") }
        let (indexes, remaining) = ConversationWindow.earlierPage(page, of: outline.entries)
        let messages = try await queries.threadMessages(ids: indexes.map { outline.entries[$0].emailId })
        // Earlier messages are read ones (collapsed) unless they are unread ones the first page left out.
        let expanded = Set(messages.filter { !$0.isRead }.map(\.emailId))
        return (try await conversationMessages(messages, expanded: expanded, loadRemoteImages: loadRemoteImages, fetching: false), remaining)
    }

    /// One message again, expanded and rendered: a click on a collapsed message, or "Load remote
    /// images". Its body is fetched first when the store lacks it; offline it says so (E-05).
    public func message(_ emailId: EmailID, threadId: ThreadID, loadRemoteImages: Bool = false) async throws -> ConversationMessage {
        guard var message = try await queries.threadMessages(ids: [emailId]).first else { throw TernError.notFound("message m\(emailId)") }
        if !message.bodiesFetched, let bodies {
            if (try? await bodies(threadId: threadId, only: [emailId])) ?? 0 > 0 {
                message = try await queries.threadMessages(ids: [emailId]).first ?? message
            }
        }
        let converted = try await conversationMessages(
            [message], expanded: [emailId], loadRemoteImages: loadRemoteImages ? [emailId] : [],
            fetching: false)
        return converted[0]
    }

    func conversationMessages(
        _ messages: [ThreadMessage], expanded: Set<EmailID>, loadRemoteImages: Set<EmailID>,
        fetching: Bool
    ) async throws -> [ConversationMessage] {
        let senders = Set(messages.map { $0.from.address.lowercased() })
        let trusted = try await trustedSenders.trusted(among: senders)
        let metered = await attachmentWarnings.isMetered()
        let receipts = try await settings?.settings().readReceipts ?? .ask
        return messages.map { message in
            let isExpanded = expanded.contains(message.emailId)
            let state: BodyState =
                if !message.bodiesFetched {
                    fetching ? .loading : .unavailableOffline
                } else if message.bodyPlain == nil && message.bodyHTML == nil {
                    .empty
                } else {
                    message.bodyTruncated ? .truncated : .available
                }
            let body =
                isExpanded && message.bodiesFetched
                ? renderer.render(
                    message, loadRemoteImages: loadRemoteImages.contains(message.emailId),
                    senderTrusted: trusted.contains(message.from.address.lowercased()))
                : nil
            let attachments = message.attachments.map { attachment in
                AttachmentView(
                    id: attachment.id, filename: attachment.filename, mimeType: attachment.mimeType, size: attachment.sizeBytes,
                    isDownloaded: attachment.isDownloaded, isInline: attachment.isInline,
                    warnings: AttachmentWarning.before(downloading: attachment.filename, size: attachment.sizeBytes, metered: metered))
            }
            var conversationMessage = ConversationMessage(
                id: message.emailId, messageId: message.messageId, subject: message.subject, from: message.from,
                senderName: message.from.name.flatMap { $0.isEmpty ? nil : $0 } ?? message.from.address, avatar: SenderAvatar(for: message.from),
                to: message.to, cc: message.cc, date: message.date, isRead: message.isRead, isStarred: message.isStarred, collapsed: !isExpanded,
                snippet: Self.oneLine(message.snippet ?? message.bodyPlain ?? ""), body: body, bodyState: state, attachments: attachments,
                folders: message.folders, sendState: message.sendState, sendError: message.sendError)
            conversationMessage.senderAuthentication = message.senderAuthentication
            conversationMessage.scheduledAt = message.scheduledAt
            conversationMessage.authenticationChecks = message.authenticationChecks
            conversationMessage.readReceipt = ReadReceiptRequest.judge(
                to: message.readReceiptTo, state: message.readReceiptState, flaggedSentOnServer: message.receiptFlaggedOnServer,
                bulkMarkers: message.bulkMarkers, isRead: message.isRead, setting: receipts)
            conversationMessage.offersUnsubscribe = message.bulkMarkers.contains(.listUnsubscribe)
            return conversationMessage
        }
    }

    /// A collapsed message's line: white space runs as one space, at most 200 characters.
    static func oneLine(_ text: String) -> String {
        let words = text.prefix(2_000).split(whereSeparator: { $0.isWhitespace })
        let line = words.joined(separator: " ")
        return line.count > 200 ? String(line.prefix(199)) + "…" : line
    }
}
