import ArgumentParser
import Foundation
import TernCore
import TernRuntime

/// `tern sync [ACCOUNT]`: brings the server's mail into the local store (headers; FR-SYNC-01, 02).
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Sync mail headers from the server into the local store (every account, or the one named).")

    @Argument(help: "The account's name (default: every active account).")
    var account: AccountName?
    @Option(help: "Which bodies to download this time: none, recent (the last 30 days) or all (default: the account's setting).")
    var bodies: BodiesChoice?
    @Flag(help: "After syncing, keep watching the Inbox (IDLE) and show new mail as it arrives, until interrupted.")
    var watch = false
    @Flag(help: "With --watch: also show new Inbox mail as desktop notifications (notify-send), where the desktop has them.")
    var notify = false
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if notify, !watch { throw ValidationError("--notify is for --watch") }
    }

    enum BodiesChoice: String, ExpressibleByArgument, CaseIterable {
        case none, recent, all

        var policy: BodyHydrationPolicy {
            switch self {
            case .none: .none
            case .recent: .recent(days: 30)
            case .all: .all
            }
        }
    }

    func run() async throws {
        let json = output.json
        let interactive = !json && isatty(STDERR_FILENO) == 1
        // The weekly full read of the store is not paid at the start of every command (issue 38), but a
        // person who only runs one-shot commands syncs: a sync, long anyway and about to write, reads it
        // through first when due, and refuses a damaged store before writing to it.
        if !watch { try await services().checkStoreIntegrityIfDue() }
        let reports = try await services(longRunning: watch).syncAccounts(account: account, bodies: bodies?.policy) { event in
            guard !json else {
                // Scripts follow progress as JSON Lines on standard error; the report goes to standard output.
                if let line = Self.progressLine(event) { FileHandle.standardError.write(TerminalText.json(line)) }
                return
            }
            switch event {
            case .firstPageReady(let count) where count > 0:
                FileHandle.standardError.write(Data("Inbox: first \(count) messages ready\n".utf8))
            case .syncingFolder(let path, let done, let total) where interactive:
                FileHandle.standardError.write(Data("\r\(TerminalText.line(path)): \(done)/\(total)\u{1B}[K".utf8))
            case .folderDone where interactive:
                FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
            default: break
            }
        }
        if json, watch {
            // One JSON object per line while watching (JSON Lines), so scripts can follow.
            try printJSONLine(["event": "synced"], reports)
        } else if json {
            try printJSON(reports)
        } else {
            printReports(reports)
        }
        // Issue 22: a folder the server refused fails the command, after the others were synced; the
        // watch goes on (it retries them on its next pass) with the same line on standard error.
        let failed = reports.flatMap { report in report.folders.compactMap { folder in folder.error.map { (report.account, folder.path, $0) } } }
        if !failed.isEmpty {
            let list = failed.map { "\($0.0)/\($0.1) (\($0.2))" }.joined(separator: "; ")
            printError("tern: \(failed.count) folder\(failed.count == 1 ? "" : "s") could not be synced: \(TerminalText.line(list))")
        }
        guard watch else {
            if !failed.isEmpty { throw ExitCode(1) }
            return
        }
        fflush(nil) // the report above, before the first watch line
        // Issue 36: the desktop's notices, where there is a notification service; quietly none otherwise.
        let notifier = notify ? DesktopNotifier.find() : nil
        checkStoreIntegrityInBackground(try services())
        // The core's runner, as in `tern serve`: the watch, and after a failure of the whole run the
        // sync and watch again on its schedule (FR-SYNC-04 Error → Idle), until interrupted; what
        // only the person can mend (a refused sign-in) ends the command instead.
        try await services().syncRunner.run(
            account: account, firstSyncDone: true, endsOn: SyncEngineRunner.needsThePerson,
            describe: { ErrorWording.line(any: $0) }
        ) { event in
            switch event {
            case .watching(let account):
                if json {
                    try? printJSONLine(["event": "watching", "account": account.rawValue], [NewMessage]())
                } else {
                    Self.printNow("\(account): watching the Inbox for new mail (Ctrl-C to stop)")
                }
            case .newMail(let account, let messages):
                notifier?.notify(account: account, messages: messages)
                if json {
                    try? printJSONLine(["event": "newMail", "account": account.rawValue], messages)
                } else {
                    for message in messages { Self.printNow(Self.newMailLine(account: account, message: message)) }
                }
            case .retryScheduled(let account, let date, let reason):
                if json {
                    try? printJSONLine(
                        ["event": "retryScheduled", "account": account.rawValue, "at": date.formatted(.iso8601), "error": reason],
                        [NewMessage]())
                } else {
                    let formatter = DateFormatter()
                    formatter.dateFormat = "HH:mm:ss"
                    Self.printNow("\(account): \(TerminalText.line(reason)); trying again at \(formatter.string(from: date))")
                }
            case .state where json:
                // FR-SYNC-04's states while watching, on standard error as during the sync before it.
                if let line = Self.progressLine(event) { FileHandle.standardError.write(line) }
            case .pushed(let account, let report):
                if json {
                    try? printJSONLine(["event": "pushed", "account": account.rawValue], report)
                } else {
                    for id in report.queue.sent { Self.printNow("\(account): sent message \(id)") }
                    for late in report.queue.sentLate { Self.printNow("\(account): \(ScheduledSendWording.late(late))") }
                    for failure in report.queue.failed {
                        Self.printNow("\(account): message \(failure.emailId.cli) failed: \(TerminalText.line(failure.error))")
                    }
                }
            default: break
            }
        }
    }

    /// One line written at once: into a pipe (`tern sync --watch | tee`) `print` is block-buffered,
    /// so nothing showed while watching and an interrupt lost what was buffered (issue 22).
    static func printNow(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// What `--watch` prints for a new message: one line, whatever its sender and subject hold.
    static func newMailLine(account: AccountName, message: NewMessage) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm"
        let from = TerminalText.line(message.from.name ?? message.from.address)
        return "\(account): new  \(formatter.string(from: message.date))  \(from)  \(TerminalText.line(message.subject))"
    }

    static func progressLine(_ event: SyncProgress) -> Data? {
        let fields: [String: String]
        switch event {
        case .state(let account, let state, let detail):
            fields = ["event": "state", "account": account.rawValue, "state": state.rawValue].merging(detail.map { ["detail": $0] } ?? [:]) { a, _ in
                a
            }
        case .connecting: fields = ["event": "connecting"]
        case .discoveredFolders(let count): fields = ["event": "discoveredFolders", "count": String(count)]
        case .selectingFolder(let path): fields = ["event": "selectingFolder", "folder": path]
        case .firstPageReady(let count): fields = ["event": "firstPageReady", "count": String(count)]
        case .syncingFolder(let path, let done, let total):
            fields = ["event": "syncingFolder", "folder": path, "done": String(done), "total": String(total)]
        case .folderDone(let path): fields = ["event": "folderDone", "folder": path]
        default: return nil
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(fields)).map { $0 + Data("\n".utf8) }
    }

    func printReports(_ reports: [SyncReport]) {
        for report in reports {
            let first = report.firstPageMilliseconds.map { String(format: ", first page in %.0f ms", $0) } ?? ""
            print("\(report.account): synced in \(String(format: "%.2f", report.seconds)) s\(first)")
            if let pushed = report.pushed, pushed.changes.done + pushed.queue.sent.count + pushed.queue.failed.count > 0 {
                print(
                    "  pushed first: \(pushed.changes.done) change(s), \(pushed.queue.sent.count) message(s) sent, \(pushed.queue.failed.count) failed"
                )
            }
            let rows = report.folders.map { folder in
                [
                    folder.path, folder.folderType.rawValue, String(folder.serverMessages), String(folder.inserted), String(folder.linked),
                    String(folder.removed), String(folder.flagChanges), String(folder.bodiesFetched),
                    folder.error ?? (folder.uidValidityReset ? "UIDVALIDITY changed: resynced" : folder.catchUpPaused == nil ? "" : "history paused")
                ]
            }
            print(TextTable(header: ["FOLDER", "TYPE", "ON SERVER", "NEW", "ALSO IN", "REMOVED", "FLAGS", "BODIES", "NOTE"], rows: rows).rendered)
            // FR-SYNC-01 stage D: older mail is fetched on when catch-up may run again.
            if let pause = report.folders.lazy.compactMap(\.catchUpPaused).first {
                print("  catch-up paused: \(TerminalText.line(pause.reason))")
            }
        }
    }
}

