import Foundation
import TernCore
import Testing

@testable import Assist

/// The OpenAI-compatible provider's contract with a transport double: what it sends, and answers
/// parsed defensively (issue 19).
@Suite struct OpenAICompatibleProviderTests {
    final class RecordingTransport: AssistHTTPTransport, @unchecked Sendable {
        // @unchecked: tests call it from one task at a time; the lock guards the record anyway.
        let lock = NSLock()
        var requests: [(URL, Data?)] = []
        let answer: @Sendable (URL) -> (Int, Data)

        init(answer: @escaping @Sendable (URL) -> (Int, Data)) { self.answer = answer }

        func exchange(url: URL, body: Data?, timeoutSeconds: Double, maxBytes: Int) async throws -> (status: Int, body: Data) {
            lock.withLock { requests.append((url, body)) }
            let (status, data) = answer(url)
            return (status, data)
        }
    }

    static func completion(_ content: String) -> Data {
        try! JSONSerialization.data(withJSONObject: ["choices": [["message": ["role": "assistant", "content": content]]]])
    }

    static let thread = BuiltInAssistProviderTests.thread(BuiltInAssistProviderTests.message("Could you approve invoice 2026-118 by Friday?"))

    @Test func summarizeSendsTheThreadToChatCompletions() async throws {
        let transport = RecordingTransport { _ in (200, Self.completion("  Approve invoice 2026-118.  ")) }
        let provider = OpenAICompatibleProvider(
            endpoint: try #require(AssistEndpointAddress("http://127.0.0.1:8080/v1")), model: "m",
            transport: transport)
        #expect(try await provider.summarize(Self.thread) == "Approve invoice 2026-118.")
        let (url, body) = try #require(transport.requests.first)
        #expect(url.absoluteString == "http://127.0.0.1:8080/v1/chat/completions")
        let sent = try #require(body)
        let request = try #require(try JSONSerialization.jsonObject(with: sent) as? [String: Any])
        #expect(request["model"] as? String == "m" && request["stream"] as? Bool == false)
        #expect(provider.identity == "endpoint:m@http://127.0.0.1:8080/v1")
    }

    @Test(arguments: [
        ("[{\"text\": \"Yes\", \"intent\": \"question\"}, {\"text\": \"Done\", \"intent\": \"bogus\"}]", ["Yes", "Done"]),
        ("```json\n[\"One\", \"Two\", \"Three\", \"Four\"]\n```", ["One", "Two", "Three"]),
        ("1. Sounds good\n2. Let me check", ["Sounds good", "Let me check"])
    ])
    func repliesAreParsedFromWhatModelsWrite(answer: String, texts: [String]) throws {
        let replies = try OpenAICompatibleProvider.parseReplies(answer)
        #expect(replies.map(\.text) == texts)
        #expect(replies.allSatisfy { ReplyIntent.allCases.contains($0.intent) })
    }

    @Test(arguments: [Data("{not json".utf8), Data("{\"choices\": []}".utf8), Data("{\"choices\": [{\"message\": {}}]}".utf8)])
    func malformedAnswersAreErrors(body: Data) {
        #expect(throws: AssistFailure.self) { try OpenAICompatibleProvider.content(of: body) }
    }

    @Test func aServerErrorIsAnError() async throws {
        let provider = OpenAICompatibleProvider(
            endpoint: try #require(AssistEndpointAddress("http://localhost:9/v1")), model: "",
            transport: RecordingTransport { _ in (500, Data()) })
        await #expect(throws: AssistFailure.malformedAnswer("HTTP 500")) { try await provider.summarize(Self.thread) }
    }

    @Test(arguments: [
        ("http://127.0.0.1:8080/v1", true), ("http://localhost:11434/v1", true), ("http://[::1]:8080/v1", true), ("http://127.5.6.7/v1", true),
        ("http://10.0.0.5:8080/v1", false), ("https://api.example.com/v1", false), ("http://127.0.0.1.evil.test/v1", false),
        ("http://0x7f000001/v1", false)
    ])
    func onlyLoopbackIsLocal(text: String, local: Bool) throws {
        #expect(try #require(AssistEndpointAddress(text)).isLoopback == local)
    }

    @Test(arguments: ["ftp://127.0.0.1/v1", "http://user:pw@127.0.0.1/v1", "127.0.0.1:8080", "http://127.0.0.1/v1?x=1", ""])
    func unusableAddressesAreRefused(text: String) {
        #expect(AssistEndpointAddress(text) == nil)
    }
}
