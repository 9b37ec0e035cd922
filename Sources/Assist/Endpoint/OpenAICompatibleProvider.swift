import Foundation
import TernCore

/// One HTTP exchange with the endpoint; the runtime implements it (AsyncHTTPClient), tests use doubles.
public protocol AssistHTTPTransport: Sendable {
    /// POSTs `body` (JSON) or GETs when it is nil. Answers the status and at most `maxBytes` of
    /// the body; a longer body is an error, not a truncation.
    func exchange(url: URL, body: Data?, timeoutSeconds: Double, maxBytes: Int) async throws -> (status: Int, body: Data)
}

/// The optional Assist provider: a model served on this machine through the OpenAI chat
/// completions API (llama.cpp's `llama-server`, Ollama, LM Studio, vLLM). Mail reaches it only on
/// loopback unless the user allowed another host (`assist-allow-remote`, P-01/P-02). Its answer is
/// untrusted text: size-capped, parsed defensively, cleaned of controls, never read as markup.
public struct OpenAICompatibleProvider: AssistProvider {
    public let name = "endpoint"
    public var identity: String { "endpoint:\(model)@\(endpoint.baseURL.absoluteString)" }
    public var endpoint: AssistEndpointAddress
    public var model: String
    var transport: any AssistHTTPTransport
    var timeoutSeconds: Double
    /// A summary or reply list is a few hundred bytes; a megabyte is already hostile.
    static let maxAnswerBytes = 1 << 20
    /// What the prompt carries of the thread, newest messages first kept.
    static let maxPromptCharacters = 24_000

    public init(endpoint: AssistEndpointAddress, model: String, transport: any AssistHTTPTransport, timeoutSeconds: Double = 60) {
        self.endpoint = endpoint
        self.model = model
        self.transport = transport
        self.timeoutSeconds = timeoutSeconds
    }

    public func summarize(_ thread: AssistThread) async throws -> String? {
        let answer = try await complete(system: Self.summaryInstructions, user: Self.transcript(of: thread), maxTokens: 200)
        let text = answer.trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    public func suggestReplies(_ thread: AssistThread) async throws -> [SmartReply] {
        // The same silence rules as the built-in provider: a model is not asked about mail that
        // expects no answer (bulk, automated, the user's own last message).
        // A model writes other languages well, so only the rules that hold in any language apply.
        guard BuiltInAssistProvider().noReplyReason(thread) == nil else { return [] }
        let answer = try await complete(system: Self.replyInstructions, user: Self.transcript(of: thread), maxTokens: 300)
        return try Self.parseReplies(answer)
    }

    /// Asks `GET …/models`: whether the endpoint answers like an OpenAI-compatible server.
    public func testConnection() async throws -> [String] {
        let (status, body) = try await transport.exchange(
            url: endpoint.modelsURL, body: nil, timeoutSeconds: min(timeoutSeconds, 10),
            maxBytes: Self.maxAnswerBytes)
        guard status == 200 else { throw AssistFailure.malformedAnswer("HTTP \(status)") }
        struct Models: Decodable {
            struct Model: Decodable { var id: String }
            var data: [Model]
        }
        guard let models = try? JSONDecoder().decode(Models.self, from: body) else {
            throw AssistFailure.malformedAnswer("the models list is not the OpenAI format")
        }
        return models.data.map { AssistText.clean($0.id, maxCharacters: 200) }
    }

    func complete(system: String, user: String, maxTokens: Int) async throws -> String {
        struct Request: Encodable {
            struct Message: Encodable {
                var role: String
                var content: String
            }
            var model: String
            var messages: [Message]
            var temperature: Double
            var maxTokens: Int
            var stream: Bool
        }
        let request = Request(
            model: model.isEmpty ? "default" : model,
            messages: [.init(role: "system", content: system), .init(role: "user", content: user)],
            temperature: 0.2, maxTokens: maxTokens, stream: false)
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase // the API's `max_tokens`
        let (status, body) = try await transport.exchange(
            url: endpoint.chatCompletionsURL, body: try encoder.encode(request),
            timeoutSeconds: timeoutSeconds, maxBytes: Self.maxAnswerBytes)
        guard status == 200 else { throw AssistFailure.malformedAnswer("HTTP \(status)") }
        return try Self.content(of: body)
    }

    /// `choices[0].message.content` as a string, whatever else the answer holds.
    static func content(of body: Data) throws -> String {
        struct Response: Decodable {
            struct Choice: Decodable {
                struct Message: Decodable { var content: String? }
                var message: Message?
                var text: String?
            }
            var choices: [Choice]
        }
        guard let response = try? JSONDecoder().decode(Response.self, from: body), let first = response.choices.first,
            let content = first.message?.content ?? first.text
        else { throw AssistFailure.malformedAnswer("no choices[0].message.content") }
        return content
    }

    /// A JSON array of strings or of `{text, intent}`, possibly inside a code fence; else one reply
    /// per line. Intents the model names outside the five are read as `question`.
    static func parseReplies(_ answer: String) throws -> [SmartReply] {
        var text = answer.trimmingCharacters(in: .whitespacesAndNewlines)
        if let open = text.firstIndex(of: "["), let close = text.lastIndex(of: "]"), open < close {
            text = String(text[open...close])
            struct Item: Decodable {
                var text: String
                var intent: String?
            }
            let data = Data(text.utf8)
            if let items = try? JSONDecoder().decode([Item].self, from: data) {
                return items.prefix(3).map { SmartReply(text: $0.text, intent: $0.intent.flatMap(ReplyIntent.init(rawValue:)) ?? .question) }
            }
            if let strings = try? JSONDecoder().decode([String].self, from: data) {
                return strings.prefix(3).map { SmartReply(text: $0, intent: .question) }
            }
        }
        let lines = answer.split(whereSeparator: \.isNewline).map {
            $0.trimmingCharacters(in: CharacterSet(charactersIn: " -*•0123456789.)\""))
        }.filter { !$0.isEmpty && $0.count <= 300 }
        guard !lines.isEmpty else { throw AssistFailure.malformedAnswer("no replies") }
        return lines.prefix(3).map { SmartReply(text: $0, intent: .question) }
    }

    static let summaryInstructions = """
        You summarize an email thread for the person whose mailbox it is. Write one to three plain sentences in the thread's \
        language: the decision, the open question, dates and amounts. No greeting, no preamble, no markup, no lists.
        """

    static let replyInstructions = """
        You suggest replies to the last message of an email thread, for the person whose mailbox it is. Answer only with a JSON \
        array of at most three objects {"text": "...", "intent": "..."}, intent one of question, scheduling, actionRequest, \
        thanks, announcement. Each text is one short sentence in the language of the last message. Answer [] when no reply is expected.
        """

    /// The thread as the model reads it: each message's sender, date and own text, oldest first,
    /// cut from the oldest when long.
    static func transcript(of thread: AssistThread) -> String {
        let lexicons = BuiltInAssistProvider.cleaningLexicons
        var parts: [String] = []
        var total = 0
        for message in thread.messages.reversed() {
            let own = MessageText.ownLines(message.text, lexicons: lexicons).joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
            let who = thread.isFromUser(message) ? "\(message.from.displayName) (the user)" : message.from.displayName
            let part = "From: \(who)\nDate: \(ISO8601DateFormatter().string(from: message.date))\n\n\(own)"
            if total + part.count > maxPromptCharacters, !parts.isEmpty { break }
            parts.append(String(part.prefix(maxPromptCharacters)))
            total += part.count
        }
        return "Subject: \(thread.subject)\n\n" + parts.reversed().joined(separator: "\n\n---\n\n")
    }
}
