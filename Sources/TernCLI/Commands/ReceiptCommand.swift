import ArgumentParser
import Foundation
import TernCore

/// `tern receipt send|ignore MESSAGE` (issue 37): a read receipt leaves only when the person says so.
struct ReceiptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipt", abstract: "Answer a message's read-receipt request: send one, or ignore it.",
        discussion: "A receipt is never sent by itself. `tern thread` shows requests; `tern settings set read-receipts never` hides them all.",
        subcommands: [Send.self, Ignore.self])

    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "send", abstract: "Send the read receipt a message asks for (an RFC 8098 MDN).")
        @Argument(help: "The message (m34, from `tern thread`).", transform: EmailID.argument)
        var message: EmailID
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let outcome = try await services().readReceipts.send(message)
            if output.json { return try printJSON(outcome) }
            let to = outcome.to.map(\.address).joined(separator: ", ")
            switch outcome.state {
            case .sent, .none: print("read receipt sent to \(to) from \(outcome.from.address)")
            case .failed: print("read receipt to \(to) failed: \(outcome.error ?? "the server refused it")")
            case .queued, .sending: print("read receipt to \(to) queued: Tern sends it as soon as the server can be reached")
            }
        }
    }

    struct Ignore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ignore", abstract: "Ignore a message's read-receipt request: it is not asked again.")
        @Argument(help: "The message (m34, from `tern thread`).", transform: EmailID.argument)
        var message: EmailID
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await services().readReceipts.ignore(message)
            if output.json { return try printJSON(["ignored": message.cli]) }
            print("read receipt request of \(message.cli) ignored")
        }
    }
}
