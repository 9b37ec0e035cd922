import ArgumentParser
import Foundation
import TernCore

/// `tern imap-check ACCOUNT`: connects, logs in, lists capabilities and folders with their special use.
struct IMAPCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imap-check", abstract: "Connect to an account's IMAP server, log in, and list capabilities and folders.")

    @Argument(help: "The account's name.")
    var account: AccountName
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let report = try await services().checkServers.imap(accountName: account)
        if output.json {
            try printJSON(report)
            return
        }
        print("Server:       \(report.server) — \(TerminalText.line(report.greeting))")
        print("Capabilities: \(TerminalText.line(report.capabilities.joined(separator: " ")))")
        print("Folders:")
        let rows = report.folders.map { folder in
            [folder.path, folder.folderType.rawValue, folder.synced ? "synced" : "not synced", folder.attributes.joined(separator: " ")]
        }
        print(TextTable(header: ["FOLDER", "TYPE", "SYNC", "ATTRIBUTES"], rows: rows).rendered)
    }
}

/// `tern smtp-check ACCOUNT`: connects, upgrades to TLS, logs in and lists the server's extensions; sends nothing.
struct SMTPCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "smtp-check", abstract: "Connect to an account's SMTP server, log in, and list its extensions (sends nothing).")

    @Argument(help: "The account's name.")
    var account: AccountName
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let report = try await services().checkServers.smtp(accountName: account)
        if output.json {
            try printJSON(report)
            return
        }
        print("Server:         \(report.server) — \(TerminalText.line(report.greeting))")
        print("Authentication: \(report.authentication) (accepted)")
        print("Extensions:     \(TerminalText.line(report.extensions.joined(separator: " ")))")
    }
}
