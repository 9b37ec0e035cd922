import ArgumentParser
import Assist
import Foundation
import TernBenchmarks
import TernCore

/// `tern-bench assist-eval-one`: the built-in Assist provider on one thread of the labelled evaluation
/// set (SystemTests/assist-eval, its README gives the format), for `scripts/assist_eval.py`. Reads
/// the thread's JSON on stdin and prints `{"summary", "suggestions": [{"text", "intent"}]}`.
struct AssistEvalOneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assist-eval-one", abstract: "Summarize and suggest replies for one evaluation-set thread read from stdin (JSON).")

    @Flag(help: "Also print the detected language, intents and why no reply is suggested.") var explain = false

    struct Output: Encodable {
        var summary: String
        var suggestions: [SmartReply]
        var language: String?
        var intents: [ReplyIntent]?
        var silentBecause: String?
    }

    func run() async throws {
        let thread = try AssistEvaluationSet.thread(from: FileHandle.standardInput.readDataToEndOfFile())
        let provider = BuiltInAssistProvider()
        let analysis = provider.analyse(thread)
        let output = Output(
            summary: provider.summary(of: thread) ?? "", suggestions: analysis.replies,
            language: explain ? analysis.language : nil, intents: explain ? analysis.intents : nil,
            silentBecause: explain ? analysis.silentBecause : nil)
        try printJSON(output)
    }
}
