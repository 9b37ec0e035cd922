import Foundation

/// A thread's messages as stored, for the Assist use cases to turn into an `AssistThread`.
public struct AssistSource: Sendable, Hashable {
    public struct Message: Sendable, Hashable {
        public var emailId: EmailID
        public var from: EmailAddress
        public var to: [EmailAddress]
        public var cc: [EmailAddress]
        public var date: Date
        public var subject: String
        public var bodyPlain: String?
        public var bodyHTML: String?
        public var snippet: String?
        public var bulkMarkers: BulkMailMarkers

        public init(
            emailId: EmailID, from: EmailAddress, to: [EmailAddress], cc: [EmailAddress], date: Date, subject: String,
            bodyPlain: String?, bodyHTML: String?, snippet: String?, bulkMarkers: BulkMailMarkers
        ) {
            self.emailId = emailId
            self.from = from
            self.to = to
            self.cc = cc
            self.date = date
            self.subject = subject
            self.bodyPlain = bodyPlain
            self.bodyHTML = bodyHTML
            self.snippet = snippet
            self.bulkMarkers = bulkMarkers
        }
    }

    public var threadId: ThreadID
    public var subject: String
    /// Oldest first; at most the newest `AssistThreadLoader.maxMessages`.
    public var messages: [Message]
    /// Every message of the thread, so the cache key changes when one arrives or goes.
    public var allEmailIds: [EmailID]
    public var userAddresses: Set<String>

    public init(threadId: ThreadID, subject: String, messages: [Message], allEmailIds: [EmailID], userAddresses: Set<String>) {
        self.threadId = threadId
        self.subject = subject
        self.messages = messages
        self.allEmailIds = allEmailIds
        self.userAddresses = userAddresses
    }
}

/// The summary cached on the thread (`aiSummary`, `aiSummaryDate`, `aiSummaryKey`).
public struct CachedThreadSummary: Sendable, Hashable {
    public var text: String
    public var date: Date
    public var key: String

    public init(text: String, date: Date, key: String) {
        self.text = text
        self.date = date
        self.key = key
    }
}

public protocol AssistStore: Sendable {
    /// nil when there is no such thread.
    func assistSource(threadId: ThreadID, maxMessages: Int) async throws -> AssistSource?
    /// Every message id of the thread (empty when there is no such thread): the cache key's part.
    func threadEmailIds(threadId: ThreadID) async throws -> [EmailID]
    func cachedSummary(threadId: ThreadID) async throws -> CachedThreadSummary?
    /// The thread a message belongs to: the composer knows the message it replies to.
    func threadId(ofEmail emailId: EmailID) async throws -> ThreadID?
    func saveSummary(_ summary: CachedThreadSummary?, threadId: ThreadID) async throws
}

/// The provider the settings choose, each time it is asked (a change in Settings applies at once).
public protocol AssistProviderSource: Sendable {
    /// nil when Assist is off or the configured endpoint is not allowed; the sections are hidden.
    func currentProvider() async -> (any AssistProvider)?
}

/// Turns stored messages into the plain text the providers read, with bounded cost: the newest
/// `maxMessages` messages, each cut at `maxCharacters`.
public struct AssistThreadLoader: Sendable {
    public static let maxMessages = 40
    public static let maxCharacters = 20_000
    let store: any AssistStore
    let sanitizer: any BodySanitizing

    public init(store: any AssistStore, sanitizer: any BodySanitizing) {
        self.store = store
        self.sanitizer = sanitizer
    }

    public func load(threadId: ThreadID) async throws -> (source: AssistSource, thread: AssistThread)? {
        guard let source = try await store.assistSource(threadId: threadId, maxMessages: Self.maxMessages) else { return nil }
        let messages = source.messages.map { message in
            AssistMessage(
                from: message.from, to: message.to, cc: message.cc, date: message.date, subject: message.subject,
                text: String(text(of: message).prefix(Self.maxCharacters)), bulkMarkers: message.bulkMarkers)
        }
        return (source, AssistThread(subject: source.subject, messages: messages, userAddresses: source.userAddresses))
    }

