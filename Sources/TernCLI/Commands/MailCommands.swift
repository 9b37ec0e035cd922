import ArgumentParser
import Foundation
import TernCore

/// `tern sync [ACCOUNT]`: brings the server's mail into the local store (headers; FR-SYNC-01, 02).
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Sync mail headers from the server into the local store (every account, or the one named).")

    @Argument(help: "The account's name (default: every active account).")
    var account: String?
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let json = output.json
        let interactive = !json && isatty(STDERR_FILENO) == 1
        let reports = try await services().syncAccounts(account: account) { event in
            guard !json else { return }
            switch event {
            case .firstPageReady(let count):
                FileHandle.standardError.write(Data("Inbox: first \(count) messages ready\n".utf8))
            case .syncingFolder(let path, let done, let total) where interactive:
                FileHandle.standardError.write(Data("\r\(path): \(done)/\(total)\u{1B}[K".utf8))
            case .folderDone where interactive:
                FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
            default: break
            }
        }
        if json {
            try printJSON(reports)
            return
        }
        for report in reports {
            let first = report.firstPageMilliseconds.map { String(format: ", first page in %.0f ms", $0) } ?? ""
            print("\(report.account): synced in \(String(format: "%.2f", report.seconds)) s\(first)")
            let rows = report.folders.map { folder in
                [folder.path, folder.folderType.rawValue, String(folder.serverMessages), String(folder.inserted), String(folder.linked),
                 String(folder.removed), String(folder.flagChanges), folder.error ?? (folder.uidValidityReset ? "UIDVALIDITY changed: resynced" : "")]
            }
            print(TextTable(header: ["FOLDER", "TYPE", "ON SERVER", "NEW", "ALSO IN", "REMOVED", "FLAGS", "NOTE"], rows: rows).rendered)
        }
    }
}

/// `tern folders`: each folder with its message and unread counts.
struct FoldersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "folders", abstract: "List folders with message and unread counts.")

    @Option(help: "Only this account.")
    var account: String?
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let folders = try await services().mailQueries.folders(account: account)
        if output.json {
            try printJSON(folders)
            return
        }
        let rows = folders.map { [$0.account, $0.path, $0.folderType.rawValue, String($0.messageCount), String($0.unreadCount)] }
        print(TextTable(header: ["ACCOUNT", "FOLDER", "TYPE", "MESSAGES", "UNREAD"], rows: rows).rendered)
    }
}

/// `tern threads`: the thread list of a folder, newest first; every account's Inbox by default.
struct ThreadsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "threads", abstract: "List threads, newest first (default: the unified Inbox of every account).")

    @Option(help: "Only this account.")
    var account: String?
    @Option(help: "A folder path (default: Inbox).")
    var folder: String?
    @Option var limit = 50
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let threads = try await services().mailQueries.threads(account: account, folder: folder, limit: limit)
        if output.json {
            try printJSON(threads)
            return
        }
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let rows = threads.map { thread in
            let who = thread.participants.map { $0.name ?? $0.address }.prefix(3).joined(separator: ", ")
            let count = thread.messageCount > 1 ? " (\(thread.messageCount))" : ""
            return [String(thread.id), formatter.string(from: thread.latestDate), thread.unreadCount > 0 ? "●" : " ", who,
                    thread.subject + count]
        }
        print(TextTable(header: ["ID", "DATE", "", "FROM", "SUBJECT"], rows: rows).rendered)
    }
}

/// `tern search QUERY`: full-text search over the stored mail (FTS5), best matches first.
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "search", abstract: "Search stored mail (subject, people, text), newest first.")

    @Argument(help: "Words to look for; each must match (as a word or its start).")
    var words: [String]
    @Option(help: "Only this account.")
    var account: String?
    @Option var limit = 50
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let hits = try await services().mailQueries.search(words.joined(separator: " "), account: account, limit: limit)
        if output.json {
            try printJSON(hits)
            return
        }
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let rows = hits.map { hit in
            [hit.threadId.map(String.init) ?? "", formatter.string(from: hit.date), hit.from.name ?? hit.from.address, hit.subject]
        }
        print(TextTable(header: ["THREAD", "DATE", "FROM", "SUBJECT"], rows: rows).rendered)
    }
}

