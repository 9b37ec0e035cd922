import ArgumentParser
import Foundation
import TernCore
import TernRuntime

/// `tern move ID… --to FOLDER` (issue 36): out of the folder being looked at, into another; undo
/// like archive.
struct MoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "move", abstract: "Move threads or messages to another folder (undo: tern undo).")

    @Option(name: .customLong("to"), help: "The folder to move to (its path, as `tern folders` lists it).")
    var destination: String
    @OptionGroup var options: ActionOptions
    @OptionGroup var undo: UndoOptions

    func run() async throws {
        let services = try services()
        let window = try await undo.window(services)
        let result = try await services.mailActions.move(options.ids, to: destination, folder: options.folder, undoWindow: window)
        try options.report(result, done: "moved to \(TerminalText.line(destination)):")
    }
}

/// `tern label ID… --add LABEL` (issue 36, Gmail's "Label as…"): a copy in another folder, the
/// message staying where it is.
struct LabelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "label",
        abstract: "Add a label to threads or messages: a copy in that folder, the message staying where it is (undo: tern undo).")

    @Option(name: .customLong("add"), help: "The label (folder) to add.")
    var label: String
    @OptionGroup var options: ActionOptions
    @OptionGroup var undo: UndoOptions

    func run() async throws {
        let services = try services()
        let window = try await undo.window(services)
        let result = try await services.mailActions.label(options.ids, adding: label, folder: options.folder, undoWindow: window)
        try options.report(result, done: "labelled \(TerminalText.line(label)):")
    }
}

/// `tern folder create|rename|delete` (issue 36): shown at once, made on the server when the undo
/// window has passed (undo: tern undo), as archive.
struct FolderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "folder", abstract: "Create, rename or delete a folder on the server (undo: tern undo).",
        subcommands: [Create.self, Rename.self, Delete.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create", abstract: "Create a folder (a full path, with the server's delimiter).")
        @Argument(help: "The new folder's path.")
        var path: String
        @Option(help: "The account (needed when there are several).")
        var account: AccountName?
        @OptionGroup var undo: UndoOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let services = try services()
            let result = try await services.folderChanges.request(.create(path: path), account: account, undoWindow: try await undo.window(services))
            try FolderCommand.report(result, done: "created \(TerminalText.line(path))", json: output.json)
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename a folder (the folders below it follow).")
        @Argument(help: "The folder's path.")
        var path: String
        @Argument(help: "Its new path.")
        var newPath: String
        @Option(help: "The account (needed when there are several).")
        var account: AccountName?
        @OptionGroup var undo: UndoOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let services = try services()
            let result = try await services.folderChanges.request(
                .rename(from: path, to: newPath), account: account, undoWindow: try await undo.window(services))
            try FolderCommand.report(result, done: "renamed \(TerminalText.line(path)) to \(TerminalText.line(newPath))", json: output.json)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete", abstract: "Delete a folder on the server, with the messages in it (on Gmail, the label only).")
        @Argument(help: "The folder's path.")
        var path: String
        @Option(help: "The account (needed when there are several).")
        var account: AccountName?
        @Flag(help: "Delete it even though it holds messages.")
        var yes = false
        @OptionGroup var undo: UndoOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let services = try services()
            let summary = try await services.browse.folders(account: account).first { $0.path == path }
            let count = summary?.messageCount ?? 0
            if !yes, count > 0 {
                throw TernError.invalidInput(
                    "'\(path)' holds \(count) message\(count == 1 ? "" : "s"), which the server deletes with it: add --yes to delete it anyway")
            }
            let result = try await services.folderChanges.request(
                .delete(path: path), account: account, undoWindow: try await undo.window(services), messagesConfirmed: count)
            try FolderCommand.report(result, done: "deleted \(TerminalText.line(path))", json: output.json)
        }
    }

    static func report(_ result: FolderChangeResult, done: String, json: Bool) throws {
        // The change reaches the server when the window ends, also after this command has returned.
        if let undo = result.undo { BackgroundPush.start(after: undo.until) }
        if json { return try printJSON(result) }
        guard let undo = result.undo else { return print(done) }
        print("\(done); undo within \(max(1, Int(undo.until.timeIntervalSinceNow.rounded()))) s: tern undo")
    }
}

/// `tern snooze ID… --until WHEN` (issue 36): out of the Inbox into Snoozed until then, back in the
/// Inbox unread at that time (undo: tern undo).
struct SnoozeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snooze", abstract: "Snooze threads or messages until a time: out of the Inbox, back unread then (undo: tern undo).")

    @Option(help: "When it comes back: an ISO time, 'tomorrow 08:00', 'mon 9:00', 'in 2h'.")
    var until: String
    @OptionGroup var options: ActionOptions
    @OptionGroup var undo: UndoOptions

    func run() async throws {
        let services = try services()
        let window = try await undo.window(services)
        let result = try await services.snooze.snooze(options.ids, until: until, folder: options.folder, undoWindow: window)
        if let hold = result.removal.undo { BackgroundPush.start(after: hold.until) }
        if options.output.json { return try printJSON(result) }
        let wake = result.wake.formatted(date: .abbreviated, time: .shortened)
        if result.removal.undo != nil {
            print("snoozed until \(wake); undo within \(max(1, Int((result.removal.undo?.until.timeIntervalSinceNow ?? 0).rounded()))) s: tern undo")
        } else {
            try options.report(result.removal.action, done: "snoozed until \(wake):")
        }
    }
}

/// `tern snoozed`: what is snoozed, soonest first, with its wake time.
struct SnoozedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "snoozed", abstract: "List snoozed conversations with the time each comes back.")

    @Option(help: "Only this account.")
    var account: AccountName?
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let snoozed = try await services().snooze.list(account: account)
        if output.json { return try printJSON(snoozed) }
        let rows = snoozed.map { item in
            [
                item.account.rawValue, item.threadId.map { "t\($0)" } ?? "", item.wake.formatted(date: .abbreviated, time: .shortened),
                TerminalText.line(item.subject)
            ]
        }
        print(TextTable(header: ["ACCOUNT", "THREAD", "WAKES", "SUBJECT"], rows: rows).rendered)
    }
}