    /// The plain part; else what a reader sees of the sanitized HTML part; else the snippet (the
    /// body is not downloaded yet).
    func text(of message: AssistSource.Message) -> String {
        if let plain = message.bodyPlain, !plain.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return plain }
        if let html = message.bodyHTML { return sanitizer.readableText(ofHTML: String(html.prefix(Self.maxCharacters * 5))) }
        return message.snippet ?? ""
    }
}

/// Runs a provider call within a time budget; past it, or on any failure, the answer is nil
/// (FR-ED-02 "Fallback Behavior": the section is hidden, no error is shown).
public struct AssistBudget: Sendable {
    public var seconds: Double

    public init(seconds: Double) { self.seconds = seconds }

    func run<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value) async -> Result<Value, any Error> {
        let outcome = await withDeadline(.seconds(seconds)) { () -> Result<Value, any Error> in
            do { return .success(try await operation()) } catch { return .failure(error) }
        }
        return outcome ?? .failure(AssistFailure.timedOut)
    }
}

/// FR-ED-02: the summary at the top of a thread. Cached on the thread and recomputed when the
/// thread gains or loses a message or the provider changes; nil hides the section.
public struct SummarizeThreadUseCase: Sendable {
    let loader: AssistThreadLoader
    let store: any AssistStore
    let providers: any AssistProviderSource
    let budget: AssistBudget
    let clock: any WallClock
    let log: @Sendable (String) -> Void

    public init(
        loader: AssistThreadLoader, store: any AssistStore, providers: any AssistProviderSource, budget: AssistBudget,
        clock: any WallClock = SystemClock(), log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.loader = loader
        self.store = store
        self.providers = providers
        self.budget = budget
        self.clock = clock
        self.log = log
    }

    /// What a conversation is first drawn with (AC-U-11: the thread never waits for Assist): no
    /// section when Assist is off, the summary when it is cached and current, else a placeholder.
    public enum Opening: Sendable {
        case off
        case pending
        case cached(ThreadDigest)
    }

    public func opening(threadId: ThreadID) async -> Opening {
        guard let provider = await providers.currentProvider() else { return .off }
        return await cached(threadId: threadId, provider: provider).map(Opening.cached) ?? .pending
    }

    /// The summary if it is cached and current for the provider the settings choose.
    public func cached(threadId: ThreadID) async -> ThreadDigest? {
        if case .cached(let digest) = await opening(threadId: threadId) { digest } else { nil }
    }

    /// The summary if it is cached and current, read without loading or computing anything.
    func cached(threadId: ThreadID, provider: any AssistProvider) async -> ThreadDigest? {
        guard let ids = try? await store.threadEmailIds(threadId: threadId), !ids.isEmpty,
            let cached = try? await store.cachedSummary(threadId: threadId),
            cached.key == Self.key(provider: provider.identity, emailIds: ids)
        else { return nil }
        return ThreadDigest(text: cached.text, provider: provider.name, date: cached.date)
    }

    /// The cached summary when current, else a new one from the provider (within the budget).
    public func callAsFunction(threadId: ThreadID) async -> ThreadDigest? {
        guard let provider = await providers.currentProvider() else { return nil }
        if let digest = await cached(threadId: threadId, provider: provider) { return digest }
        let loaded: (source: AssistSource, thread: AssistThread)
        do {
            guard let found = try await loader.load(threadId: threadId) else { return nil }
            loaded = found
        } catch {
            log("assist: thread \(threadId) could not be read: \(error)")
            return nil
        }
        let key = Self.key(provider: provider.identity, emailIds: loaded.source.allEmailIds)
        let thread = loaded.thread
        switch await budget.run({ try await provider.summarize(thread) }) {
        case .success(let text?):
            let cleaned = AssistText.clean(text, maxCharacters: 1_200)
            guard !cleaned.isEmpty else { return nil }
            let now = clock.now()
            do {
                try await store.saveSummary(CachedThreadSummary(text: cleaned, date: now, key: key), threadId: threadId)
            } catch {
                log("assist: summary of thread \(threadId) not cached: \(error)")
            }
            return ThreadDigest(text: cleaned, provider: provider.name, date: now)
        case .success(nil):
            return nil
        case .failure(let error):
            log("assist: \(provider.name) summary of thread \(threadId) failed: \(error)")
            return nil
        }
    }