/// One line of JSON: the labels, plus `data`.
func printJSONLine<Payload: Encodable>(_ labels: [String: String], _ data: Payload) throws {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let bytes = TerminalText.json(try encoder.encode(JSONLine(labels: labels, data: data)))
    FileHandle.standardOutput.write(bytes + Data("\n".utf8))
}

/// `{"event": …, "account": …, "data": …}`.
struct JSONLine<Payload: Encodable>: Encodable {
    var labels: [String: String]
    var data: Payload

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (key, value) in labels { try container.encode(value, forKey: Key(stringValue: key)) }
        try container.encode(data, forKey: Key(stringValue: "data"))
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// `tern folders`: each folder with its message and unread counts.
struct FoldersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "folders", abstract: "List folders with message and unread counts.")

    @Option(help: "Only this account.")
    var account: AccountName?
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let folders = try await services().browse.folders(account: account)
        if output.json {
            try printJSON(folders)
            return
        }
        let rows = folders.map { [$0.account.rawValue, $0.path, $0.folderType.rawValue, String($0.messageCount), String($0.unreadCount)] }
        print(TextTable(header: ["ACCOUNT", "FOLDER", "TYPE", "MESSAGES", "UNREAD"], rows: rows).rendered)
    }
}

/// `tern threads`: the thread list of a folder, newest first; every account's Inbox by default.
struct ThreadsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "threads", abstract: "List threads, newest first (default: the unified Inbox of every account).")

    @Option(help: "Only this account.")
    var account: AccountName?
    @Option(help: "A folder path (default: Inbox).")
    var folder: String?
    @Flag(help: "The virtual Archive: messages archived out of every synced folder.")
    var archive = false
    @Flag(help: "The virtual Outbox: messages queued, being sent, or failed.")
    var outbox = false
    @Flag(help: "First fetch a page of older mail from the server (one account's folder: --account and --folder).")
    var older = false
    @Option var limit = 50
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard [archive, outbox, folder != nil].filter({ $0 }).count <= 1 else {
            throw ValidationError("give at most one of --folder, --archive and --outbox")
        }
    }

    func run() async throws {
        let services = try services()
        if older {
            let folderName = archive ? VirtualMailbox.archive.rawValue : outbox ? VirtualMailbox.outbox.rawValue : folder
            let result = try await services.loadOlderMail(account: account, folder: folderName)
            let note: String =
                switch result {
                case .notApplicable(let reason): "no older mail fetched: \(reason)"
                case .fetched(let count): "fetched \(count) older message\(count == 1 ? "" : "s")"
                case .reachedBoundary(let serverHistory): serverHistory ? "no older mail on the server" : "the sync window ends here"
                }
            printError(note)
        }
        let queries = services.mailQueries
        let threads =
            if archive {
                try await queries.threads(in: .archive, account: account, limit: limit)
            } else if outbox {
                try await queries.threads(in: .outbox, account: account, limit: limit)
            } else {
                try await queries.threads(account: account, folder: folder, limit: limit)
            }
        if output.json {
            try printJSON(threads)
            return
        }
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let rows = threads.map { thread in
            let who = thread.participants.map { $0.name ?? $0.address }.prefix(3).joined(separator: ", ")
            let count = thread.messageCount > 1 ? " (\(thread.messageCount))" : ""
            return [
                thread.id.cli, formatter.string(from: thread.latestDate), thread.unreadCount > 0 ? "●" : " ", who,
                thread.subject + count
            ]
        }
        print(TextTable(header: ["ID", "DATE", "", "FROM", "SUBJECT"], rows: rows).rendered)
    }
}

