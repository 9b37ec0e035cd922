import ArgumentParser
import Assist
import Foundation
import TernCore
import TernRuntime

/// `tern summarize THREAD_ID`: FR-ED-02's summary of a thread, from the provider the settings
/// choose (`tern settings set assist builtin|endpoint|off`). Prints nothing and exits 0 when there
/// is none (Assist off, the provider failed or had nothing to say): the section is simply absent.
struct SummarizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summarize", abstract: "Summarize a thread (on this machine: the built-in summarizer or your local model).")

    @OptionGroup var thread: AssistThreadArguments

    func run() async throws {
        let (services, id) = try await thread.resolve()
        let digest = await services.summarizeThread(threadId: id)
        if thread.output.json { return try printJSON(SummaryJSON(threadId: id, summary: digest)) }
        if let digest { print(TerminalText.line(digest.text)) }
    }

    /// `summary` is null, not absent, when there is none.
    struct SummaryJSON: Encodable {
        var threadId: ThreadID
        var summary: ThreadDigest?

        enum CodingKeys: String, CodingKey { case threadId, summary }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(threadId, forKey: .threadId)
            try container.encode(summary, forKey: .summary)
        }
    }
}

/// `tern suggest THREAD_ID`: FR-COMP-03's smart replies for the thread's last message; none for
/// mail that expects no answer. `tern reply MESSAGE_ID --body "…"` starts a reply from one.
struct SuggestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggest", abstract: "Suggest up to three short replies to a thread's last message.")

    @OptionGroup var thread: AssistThreadArguments

    func run() async throws {
        let (services, id) = try await thread.resolve()
        let replies = await services.smartReplies(threadId: id)
        if thread.output.json { return try printJSON(SuggestionsJSON(threadId: id, suggestions: replies)) }
        for (index, reply) in replies.enumerated() { print("\(index + 1). \(TerminalText.line(reply.text))  (\(reply.intent.rawValue))") }
    }

    struct SuggestionsJSON: Encodable {
        var threadId: ThreadID
        var suggestions: [SmartReply]
    }
}

/// What `tern summarize` and `tern suggest` take: a thread that must exist, and `--json`.
struct AssistThreadArguments: ParsableArguments {
    @Argument(help: "The thread (t12, from `tern threads` or `tern search`).", transform: ThreadID.argument)
    var id: ThreadID
    @OptionGroup var output: OutputOptions

    /// The services and the thread id, or `notFound` for a thread that is not in the store.
    func resolve() async throws -> (TernServices, ThreadID) {
        let services = try services()
        guard try await services.mailQueries.threadOutline(id: id) != nil else { throw TernError.notFound("thread \(id.cli)") }
        return (services, id)
    }
}
