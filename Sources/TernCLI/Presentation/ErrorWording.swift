import Foundation
import TernCore
import TernRuntime

/// Errors the CLI raises itself, worded like the core's.
enum CLIError: Error {
    /// E-08.
    case emptyConversation
    /// FR-ED-03: warnings nobody could answer (no terminal, or `--json`).
    case confirmationNeeded(filename: String, warnings: [String])
    case downloadDeclined
    /// Ctrl-C during a download: nothing was kept.
    case downloadCancelled
    /// `tern serve --print-url` with no server running for this `TERN_HOME`.
    case serverNotRunning
    /// Issue 36: an unsubscribe nobody could confirm (no terminal, or `--json`), or declined.
    case unsubscribeConfirmationNeeded(question: String)
    case unsubscribeDeclined
    /// Issue 35: no settings were found for an address (`onlineDatabase`: the database `--lookup-online` asks).
    case discoveryFailed(DiscoveryError, onlineDatabase: String)

    /// 130 for an interrupt, as a shell reports one; 1 otherwise.
    var exitCode: Int32 {
        if case .downloadCancelled = self { return 130 }
        return 1
    }
}

/// How the CLI words the core's neutral errors: with the command or flag that helps.
enum ErrorWording {
    static func line(_ error: TernError) -> String {
        switch error {
        case .signInRequired(let account): "account '\(account)' must sign in again: run 'tern account login \(account)'"
        case .accountNeeded(let available):
            available.isEmpty
                ? "no account: add one with 'tern account add'"
                : "several accounts (\(available.map(\.rawValue).joined(separator: ", "))): say which with --account"
        case .folderNeeded(let target, let folders):
            folders.isEmpty
                ? "\(target) is in no synced folder (already archived)"
                : "\(target) is in \(folders.joined(separator: ", ")): name the folder with --folder"
        case .serverMissing(let role): "--\(role.rawValue.lowercased()) HOST:PORT is required (or --gmail)"
        case .authenticationExpired(let text): "sign-in expired: \(text); run 'tern account login'"
        case .authenticationRefused(let text):
            "authentication failed: \(text); check the account's password command, or sign in again with 'tern account login'"
        case .tlsRefused(let text): "TLS refused: \(text); nothing was sent"
        case .nothingToUndo: "nothing to undo: no archive or delete is still inside its undo window"
        case .readReceiptRefused(.turnedOff): "no read receipt: read receipts are off ('tern settings set read-receipts ask' turns them on)"
        case .readReceiptRefused(let refusal): "no read receipt: \(refusal.sentence)"
        default: error.message
        }
    }

    /// Issue 36: the query's part that could not be read, named; `tern search` prints the query
    /// below it with the part underlined (`SearchCommand.pointing`).
    static func line(_ error: SearchQueryError) -> String { error.message }

    /// Any error a long-running command reports and goes on after (`tern sync --watch`'s retries).
    static func line(any error: any Error) -> String {
        if let error = error as? TernError { return line(error) }
        if let stored = TernServices.storeError(error) { return line(stored) }
        return String(describing: error)
    }

    static func line(_ error: CLIError) -> String {
        switch error {
        case .emptyConversation: "This conversation appears empty"
        case .confirmationNeeded(let filename, let warnings):
            "\(filename): \(warnings.joined(separator: " ")) Not downloaded: run again with --yes to download it anyway"
        case .downloadDeclined: "not downloaded"
        case .discoveryFailed(let error, let database): DiscoveryOutput.failureLine(error, onlineDatabase: database)
        case .downloadCancelled: "download cancelled; nothing was kept"
        case .serverNotRunning: "tern serve is not running for this TERN_HOME: start it with 'tern serve'"
        case .unsubscribeConfirmationNeeded(let question): "\(question) Not unsubscribed: run again with --yes to unsubscribe"
        case .unsubscribeDeclined: "not unsubscribed"
        }
    }
}
