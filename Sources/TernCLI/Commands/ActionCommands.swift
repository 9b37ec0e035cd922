import ArgumentParser
import Foundation
import TernCore
import TernRuntime

/// Options every action shares.
struct ActionOptions: ParsableArguments {
    @Argument(
        help: "Threads (t12, from `tern threads`) or messages (m34, from `tern thread`).", transform: MailTargetArgument.argument)
    var ids: [MailTarget]
    @Option(help: "The folder being looked at (default: the Inbox for threads, the message's only folder for messages).")
    var folder: String?
    @OptionGroup var output: OutputOptions

    func report(_ result: ActionResult, done: String) throws {
        if output.json { return try printJSON(result) }
        let count = result.failedMessages > 0 ? "\(result.applied) of \(result.messages)" : "\(result.messages)"
        var line = "\(done) \(count) message\(result.messages == 1 ? "" : "s")"
        if result.waiting > 0 {
            line += "; the server could not be reached: will retry (\(result.waiting) change\(result.waiting == 1 ? "" : "s") waiting)"
        }
        print(line)
        for failure in result.failed { printError("failed and undone: \(TerminalText.line(failure))") }
        if !result.failed.isEmpty { throw ExitCode(1) }
    }
}

/// `tern mark read|unread|star|unstar ID…` (FR-SYNC-10).
struct MarkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mark", abstract: "Mark threads or messages read, unread, starred or unstarred (applied at once, pushed to the server).")

    @Argument(help: "read, unread, star or unstar.")
    var change: FlagChange
    @OptionGroup var options: ActionOptions

    func run() async throws {
        let result = try await services().mailActions.mark(change, options.ids, folder: options.folder)
        try options.report(result, done: "marked \(change.rawValue):")
    }
}

extension FlagChange: ExpressibleByArgument {}

/// `tern archive ID…` (FR-SYNC-10 Archive Behavior, FR-ED-01 undo).
struct ArchiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive", abstract: "Archive threads or messages: out of the folder, kept in All Mail and in search (undo: tern undo).")

    @OptionGroup var options: ActionOptions
    @OptionGroup var undo: UndoOptions

    func run() async throws {
        let services = try services()
        let window = try await undo.window(services)
        let result = try await services.mailActions.archive(options.ids, folder: options.folder, undoWindow: window)
        try options.report(result, done: "archived")
    }
}

/// `tern delete ID…`: to Trash; from Trash, for good (FR-ED-01 undo).
struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Move threads or messages to Trash (deleted for good when already in Trash; undo: tern undo).")

    @OptionGroup var options: ActionOptions
    @OptionGroup var undo: UndoOptions

    func run() async throws {
        let services = try services()
        let window = try await undo.window(services)
        let result = try await services.mailActions.delete(options.ids, folder: options.folder, undoWindow: window)
        try options.report(result, done: "deleted")
    }
}

/// FR-ED-01: archive and delete wait for their undo window (the `undo-action-window` setting,
/// 5 seconds) before they reach the server.
struct UndoOptions: ParsableArguments {
    @Flag(help: "Push to the server at once, without the undo window.")
    var noUndo = false

    func window(_ services: TernServices) async throws -> Duration? {
        noUndo ? nil : try await services.undoWindows.action()
    }
}

extension ActionOptions {
    func report(_ result: RemovalResult, done: String) throws {
        // The change reaches the server when the window ends, also after this command has returned.
        if let undo = result.undo { BackgroundPush.start(after: undo.until) }
        if output.json { return try printJSON(result) }
        guard let undo = result.undo else { return try report(result.action, done: done) }
        let seconds = max(1, Int(undo.until.timeIntervalSinceNow.rounded()))
        print("\(done) \(result.action.messages) message\(result.action.messages == 1 ? "" : "s"); undo within \(seconds) s: tern undo")
    }
}

