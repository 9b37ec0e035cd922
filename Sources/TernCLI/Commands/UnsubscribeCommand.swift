import ArgumentParser
import Foundation
import TernCore

/// `tern unsubscribe MESSAGE` (issue 36, RFC 2369 and RFC 8058): what the list offers is read from
/// the message on the person's own server and put as a question; only a yes (or `--yes`) sends the
/// one-click POST or the unsubscribe mail. Nothing is fetched from the list before that.
struct UnsubscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unsubscribe", abstract: "Unsubscribe from the mailing list a message came from.",
        discussion: "Uses the list's one-click address (RFC 8058) where it has one, else sends the unsubscribe mail from your account. "
            + "Tern asks first on a terminal; elsewhere it refuses unless --yes is given. A web page alone is never opened.")

    @Argument(help: "The message (m34, from `tern thread`).", transform: EmailID.argument)
    var message: EmailID
    @Flag(help: "Unsubscribe without asking.")
    var yes = false
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let unsubscribe = try services().unsubscribe
        let offer = try await unsubscribe.offer(message)
        if !yes { try confirm(Self.question(offer)) }
        let record = try await unsubscribe.unsubscribe(message)
        if output.json { return try printJSON(RecordJSON(record)) }
        print(TerminalText.line(Self.sentence(record, list: offer.listLabel)))
        if !record.succeeded { throw ExitCode.failure }
    }

    func confirm(_ question: String) throws {
        guard !output.json, isatty(STDIN_FILENO) == 1, isatty(STDERR_FILENO) == 1 else {
            throw CLIError.unsubscribeConfirmationNeeded(question: TerminalText.line(question))
        }
        FileHandle.standardError.write(Data("\(TerminalText.line(question)) [y/N] ".utf8))
        let answer = (readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else { throw CLIError.unsubscribeDeclined }
    }

    /// What will happen, and the earlier result if there is one.
    static func question(_ offer: UnsubscribeOffer) -> String {
        var text = ""
        if let previous = offer.previous {
            let date = previous.date.formatted(date: .abbreviated, time: .shortened)
            text += "You unsubscribed from \(offer.listLabel) on \(date) (\(previous.detail)). "
        }
        switch offer.methods.preferred {
        case .oneClick(let url)?:
            text += "Unsubscribe from \(offer.listLabel)? Tern will send the list's one-click request to \(url.host ?? "its server")."
        case .mailto(let mail)?:
            text += "Unsubscribe from \(offer.listLabel)? Tern will send a mail from your account to \(mail.address) (subject \"\(mail.subject)\")."
        case nil: text += "Unsubscribe from \(offer.listLabel)?"
        }
        return text
    }

    static func sentence(_ record: UnsubscribeRecord, list: String) -> String {
        switch record.outcome {
        case .unsubscribed: "unsubscribed from \(list): \(record.detail)"
        case .mailSent: "unsubscribe mail \(record.detail)"
        case .mailQueued: "unsubscribe mail \(record.detail)"
        case .refused: "not unsubscribed from \(list): \(record.detail)"
        case .failed: "not unsubscribed from \(list): \(record.detail)"
        }
    }

    struct RecordJSON: Encodable {
        var list: String
        var method: String
        var target: String
        var outcome: String
        var detail: String
        var date: Date

        init(_ record: UnsubscribeRecord) {
            list = record.listKey
            method = record.method
            target = record.target
            outcome = record.outcome.rawValue
            detail = record.detail
            date = record.date
        }
    }
}

/// `tern export MESSAGE [--output FILE]` and `tern export --folder F --mbox FILE` (issue 36): the
/// bytes as the server has them, fetched from it on demand; a folder as one mboxrd file.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write a message's original (as the server has it), or a whole folder as mbox.",
        discussion: "tern export m34 > message.eml; tern export m34 --output message.eml; tern export --folder INBOX --mbox inbox.mbox")

    @Argument(help: "The message (m34, from `tern thread`).", transform: EmailID.argument)
    var message: EmailID?
    @Option(help: "Write the message to this file (default: standard output).")
    var output: String?
    @Option(help: "Export this folder (a path, as `tern folders` lists it) as mbox; needs --mbox.")
    var folder: String?
    @Option(help: "The mbox file to write the folder to.")
    var mbox: String?
    @Option(help: "The account whose folder to export (when several have it).")
    var account: AccountName?

    func validate() throws {
        if message != nil, folder != nil { throw ValidationError("give a message or --folder, not both") }
        if message == nil, folder == nil { throw ValidationError("give a message (m34) or --folder FOLDER --mbox FILE") }
        if folder != nil, mbox == nil { throw ValidationError("--folder needs --mbox FILE") }
        if message != nil, mbox != nil { throw ValidationError("--mbox is for --folder; a message is written with --output") }
    }

    func run() async throws {
        let original = try services().originalMessage
        if let message {
            let bytes = try await original.source(message)
            if let output {
                try Self.write(Data(bytes), to: output)
            } else {
                FileHandle.standardOutput.write(Data(bytes))
            }
            return
        }
        guard let folder, let mbox else { return }
        let file = try Self.create(mbox)
        defer { try? file.close() }
        let count = try await original.exportMbox(account: account, folderPath: folder) { entry in try file.write(contentsOf: entry) }
        printError("tern: \(count) message\(count == 1 ? "" : "s") written to \(TerminalText.line(mbox))")
    }

    /// Written aside and renamed, so a failed export leaves no half file under the name.
    static func write(_ data: Data, to path: String) throws {
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw TernError.storageUnavailable("cannot write \(path): \(error.localizedDescription)")
        }
    }

    static func create(_ path: String) throws -> FileHandle {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw TernError.storageUnavailable("cannot write \(path)")
        }
        return handle
    }
}
