import ArgumentParser
import Assist
import Foundation
import TernCore

/// `tern assist-eval-one`: the built-in Assist provider on one thread of the labelled evaluation
/// set (SystemTests/assist-eval, its README gives the format), for `scripts/assist_eval.py`. Reads
/// the thread's JSON on stdin and prints `{"summary", "suggestions": [{"text", "intent"}]}`.
struct AssistEvalOneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assist-eval-one", abstract: "Summarize and suggest replies for one evaluation-set thread read from stdin (JSON).",
        shouldDisplay: false)

    @Flag(help: "Also print the detected language, intents and why no reply is suggested.") var explain = false

    struct EvalThread: Decodable {
        struct Person: Decodable {
            var name: String?
            var address: String
        }
        struct Message: Decodable {
            var from: Person
            var to: [Person]
            var cc: [Person]?
            var date: String
            var subject: String
            var body: String
        }
        var messages: [Message]
        var headers: [String: String]?
        var user: String
    }

    struct Output: Encodable {
        var summary: String
        var suggestions: [SmartReply]
        var language: String?
        var intents: [ReplyIntent]?
        var silentBecause: String?
    }

    func run() async throws {
        let data = FileHandle.standardInput.readDataToEndOfFile()
        let input: EvalThread
        do {
            input = try JSONDecoder().decode(EvalThread.self, from: data)
        } catch {
            throw TernError.invalidInput("not an evaluation-set thread: \(error)")
        }
        let dates = ISO8601DateFormatter()
        let headers = Dictionary((input.headers ?? [:]).map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        let messages = input.messages.enumerated().map { index, message in
            AssistMessage(
                from: EmailAddress(name: message.from.name, address: message.from.address),
                to: message.to.map { EmailAddress(name: $0.name, address: $0.address) },
                cc: (message.cc ?? []).map { EmailAddress(name: $0.name, address: $0.address) },
                date: dates.date(from: message.date) ?? Date(timeIntervalSince1970: 0), subject: message.subject, text: message.body,
                bulkMarkers: index == input.messages.count - 1 ? BulkMailMarkers.from { headers[$0.lowercased()] } : [])
        }
        let thread = AssistThread(subject: input.messages.first?.subject ?? "", messages: messages, userAddresses: [input.user])
        let provider = BuiltInAssistProvider()
        let analysis = provider.analyse(thread)
        let output = Output(summary: provider.summary(of: thread) ?? "", suggestions: analysis.replies,
                            language: explain ? analysis.language : nil, intents: explain ? analysis.intents : nil,
                            silentBecause: explain ? analysis.silentBecause : nil)
        try printJSON(output)
    }
}