    /// The provider and every message id: a new message, a deleted one or another provider
    /// makes the cached summary stale.
    static func key(provider: String, emailIds: [EmailID]) -> String {
        "\(provider):" + emailIds.sorted().map(String.init).joined(separator: ",")
    }
}

/// FR-COMP-03, FR-ED-02: up to three smart replies for the thread's last message, computed on
/// demand within the budget; empty hides the section.
public struct SmartReplyUseCase: Sendable {
    let loader: AssistThreadLoader
    var store: any AssistStore { loader.store }
    let providers: any AssistProviderSource
    let budget: AssistBudget
    let log: @Sendable (String) -> Void

    public init(
        loader: AssistThreadLoader, providers: any AssistProviderSource, budget: AssistBudget,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.loader = loader
        self.providers = providers
        self.budget = budget
        self.log = log
    }

    /// FR-COMP-03: the replies for the thread of the message a reply composer answers.
    public func callAsFunction(replyingTo emailId: EmailID) async -> [SmartReply] {
        guard let threadId = try? await store.threadId(ofEmail: emailId) else { return [] }
        return await self(threadId: threadId)
    }

    public func callAsFunction(threadId: ThreadID) async -> [SmartReply] {
        guard let provider = await providers.currentProvider(),
            let loaded = try? await loader.load(threadId: threadId)
        else { return [] }
        let thread = loaded.thread
        switch await budget.run({ try await provider.suggestReplies(thread) }) {
        case .success(let replies):
            var seen: Set<String> = []
            return replies.compactMap { reply in
                let text = AssistText.clean(reply.text, maxCharacters: 500)
                guard !text.isEmpty, seen.insert(text).inserted else { return nil }
                return SmartReply(text: text, intent: reply.intent)
            }.prefix(3).map { $0 }
        case .failure(let error):
            log("assist: \(provider.name) replies for thread \(threadId) failed: \(error)")
            return []
        }
    }
}

/// A provider's text made fit to show: control and bidi-override characters removed, whitespace
/// collapsed (line breaks kept, at most one blank line), cut at a length. It stays text: every
/// front end escapes it.
public enum AssistText {
    public static func clean(_ text: String, maxCharacters: Int) -> String {
        var scalars = String.UnicodeScalarView()
        var pendingSpace = false
        var newlines = 0
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                newlines += 1
                pendingSpace = false
                continue
            }
            let category = scalar.properties.generalCategory
            if scalar == " " || scalar == "\t" || category == .spaceSeparator {
                pendingSpace = true
                continue
            }
            if category == .control || category == .format || category == .lineSeparator || category == .paragraphSeparator
                || category == .privateUse || category == .unassigned || category == .surrogate
            {
                continue
            }
            if !scalars.isEmpty {
                if newlines > 0 {
                    scalars.append(contentsOf: newlines > 1 ? "\n\n".unicodeScalars : "\n".unicodeScalars)
                } else if pendingSpace {
                    scalars.append(" ")
                }
            }
            newlines = 0
            pendingSpace = false
            scalars.append(scalar)
        }
        let cleaned = String(scalars)
        guard cleaned.count > maxCharacters else { return cleaned }
        return String(cleaned.prefix(maxCharacters - 1)) + "…"
    }
}