/// `tern search QUERY`: full-text search over the stored mail (FTS5), best matches first.
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search", abstract: "Search stored mail (subject, people, text), newest first.",
        discussion: """
            Words must each match as a whole word, the last also as the start of one; "a phrase" matches \
            its words in order. Gmail's operators: from: to: cc: subject: filename: has:attachment \
            is:unread is:read is:starred in:FOLDER (in:inbox in:sent in:drafts in:trash in:spam in:archive) \
            before:YYYY-MM-DD after:YYYY-MM-DD older_than:7d newer_than:2m (d, m, y) larger:5M smaller:200K; \
            OR between two parts, -part to leave one out, (parentheses) to group.
            """)

    @Argument(help: "What to look for: words, \"phrases\" and operators (see above).")
    var words: [String]
    @Option(help: "Only this account.")
    var account: AccountName?
    @Option var limit = 50
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let query = words.joined(separator: " ")
        let hits: [SearchHit]
        do {
            hits = try await services().browse.search(query, account: account, limit: limit)
        } catch let error as SearchQueryError {
            printError("tern: \(TerminalText.line(ErrorWording.line(error)))")
            printError(Self.pointing(at: error, in: query))
            throw ExitCode.failure
        }
        if output.json {
            try printJSON(hits)
            return
        }
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let rows = hits.map { hit in
            [hit.threadId?.cli ?? "", hit.emailId.cli, formatter.string(from: hit.date), hit.from.name ?? hit.from.address, hit.subject]
        }
        print(TextTable(header: ["THREAD", "MESSAGE", "DATE", "FROM", "SUBJECT"], rows: rows).rendered)
    }
}

