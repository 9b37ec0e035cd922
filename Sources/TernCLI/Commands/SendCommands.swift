import ArgumentParser
import Foundation
import TernCore
import TernRuntime

/// `tern send`: composes, queues (FR-SYNC-07) and sends at once when the server can be reached; a
/// message that cannot go now waits in the Outbox and is retried by `tern sync`, `tern sync --watch`
/// or `tern outbox flush`.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "send", abstract: "Send a message (queued in the Outbox when it cannot go now).")

    @Option(help: "Send from this account (default: the only one).")
    var account: AccountName?
    @Option(help: "Recipients, comma-separated (`Name <a@example.com>` or `a@example.com`); repeatable.")
    var to: [String] = []
    @Option(help: "Copy recipients; repeatable.")
    var cc: [String] = []
    @Option(help: "Blind copy recipients: in the envelope only, never in the message; repeatable.")
    var bcc: [String] = []
    @Option var subject = ""
    @Option(help: "The text of the message.")
    var body: String?
    @Option(help: "Read the text from this file ('-' for standard input).")
    var bodyFile: String?
    @Option(help: "Attach this file; repeatable.")
    var attach: [String] = []
    @Flag(help: "Only queue it, with no undo window; `tern outbox flush` (or a sync) sends it.")
    var queueOnly = false
    @Option(help: "The undo delay for this send, in seconds (default: the undo-send-delay setting); u or Ctrl-C undoes it into a draft.")
    var undo: Int?
    @Option(
        help: """
            Send later: an ISO time (2026-12-01T08:00), 'tomorrow 08:00', 'mon 9:00', '17:30' or 'in 2h'.             The message waits in the Outbox until then.
            """)
    var at: String?
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard (body == nil) != (bodyFile == nil) else { throw ValidationError("give the text with exactly one of --body or --body-file") }
        guard !(to + cc + bcc).isEmpty else { throw ValidationError("give at least one recipient (--to, --cc or --bcc)") }
        if let undo, undo < 0 || undo > 300 { throw ValidationError("--undo takes 0 to 300 seconds") }
        if at != nil, queueOnly || undo != nil { throw ValidationError("--at sends later: it takes neither --queue-only nor --undo") }
        if let at { _ = try ScheduledSendWording.time(at) }
    }

    func run() async throws {
        let text: String
        if let body {
            text = body
        } else if bodyFile == "-" {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        } else {
            guard let data = FileManager.default.contents(atPath: bodyFile!) else { throw TernError.notFound("file '\(bodyFile!)'") }
            text = String(decoding: data, as: UTF8.self)
        }
        let services = try services()
        let sender = try await services.outbox.sendingAccount(named: account)
        if queueOnly {
            let attachments = try attach.map { path in
                guard let data = FileManager.default.contents(atPath: path) else { throw TernError.notFound("file '\(path)'") }
                let name = URL(fileURLWithPath: path).lastPathComponent
                return OutgoingAttachment(filename: name, mimeType: Self.mimeType(forFilename: name), data: data)
            }
            let message = OutgoingMessage(
                from: EmailAddress(name: sender.displayName, address: sender.emailAddress), to: try Self.addresses(to), cc: try Self.addresses(cc),
                bcc: try Self.addresses(bcc), subject: subject, bodyPlain: text, attachments: attachments)
            return try SendingCountdown.report(try await services.outbox.send(message, from: sender, attemptNow: false), json: output.json)
        }
        // Through a draft, so the undo window (FR-COMP-02) can give it back, and a process killed in it leaves a draft.
        let message = ComposeDraft(
            mode: .new, accountId: sender.id, from: EmailAddress(name: sender.displayName, address: sender.emailAddress),
            to: try Self.addresses(to), cc: try Self.addresses(cc), bcc: try Self.addresses(bcc), subject: subject, body: text,
            attachments: try attach.map(ComposeFieldOptions.attachment))
        try ComposeFlow.confirm(message, services: services, assumeYes: true)
        guard let saved = try await services.drafts.save(message) else { throw TernError.invalidInput("the message is empty") }
        if let at {
            let time = try ScheduledSendWording.time(at)
            return try await SendingCountdown.schedule(draftId: saved.draftId, at: time, services: services, json: output.json)
        }
        try await SendingCountdown.send(draftId: saved.draftId, undo: undo, services: services, json: output.json)
    }

    static func addresses(_ values: [String]) throws -> [EmailAddress] {
        try RecipientList.parse(values)
    }

    static func time(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: date)
    }

    /// The common types by extension; anything else is sent as bytes.
    static func mimeType(forFilename name: String) -> String {
        let types = [
            "pdf": "application/pdf", "txt": "text/plain", "csv": "text/csv", "html": "text/html", "png": "image/png", "jpg": "image/jpeg",
            "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp", "zip": "application/zip", "json": "application/json",
            "ics": "text/calendar", "doc": "application/msword", "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "mp3": "audio/mpeg", "mp4": "video/mp4"
        ]
        return types[(name.split(separator: ".").last.map(String.init) ?? "").lowercased()] ?? "application/octet-stream"
    }
}