/// `tern undo`: undoes the last archive or delete still inside its window (FR-ED-01).
struct UndoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo", abstract: "Undo the last archive, delete, move or folder change while its undo window lasts.")
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let result = try await services().mailActions.undo()
        if output.json { return try printJSON(result) }
        if let folder = result.folderChange {
            let what =
                switch folder.change {
                case .create(let path): "the folder \(TerminalText.line(path)) is not created"
                case .rename(let from, _): "the folder \(TerminalText.line(from)) keeps its name"
                case .delete(let path): "the folder \(TerminalText.line(path)) is kept"
                }
            return print("undone: \(what); nothing reached the server")
        }
        let threads = result.threadIds.map { "t\($0)" }.joined(separator: ", ")
        print("undone: \(threads) restored; nothing reached the server")
    }
}

/// `tern changes`: local changes waiting for the server, and failed ones with their retry.
struct ChangesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes", abstract: "List local changes waiting for the server, or failed (and undone).",
        subcommands: [List.self, Retry.self, Dismiss.self, Push.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List pending and failed changes.")
        @Option(help: "Only this account.")
        var account: AccountName?
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let changes = try await services().mailActions.changes(account: account)
            if output.json { return try printJSON(changes) }
            let rows = changes.map { change in
                [
                    change.id.cli, change.account.rawValue, change.kind.rawValue + (change.flag.map { " \($0)" } ?? ""), change.folder ?? "",
                    change.state.rawValue, String(change.attempts), change.subject, change.lastError ?? ""
                ]
            }
            print(TextTable(header: ["ID", "ACCOUNT", "CHANGE", "FOLDER", "STATE", "TRIES", "SUBJECT", "ERROR"], rows: rows).rendered)
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "retry", abstract: "Apply a failed change again and push it.")
        @Argument(help: "The change (c3, from `tern changes`).", transform: PendingChangeID.argument)
        var id: PendingChangeID
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let result = try await services().mailActions.retry(id)
            if output.json { return try printJSON(result) }
            print(result.pushed > 0 ? "pushed" : result.failed.first.map { "failed: \(TerminalText.line($0))" } ?? "waiting for the server")
        }
    }

    struct Dismiss: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "dismiss", abstract: "Forget a failed change.")
        @Argument(help: "The change (c3, from `tern changes`).", transform: PendingChangeID.argument)
        var id: PendingChangeID

        func run() async throws { try await services().mailActions.dismiss(id) }
    }

    struct Push: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "push", abstract: "Push what is due now: pending changes, queued mail, Sent copies.")
        @Option(help: "Only this account.")
        var account: AccountName?
        @Flag(help: "Do not wait for retry delays: try everything now (attempts still count).")
        var now = false
        @Option(help: .hidden)
        var after: Double?
        @OptionGroup var output: OutputOptions

        func run() async throws {
            if let after {
                // The background push an archive or delete started: it waits for the undo window.
                let wait = Date(timeIntervalSince1970: after).timeIntervalSinceNow
                if wait > 0 { try await Task.sleep(for: .milliseconds(Int(wait * 1000) + 100)) }
            }
            try await pushAll(account: account, ignoreBackoff: now, json: output.json)
        }
    }
}

/// Runs the pusher for the account named, or every active one, and prints what happened.
/// `retryUnreachableNow`: queued mail waiting only for its server is tried at once (`tern outbox flush`).
func pushAll(account name: AccountName?, ignoreBackoff: Bool, retryUnreachableNow: Bool = false, json: Bool) async throws {
    let services = try services()
    var reports: [PushReport] = []
    for account in try await services.syncAccounts.accounts(named: name) {
        reports.append(
            try await services.pusher.push(account: account, ignoreBackoff: ignoreBackoff, retryUnreachableNow: retryUnreachableNow))
    }
    if json { return try printJSON(reports) }
    for report in reports {
        var parts = ["\(report.changes.done) change\(report.changes.done == 1 ? "" : "s") pushed", "\(report.queue.sent.count) sent"]
        if report.changes.waiting + report.queue.waiting > 0 { parts.append("\(report.changes.waiting + report.queue.waiting) waiting") }
        if report.queue.held > 0 { parts.append("\(report.queue.held) held") }
        print("\(report.account): " + parts.joined(separator: ", "))
        for failure in report.changes.failed { print("  change failed and undone: \(TerminalText.line(failure))") }
        for failure in report.queue.failed { print("  message \(failure.emailId.cli) failed: \(TerminalText.line(failure.error))") }
        if let error = report.queue.lastError { print("  sending stopped: \(TerminalText.line(error))") }
    }
}