extension SearchCommand {
    /// The query with the part that could not be read underlined (issue 36).
    static func pointing(at error: SearchQueryError, in query: String) -> String {
        let characters = Array(query)
        let start = min(max(0, error.offset), characters.count)
        let before = TerminalText.line(String(characters[..<start]))
        let part = TerminalText.line(String(characters[start..<min(characters.count, start + max(1, error.part.count))]))
        return "  " + TerminalText.line(query) + "\n  " + String(repeating: " ", count: before.count)
            + String(repeating: "^", count: max(1, part.count))
    }
}

/// `tern thread ID`: a conversation as the Email Detail screen shows it (FR-ED-01..05): opening
/// marks it read, read messages are one line with their snippet, the others show their headers and
/// the body as text (from the sanitized HTML, quoted history folded), with tracker and remote-image
/// counts and attachment warnings.
struct ThreadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "thread", abstract: "Show a conversation: headers, bodies as text, attachments.")

    @Argument(help: "The thread (t12, from `tern threads` or `tern search`).", transform: ThreadID.argument)
    var id: ThreadID
    @Flag(help: "Leave its unread messages unread (opening a thread marks them read).")
    var keepUnread = false
    @Option(help: "Also show this many pages of 25 earlier messages (threads over 50 messages show the newest 25 first).")
    var earlier = 0
    @Flag(help: "Load remote images for every message shown (trackers are still blocked).")
    var loadRemote = false
    @Flag(help: "Show every message's body, read ones too.")
    var expandAll = false
    @Flag(help: "Show quoted history instead of folding it.")
    var showQuoted = false
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let services = try services()
        // FR-ED-02, AC-U-11: the summary is computed beside the opening and shown if it is ready
        // soon after the conversation; the conversation never waits longer for it.
        let threadId = id
        let summarizing = Task { await services.summarizeThread(threadId: threadId) }
        let options = OpenThreadUseCase.Options(markRead: !keepUnread, earlierPages: earlier, expandAll: expandAll)
        guard case .opened(var conversation, let network) = try await services.openThread(threadId: id, options: options) else {
            throw CLIError.emptyConversation
        }
        if let network {
            // The CLI shows the finished state: bodies fetched (or not, offline), read flags pushed.
            let outcome = await network.outcome()
            if let error = outcome.bodyError { printError("tern: bodies not downloaded: \(TerminalText.line(ErrorWording.line(error)))") }
            for failure in outcome.markRead?.failed ?? [] { printError("tern: could not mark read: \(TerminalText.line(failure))") }
            conversation = try await services.openThread.refreshed(conversation, loadRemoteImages: remote(conversation), offline: outcome.offline)
        } else if loadRemote {
            conversation = try await services.openThread.refreshed(conversation, loadRemoteImages: remote(conversation))
        }
        let summary = await withDeadline(.seconds(2)) { await summarizing.value } ?? nil
        summarizing.cancel()
        if output.json {
            var json = ConversationJSON(conversation)
            json.summary = summary
            return try printJSON(json)
        }
        print(ConversationText(conversation: conversation, showQuoted: showQuoted, summary: summary).rendered)
    }

    func remote(_ conversation: Conversation) -> Set<EmailID> {
        loadRemote ? Set(conversation.messages.map(\.id)) : []
    }
}