/// `tern outbox`: the virtual Outbox (FR-SYNC-07): queued, sending and failed messages.
struct OutboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox", abstract: "List messages waiting to be sent or failed; retry, discard or flush them.",
        subcommands: [List.self, Retry.self, Edit.self, Discard.self, Flush.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the Outbox, oldest first.")
        @Option(help: "Only this account.")
        var account: AccountName?
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let entries = try await services().outbox.outbox(account: account)
            if output.json { return try printJSON(entries) }
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyy-MM-dd HH:mm"
            let now = Date()
            let rows = entries.map { entry in
                [
                    entry.emailId.cli, entry.queuedDate.map(formatter.string) ?? "",
                    entry.isScheduled(after: now) ? "scheduled" : entry.state.rawValue, entry.scheduledAt.map(formatter.string) ?? "",
                    String(entry.retryCount), entry.to.map(\.address).joined(separator: ", "), entry.subject, entry.error ?? ""
                ]
            }
            print(TextTable(header: ["ID", "QUEUED", "STATE", "SEND AT", "RETRIES", "TO", "SUBJECT", "ERROR"], rows: rows).rendered)
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "retry", abstract: "Put a failed message back in the queue and try it now.")
        @Argument(help: "The message (m34, from `tern outbox`).", transform: EmailID.argument)
        var id: EmailID
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let outcome = try await services().outbox.retry(id)
            if output.json { return try printJSON(outcome) }
            print(outcome.state == .sent ? "sent" : "\(outcome.state.rawValue)\(outcome.error.map { ": \(TerminalText.line($0))" } ?? "")")
        }
    }

    /// CO01-S5, CO02-T7 (issue 34): a failed message back in its own draft, to change and send again;
    /// a Send later message waiting for its time too (issue 36).
    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract:
                "Take a failed or scheduled message out of the Outbox and back into the draft it was sent from (attachments included).")
        @Argument(help: "The failed or scheduled message (m34, from `tern outbox`).", transform: EmailID.argument)
        var id: EmailID
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let draft = try await services().drafts.reopenFailed(id)
            if output.json { return try printJSON(["draftId": draft.id]) }
            print("draft \(draft.id.cli) (tern drafts edit \(draft.id.cli), then send it again)")
        }
    }

    struct Discard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "discard", abstract: "Delete a failed or queued message for good (a scheduled one is cancelled).")
        @Argument(help: "The message (m34, from `tern outbox`).", transform: EmailID.argument)
        var id: EmailID

        func run() async throws { try await services().outbox.discard(id) }
    }

    struct Flush: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "flush", abstract: "Send what is due now, and what waits only for its server to be reachable (and push pending changes).")
        @Option(help: "Only this account.")
        var account: AccountName?
        @Flag(help: "Do not wait for retry delays (attempts still count).")
        var now = false
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await pushAll(account: account, ignoreBackoff: now, retryUnreachableNow: true, json: output.json)
        }
    }
}
