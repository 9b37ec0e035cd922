import Foundation
import TernCore
import Testing

@testable import Assist

/// FR-ED-02 "Fallback Behavior" and the cache: an absent, slow, failing or empty-handed provider
/// gives nil (the section is hidden) within the budget; a cached summary is reused until the
/// thread gains a message or the provider changes.
@Suite struct AssistUseCasesTests {
    actor MemoryStore: AssistStore {
        var ids: [EmailID] = [1, 2]
        var cached: CachedThreadSummary?

        func add(_ id: EmailID) { ids.append(id) }

        func assistSource(threadId: ThreadID, maxMessages: Int) async throws -> AssistSource? {
            let messages = ids.map { id in
                AssistSource.Message(
                    emailId: id, from: EmailAddress(name: nil, address: "priya@ledgerly.test"),
                    to: [EmailAddress(name: nil, address: "alice@tern.test")], cc: [], date: Date(), subject: "Invoice",
                    bodyPlain: "Could you approve invoice \(id) by Friday?", bodyHTML: nil, snippet: nil, bulkMarkers: [])
            }
            return AssistSource(threadId: threadId, subject: "Invoice", messages: messages, allEmailIds: ids, userAddresses: ["alice@tern.test"])
        }
        func threadEmailIds(threadId: ThreadID) async throws -> [EmailID] { ids }
        func cachedSummary(threadId: ThreadID) async throws -> CachedThreadSummary? { cached }
        func threadId(ofEmail emailId: EmailID) async throws -> ThreadID? { 7 }
        func saveSummary(_ summary: CachedThreadSummary?, threadId: ThreadID) async throws { cached = summary }
    }

    struct PlainSanitizer: BodySanitizing {
        func sanitize(html: String, allowRemoteImages: Bool) -> SanitizedBody {
            SanitizedBody(
                html: html, trackersBlocked: 0, trackerHosts: [], remoteImagesBlocked: 0, hasQuotedText: false, sanitizedToNothing: false,
                suspiciousLinks: 0)
        }
        func renderPlainText(_ text: String) -> SanitizedBody { sanitize(html: text, allowRemoteImages: false) }
        func readableText(fromSanitizedHTML html: String) -> String { html }
    }

    enum Behaviour: Sendable {
        case answer(String?)
        case replies([SmartReply])
        case slow, fail
    }

    final class ScriptedProvider: AssistProvider, @unchecked Sendable {
        // @unchecked: `calls` is guarded by the lock; the rest is immutable.
        let name: String
        let behaviour: Behaviour
        let lock = NSLock()
        var calls = 0
        init(_ behaviour: Behaviour, name: String = "scripted") {
            self.behaviour = behaviour
            self.name = name
        }

        func summarize(_ thread: AssistThread) async throws -> String? {
            lock.withLock { calls += 1 }
            switch behaviour {
            case .answer(let text): return text
            case .replies: return nil
            case .slow:
                try await Task.sleep(for: .seconds(30))
                return "too late"
            case .fail: throw AssistFailure.unreachable("refused")
            }
        }

        func suggestReplies(_ thread: AssistThread) async throws -> [SmartReply] {
            switch behaviour {
            case .replies(let replies): return replies
            case .slow:
                try await Task.sleep(for: .seconds(30))
                return []
            case .fail: throw AssistFailure.malformedAnswer("x")
            case .answer: return []
            }
        }
    }

    struct FixedProviders: AssistProviderSource {
        let provider: (any AssistProvider)?
        func currentProvider() async -> (any AssistProvider)? { provider }
    }

    func useCases(_ provider: (any AssistProvider)?, store: MemoryStore = MemoryStore()) -> (SummarizeThreadUseCase, SmartReplyUseCase) {
        let loader = AssistThreadLoader(store: store, sanitizer: PlainSanitizer())
        let budget = AssistBudget(seconds: 0.2)
        return (
            SummarizeThreadUseCase(loader: loader, store: store, providers: FixedProviders(provider: provider), budget: budget),
            SmartReplyUseCase(loader: loader, providers: FixedProviders(provider: provider), budget: budget)
        )
    }

    @Test(arguments: ["absent", "slow", "failing", "empty", "blank"])
    func everyFailureIsNil(kind: String) async {
        let provider: (any AssistProvider)? =
            switch kind {
            case "absent": nil
            case "slow": ScriptedProvider(.slow)
            case "failing": ScriptedProvider(.fail)
            case "empty": ScriptedProvider(.answer(nil))
            default: ScriptedProvider(.answer(" \u{0007}\u{202E} "))
            }
        let (summarize, suggest) = useCases(provider)
        // The slow provider would answer "too late" after 30 s: nil here is the budget at work.
        #expect(await summarize(threadId: 7) == nil)
        #expect(await suggest(threadId: 7).isEmpty)
    }

    @Test func theSummaryIsCachedUntilTheThreadGains() async {
        let store = MemoryStore()
        let provider = ScriptedProvider(.answer("Approve invoice 1 by Friday."))
        let (summarize, _) = useCases(provider, store: store)
        #expect(await summarize.cached(threadId: 7) == nil)
        let first = await summarize(threadId: 7)
        #expect(first?.text == "Approve invoice 1 by Friday.")
        #expect(await summarize(threadId: 7) == first)
        #expect(await summarize.cached(threadId: 7) == first)
        #expect(provider.calls == 1)
        await store.add(3)
        #expect(await summarize.cached(threadId: 7) == nil)
        _ = await summarize(threadId: 7)
        #expect(provider.calls == 2)
        let (other, _) = useCases(ScriptedProvider(.answer("Another provider."), name: "other"), store: store)
        #expect(await other(threadId: 7)?.text == "Another provider.", "a cache written by another provider is stale")
    }

    @Test func repliesAreCleanedDeduplicatedAndCappedAtThree() async {
        let replies = ["Yes\u{202E}!", "Yes!", "No.", "Later.", "Never."].map { SmartReply(text: $0, intent: .question) }
        let (_, suggest) = useCases(ScriptedProvider(.replies(replies)))
        #expect(await suggest(threadId: 7).map(\.text) == ["Yes!", "No.", "Later."])
        #expect(await suggest(replyingTo: 1).count == 3)
    }

    @Test func providerTextIsCleanedAndCapped() {
        #expect(AssistText.clean("a\u{001B}]52;x\u{0007}b \u{202E}c\n\n\n\nd", maxCharacters: 100) == "a]52;xb c\n\nd")
        #expect(AssistText.clean(String(repeating: "x", count: 50), maxCharacters: 10) == "xxxxxxxxx…")
    }
}
