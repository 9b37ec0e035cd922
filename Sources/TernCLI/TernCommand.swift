import ArgumentParser
import Foundation
import Synchronization
import TernCore
import TernRuntime

/// `tern`: the command-line client. Every command calls use cases through `TernServices`.
public struct TernCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "tern",
        abstract: "A privacy-first mail client.",
        discussion: "Data lives in $TERN_HOME (default $XDG_DATA_HOME/tern).",
        version: TernVersion.current,
        subcommands: [
            AccountCommand.self, IdentityCommand.self, StatusCommand.self, SyncCommand.self, FoldersCommand.self, ThreadsCommand.self,
            ThreadCommand.self,
            SearchCommand.self, AttachmentCommand.self,
            MarkCommand.self, ArchiveCommand.self, DeleteCommand.self, UndoCommand.self, ChangesCommand.self, TrustCommand.self, SettingsCommand.self,
            MoveCommand.self, LabelCommand.self, FolderCommand.self, SnoozeCommand.self, SnoozedCommand.self,
            ComposeCommand.self, ReplyCommand.self, ForwardCommand.self, DraftsCommand.self, ContactsCommand.self, SendCommand.self,
            OutboxCommand.self, IMAPCheckCommand.self,
            SMTPCheckCommand.self, ServeCommand.self, ParseCommand.self, SanitizeCommand.self, BenchMovedCommand.self, SummarizeCommand.self,
            SuggestCommand.self, ReceiptCommand.self, PrivacyCommand.self, UnsubscribeCommand.self, ExportCommand.self
        ])

    public init() {}

    /// Runs the command line, printing a `TernError` as one line on standard error with exit status 1.
    public static func runMain(arguments: [String]? = nil) async -> Never {
        do {
            var command = try parseAsRoot(arguments)
            do {
                if var asyncCommand = command as? any AsyncParsableCommand {
                    try await asyncCommand.run()
                } else {
                    try command.run()
                }
            } catch {
                await closeServices()
                throw error
            }
            await sendDueScheduled(after: command)
            await closeServices()
            Foundation.exit(0)
        } catch let error as TernError {
            printError("tern: \(TerminalText.line(ErrorWording.line(error)))")
            Foundation.exit(1)
        } catch let error as CLIError {
            printError("tern: \(TerminalText.line(ErrorWording.line(error)))")
            Foundation.exit(error.exitCode)
        } catch {
            // The store's own errors (busy, disk full, damaged) in a line that names the file.
            if let stored = TernServices.storeError(error) {
                printError("tern: \(TerminalText.line(ErrorWording.line(stored)))")
                Foundation.exit(1)
            }
            exit(withError: error)
        }
    }
}

public enum TernVersion {
    public static let current = "0.1.0"
}

/// `--json` for every command that prints data.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false
}

/// The process's one `TernServices`, so the steps of a command (push, then sync, then watch)
/// share its connection pools (FR-SYNC-09).
private let openedServices = Mutex<TernServices?>(nil)

/// Opens the store for a command; its errors are `TernError`s with one clear line. `longRunning`
/// (`serve`, `sync --watch`) has connections that fail retried on FR-SYNC-09's schedule; the first
/// call decides.
func services(longRunning: Bool = false) throws -> TernServices {
    try openedServices.withLock { opened in
        if let opened { return opened }
        let services = try TernServices.open(longRunning: longRunning)
        opened = services
        return services
    }
}

/// Send later (issue 36): a scheduled message goes at its time from whichever Tern process runs,
/// `tern serve` and `tern sync --watch` on their own; a one-shot command that opened the store sends
/// the ones whose time has come before it exits.
private func sendDueScheduled(after command: any ParsableCommand) async {
    if command is ServeCommand { return }
    if let sync = command as? SyncCommand, sync.watch { return }
    guard let services = openedServices.withLock({ $0 }) else { return }
    await ScheduledSendWording.sendDue(services.outbox)
}

/// Issue 38: the weekly full read of the store (`PRAGMA quick_check`), in the background of a
/// long-running command once it has started, instead of before its first output. A damaged store ends
/// the process with the line opening printed before.
func checkStoreIntegrityInBackground(_ services: TernServices, beforeExit: @escaping @Sendable () -> Void = {}) {
    Task.detached(priority: .background) {
        do {
            try await services.checkStoreIntegrityIfDue()
        } catch {
            printError("tern: \(TerminalText.line(ErrorWording.line(any: error)))")
            beforeExit()
            Foundation.exit(1)
        }
    }
}

/// Logs out of the servers the command used.
private func closeServices() async {
    if let services = openedServices.withLock({ $0 }) { await services.shutdown() }
}

func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    let data = TerminalText.json(try encoder.encode(value))
    FileHandle.standardOutput.write(data)
    FileHandle.standardOutput.write(Data("\n".utf8))
}
