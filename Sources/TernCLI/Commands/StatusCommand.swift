import ArgumentParser
import Foundation
import TernCore
import TernRuntime

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show where Tern keeps its data, what the store holds and how each account's sync stands.")
    @OptionGroup var output: OutputOptions
    @Flag(help: "Read the whole database through now (PRAGMA quick_check), whatever the last check said.")
    var check = false

    /// The store's status with the accounts' (issue 20): `syncState`, `lastSuccessfulSync`,
    /// `nextRetry` and `waiting` per account.
    struct Report: Encodable {
        var store: StoreStatus
        var accounts: [AccountSyncStatus]

        enum CodingKeys: String, CodingKey { case accounts }

        func encode(to encoder: any Encoder) throws {
            try store.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(accounts, forKey: .accounts)
        }
    }

    func run() async throws {
        let services = try services()
        let status = try services.storeStatus(checkIntegrity: check)
        let accounts = try await services.accountStatus()
        if output.json {
            try printJSON(Report(store: status, accounts: accounts))
            return
        }
        print("Home:     \(status.home)")
        print("Database: \(status.database) (schema \(status.schema))")
        if let checked = status.lastIntegrityCheck {
            print("Checked:  \(checked.formatted(.iso8601)) (integrity ok)")
        }
        for (table, count) in status.counts.sorted(by: { $0.key < $1.key }) {
            print("  \(table.padding(toLength: 18, withPad: " ", startingAt: 0)) \(count)")
        }
        if !accounts.isEmpty { print("Accounts:") }
        for account in accounts { print("  " + TerminalText.line(Self.line(account))) }
    }

    static func line(_ status: AccountSyncStatus) -> String {
        var parts: [String] = []
        if let state = status.syncState {
            var described = state.rawValue
            if !status.syncRunning, state != .idle, state != .error { described += " (stopped: the process that synced is gone)" }
            if let detail = status.syncStateDetail, state == .error { described += ": \(detail)" }
            if let since = status.syncStateSince { described += " since \(clock(since))" }
            parts.append(described)
        } else {
            parts.append("never synced")
        }
        if let retry = status.nextRetry { parts.append("next try \(clock(retry))") }
        parts.append("last synced " + (status.lastSuccessfulSync.map(clock) ?? "never"))
        if let error = status.lastError, status.syncState != .error { parts.append("last error: \(error)") }
        let waiting = status.waiting
        let queued = [
            (waiting.changes, "change", "changes"), (waiting.failedChanges, "refused change", "refused changes"),
            (waiting.queue, "message to send", "messages to send"), (waiting.failedQueue, "failed message", "failed messages"),
            (waiting.drafts, "draft to save on the server", "drafts to save on the server")
        ]
        .filter { $0.0 > 0 }.map { "\($0.0) \($0.0 == 1 ? $0.1 : $0.2)" }
        parts.append("waiting: " + (queued.isEmpty ? "nothing" : queued.joined(separator: ", ")))
        return "\(status.account): " + parts.joined(separator: " · ")
    }

    static func clock(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
