import ArgumentParser
import FileNameSafety
import Foundation
import Synchronization
import TernCore
import TernRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The fields `tern compose`, `reply`, `forward` and `drafts edit` take to fill a message without an editor.
struct ComposeFieldOptions: ParsableArguments {
    @Option(help: "Recipients, comma-separated (`Name <a@example.com>` or `a@example.com`); repeatable. Replaces the prefilled To.")
    var to: [String] = []
    @Option(help: "Copy recipients; repeatable. Replaces the prefilled Cc.")
    var cc: [String] = []
    @Option(help: "Blind copy recipients; repeatable.")
    var bcc: [String] = []
    @Option(help: "The subject (replaces the prefilled one).")
    var subject: String?
    @Option(help: "Your text: above the signature and the quote of a reply or forward; the whole text of `drafts edit`.")
    var body: String?
    @Option(help: "Read the text from this file ('-' for standard input).")
    var bodyFile: String?
    @Option(help: "Attach this file; repeatable.")
    var attach: [String] = []
    @Option(help: "Remove the attachment with this file name (a forwarded one too; as shown, or as it is); repeatable.")
    var removeAttachment: [String] = []
    @Option(
        help: """
            Show this image (PNG, JPEG, GIF or WebP) in the message: where the text has ![](cid:NAME), NAME its file name; \
            else after your --body text, else at the end; repeatable.
            """)
    var inlineImage: [String] = []

    var isEmpty: Bool {
        to.isEmpty && cc.isEmpty && bcc.isEmpty && subject == nil && body == nil && bodyFile == nil && attach.isEmpty && removeAttachment.isEmpty
            && inlineImage.isEmpty
    }

    func validate() throws {
        if body != nil && bodyFile != nil { throw ValidationError("give the text with one of --body or --body-file, not both") }
    }

    /// `draft` with these fields applied; `aboveQuote`: the text goes above what was prefilled.
    func apply(to draft: ComposeDraft, services: TernServices, aboveQuote: Bool) throws -> ComposeDraft {
        func list(_ values: [String]) -> String? { values.isEmpty ? nil : values.joined(separator: ", ") }
        var edit = ComposeEdit(to: list(to), cc: list(cc), bcc: list(bcc), subject: subject, body: try bodyText())
        edit.bodyAboveQuote = aboveQuote
        let removed = Set(removeAttachment)
        edit.keepsAttachment = { !removed.contains($0.filename) && !removed.contains(AttachmentFilename.visible($0.filename)) }
        edit.addedAttachments = try attach.map(Self.attachment)
        var edited = services.composeValidation.applying(edit, to: draft)
        for path in inlineImage { try Self.addInlineImage(path, to: &edited, after: edit.body) }
        return edited
    }

    /// CO01-16: the image as one of the draft's files with a new Content-ID, and its `![name](cid:…)`
    /// in the text: in place of a `(cid:NAME)` the text names it by, else after `text`, else at the end.
    static func addInlineImage(_ path: String, to draft: inout ComposeDraft, after text: String?) throws {
        var image = try attachment(path)
        let head = (try? FileHandle(forReadingFrom: URL(fileURLWithPath: path)).read(upToCount: 16)) ?? nil
        guard let type = InlineImage.mediaType(of: [UInt8](head ?? Data()), declared: image.mimeType) else {
            throw TernError.invalidInput("--inline-image \(path): not a PNG, JPEG, GIF or WebP image (attach it with --attach)")
        }
        let contentId = InlineImage.newContentId()
        image.mimeType = type
        image.contentId = contentId
        draft.attachments.append(image)
        let placeholder = "(cid:\(image.filename))"
        if draft.body.contains(placeholder) {
            draft.body = draft.body.replacingOccurrences(of: placeholder, with: "(cid:\(contentId))")
            return
        }
        let reference = MarkdownSubset.imageReference(name: image.filename, contentId: contentId)
        if let text, !text.isEmpty, let range = draft.body.range(of: text) {
            draft.body.insert(contentsOf: "\n\n" + reference, at: range.upperBound)
        } else {
            draft.body += (draft.body.isEmpty || draft.body.hasSuffix("\n") ? "" : "\n\n") + reference
        }
    }

    func bodyText() throws -> String? {
        if let body { return body }
        guard let bodyFile else { return nil }
        if bodyFile == "-" { return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) }
        guard let data = FileManager.default.contents(atPath: bodyFile) else { throw TernError.notFound("file '\(bodyFile)'") }
        return String(decoding: data, as: UTF8.self)
    }

    static func attachment(_ path: String) throws -> ComposedAttachment {
        let url = URL(fileURLWithPath: path)
        guard let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber else {
            throw TernError.notFound("file '\(path)'")
        }
        return ComposedAttachment(
            source: .file(path: url.path), filename: url.lastPathComponent,
            mimeType: SendCommand.mimeType(forFilename: url.lastPathComponent), sizeBytes: size.int64Value, availability: .local)
    }
}

/// What `compose`, `reply` and `forward` do with the prefilled message.
struct ComposeActionOptions: ParsableArguments {
    @Flag(help: "Print the prefilled message (with the fields given) instead of opening an editor; nothing is saved.")
    var print = false
    @Flag(help: "Save it as a draft, without an editor.")
    var draft = false
    @Flag(help: "Send it, without an editor (after the undo delay).")
    var send = false
    @Option(help: "The undo delay for this send, in seconds (default: the undo-send-delay setting).")
    var undo: Int?
    @Option(help: "With --send: send later, at an ISO time, 'tomorrow 08:00', 'mon 9:00' or 'in 2h' (issue 36).")
    var at: String?
    @Flag(help: "Send even without a subject or text (otherwise refused without a terminal to ask on).")
    var yes = false
    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    func validate() throws {
        if [print, draft, send].filter({ $0 }).count > 1 { throw ValidationError("give one of --print, --draft or --send") }
        if let undo, undo < 0 || undo > 300 { throw ValidationError("--undo takes 0 to 300 seconds") }
        if let at {
            guard send, undo == nil else { throw ValidationError("--at goes with --send, without --undo") }
            _ = try ScheduledSendWording.time(at)
        }
    }
}

/// The three commands' common path: print, save, send, or the editor.
enum ComposeFlow {
    static func run(_ prefilled: ComposeDraft, fields: ComposeFieldOptions, action: ComposeActionOptions, aboveQuote: Bool) async throws {
        let services = try services()
        var message = try fields.apply(to: prefilled, services: services, aboveQuote: aboveQuote)
        if action.print { return try await ComposedOutput.print(message, services: services, json: action.json) }
        if action.draft { return try await saveAndReport(message, id: nil, services: services, json: action.json) }
        if action.send {
            try confirm(message, services: services, assumeYes: action.yes)
            guard let saved = try await services.drafts.save(message) else { throw TernError.invalidInput("the message is empty") }
            if let at = action.at {
                return try await SendingCountdown.schedule(
                    draftId: saved.draftId, at: ScheduledSendWording.time(at), services: services, json: action.json)
            }
            return try await SendingCountdown.send(draftId: saved.draftId, undo: action.undo, services: services, json: action.json)
        }
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw ValidationError("no terminal for an editor: give --print, --draft or --send (with --to, --subject, --body …)")
        }
        var draftId: Draft.ID?
        while true {
            message = try MessageEditor.edit(message, services: services)
            Swift.print("\n" + ComposedOutput.text(message))
            switch ask("[s]end, [e]dit again, save as [d]raft, or [q] discard? ", allowed: "sedq") {
            case "s":
                do {
                    try confirm(message, services: services, assumeYes: false)
                } catch let error as TernError {
                    printError("\(error)")
                    continue
                }
                guard let saved = try await services.drafts.save(message, id: draftId) else { throw TernError.invalidInput("the message is empty") }
                return try await SendingCountdown.send(draftId: saved.draftId, undo: action.undo, services: services, json: action.json)
            case "d":
                return try await saveAndReport(message, id: draftId, services: services, json: action.json)
            case "q":
                if let draftId { try await services.drafts.discard(draftId) }
                Swift.print("discarded")
                return
            default:
                draftId = try await services.drafts.save(message, id: draftId)?.draftId
            }
        }
    }

    static func saveAndReport(_ message: ComposeDraft, id: Draft.ID?, services: TernServices, json: Bool) async throws {
        guard let saved = try await services.drafts.save(message, id: id) else {
            if json { try printJSON(["saved": false]) } else { Swift.print("nothing written: no draft saved") }
            return
        }
        // Local first; the server's Drafts follows now when it can be reached, else at the next sync.
        let report = try? await services.drafts.syncToServer(accountId: message.accountId)
        let onServer = report.map { $0.drafts.failed.isEmpty } ?? false
        if json { return try printJSON(DraftSavedForm(draftId: saved.draftId, revision: saved.revision, changed: saved.changed, onServer: onServer)) }
        Swift.print("draft d\(saved.draftId) saved\(onServer ? "" : " locally (it goes to the server's Drafts at the next sync)")")
    }

    /// FR-COMP-01 "Send Validation": what blocks sending refuses; what needs confirming is asked on a terminal.
    static func confirm(_ message: ComposeDraft, services: TernServices, assumeYes: Bool) throws {
        let check = services.composeValidation.validate(message)
        if !check.canSend {
            let reasons =
                check.invalidRecipients.map { "\($0.field.rawValue): \($0.text) (\($0.reason))" }
                + check.warnings.filter(\.blocksSending).map(\.message)
            throw TernError.invalidInput("cannot send: " + reasons.joined(separator: "; "))
        }
        for warning in check.warnings where !warning.blocksSending { printError("warning: \(warning.message)") }
        for confirmation in check.confirmations where !assumeYes {
            guard isatty(STDIN_FILENO) == 1 else { throw TernError.invalidInput("\(confirmation.question) (give --yes to send anyway)") }
            guard ask("\(confirmation.question) [y/n] ", allowed: "yn") == "y" else { throw TernError.invalidInput("not sent") }
        }
    }

    static func ask(_ question: String, allowed: String) -> Character {
        while true {
            FileHandle.standardOutput.write(Data(question.utf8))
            guard let line = readLine() else { return allowed.last! }
            if let first = line.trimmingCharacters(in: .whitespaces).lowercased().first, allowed.contains(first) { return first }
        }
    }

    struct DraftSavedForm: Encodable {
        var draftId: DraftID
        var revision: Int
        var changed: Bool
        var onServer: Bool
    }
}

/// `$EDITOR` on the message as header lines, a blank line and the body (as mutt and git do).
/// The file is created owner-only in `$TERN_HOME/tmp` (issue 32): in /tmp its name is visible to
/// every user, and a file written 0644 and chmodded afterwards can be read in between.
enum MessageEditor {
    static func edit(_ message: ComposeDraft, services: TernServices) throws -> ComposeDraft {
        try OwnerOnlyFiles.directory(services.home.temporaryURL)
        let file = services.home.temporaryURL.appendingPathComponent("tern-\(UUID().uuidString.prefix(8)).eml")
        try OwnerOnlyFiles.create(file, bytes: (ComposedOutput.text(message) + "\n").utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let editor = ProcessInfo.processInfo.environment["VISUAL"] ?? ProcessInfo.processInfo.environment["EDITOR"] ?? "vi"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "\(editor) \"$1\"", "tern-editor", file.path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TernError.invalidInput("the editor (\(editor)) exited with \(process.terminationStatus)") }
        let edited = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        return try parse(edited, into: message, services: services)
    }

    /// Header lines up to the first blank line; `Attachment:` lines kept keep those attachments,
    /// `Attach: PATH` lines add files. From, In-Reply-To and References are the composer's.
    static func parse(_ text: String, into message: ComposeDraft, services: TernServices) throws -> ComposeDraft {
        var lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var edit = ComposeEdit()
        var keptAttachments: [String] = []
        while let line = lines.first, !line.trimmingCharacters(in: .whitespaces).isEmpty {
            lines.removeFirst()
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch line[..<colon].lowercased() {
            case "to": edit.to = value
            case "cc": edit.cc = value
            case "bcc": edit.bcc = value
            case "subject": edit.subject = value
            case "attachment": keptAttachments.append(value)
            case "attach": edit.addedAttachments.append(try ComposeFieldOptions.attachment(value))
            default: break
            }
        }
        if !lines.isEmpty { lines.removeFirst() }
        edit.body = lines.joined(separator: "\n").trimmingTrailingNewlines()
        edit.keepsAttachment = { [keptAttachments] attachment in
            let shown = ComposedOutput.shownName(attachment)
            return keptAttachments.contains { $0.hasPrefix(shown + " (") || $0 == shown || $0 == attachment.filename }
        }
        return services.composeValidation.applying(edit, to: message)
    }
}

extension String {
    fileprivate func trimmingTrailingNewlines() -> String {
        var text = self
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}

/// FR-COMP-02 on a terminal: "Sending in 5 s — press u or Ctrl-C to undo", then the send; Undo
/// leaves the message a draft. Without a terminal the window still runs (Ctrl-C, SIGINT, undoes).
enum SendingCountdown {
    /// The core's `UndoSendCoordinator` holds the message and lets it go at the window's end; this
    /// shows the countdown and asks it to undo. `undo`: this send's window in seconds (nil: the setting's).
    static func send(draftId: Draft.ID, undo: Int?, services: TernServices, json: Bool) async throws {
        let coordinator = services.undoSend
        // Listening from before the hold starts: a Ctrl-C or Ctrl-Z that lands while it is being
        // made still undoes or pauses it, never stops the process with the window running.
        let signals = CountdownSignals()
        defer { signals.remove() }
        switch try await coordinator.send(draftId, window: undo.map { .seconds($0) }, watcher: .none) {
        case .sent(let outcome):
            try report(outcome, json: json)
        case .held(let held, _):
            let emailId = held.send.emailId
            let ended = Task { try await coordinator.outcome(of: emailId) }
            let undone = try await waitOrUndo(
                until: held.send.until, json: json, signals: signals, pause: { await coordinator.pause(emailId) != nil },
                resume: { await coordinator.resume(emailId) })
            if undone, let draft = try await coordinator.undo(emailId) {
                if json { return try printJSON(UndoneForm(undone: true, draftId: draft.id)) }
                Swift.print("undone: nothing was sent; the message is draft \(draft.id.cli) (tern drafts edit \(draft.id.cli))")
                return
            }
            guard let outcome = try await ended.value else { throw TernError.invalidInput("the message went back to draft d\(held.draftId)") }
            try report(outcome, json: json)
        }
    }

    /// Send later (issue 36): the draft waits in the Outbox for `time`; nothing to count down.
    static func schedule(draftId: Draft.ID, at time: Date, services: TernServices, json: Bool) async throws {
        let outcome = try await services.drafts.schedule(draftId, at: time)
        if json { return try printJSON(outcome) }
        Swift.print(ScheduledSendWording.scheduled(outcome))
    }

    struct UndoneForm: Encodable {
        var undone: Bool
        var draftId: DraftID
    }

    static func report(_ outcome: SendOutcome, json: Bool) throws {
        if json {
            try printJSON(outcome)
            if outcome.state == .failed { throw ExitCode(1) }
            return
        }
        switch outcome.state {
        case .sent: Swift.print("sent (message \(outcome.emailId.cli), \(outcome.messageId ?? ""))")
        case .failed:
            printError(
                "not sent: \(TerminalText.line(outcome.error ?? "unknown error")) (message \(outcome.emailId.cli) is in the Outbox: tern outbox retry \(outcome.emailId.cli))"
            )
            throw ExitCode(1)
        default:
            let when = outcome.nextAttempt.map { " next try at \(SendCommand.time($0))" } ?? ""
            Swift.print("queued in the Outbox (message \(outcome.emailId.cli))\(outcome.error.map { ": \(TerminalText.line($0));" } ?? "")\(when)")
        }
    }

    /// True when the user undid it (u, or Ctrl-C / SIGINT) before the window's end.
    ///
    /// FR-COMP-02 "App enters background during undo window: Timer pauses": Ctrl-Z (SIGTSTP) pauses
    /// the window (`pause`) before the process stops, and SIGCONT (`fg`, `bg`) resumes it from what
    /// was left (`resume` gives the new end); a stopped terminal never lets the message go.
    static func waitOrUndo(
        until: Date, json: Bool, signals: CountdownSignals, pause: @escaping @Sendable () async -> Bool,
        resume: @escaping @Sendable () async -> Date?
    ) async throws -> Bool {
        let (interrupted, stopAsked) = (signals.interrupted, signals.stopAsked)
        var until = until
        let terminal = isatty(STDIN_FILENO) == 1 && !json
        var saved = termios()
        if terminal {
            tcgetattr(STDIN_FILENO, &saved)
            var raw = saved
            raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
            tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        }
        defer {
            if terminal {
                tcsetattr(STDIN_FILENO, TCSANOW, &saved)
                FileHandle.standardOutput.write(Data("\r\u{1B}[K".utf8))
            }
        }
        var shown = -1
        while Date() < until {
            if interrupted.isSet { return true }
            if stopAsked.take() {
                guard await pause() else { break }
                if terminal {
                    tcsetattr(STDIN_FILENO, TCSANOW, &saved)
                    FileHandle.standardOutput.write(Data("\r\u{1B}[KPaused: nothing is sent while Tern is stopped.\n".utf8))
                }
                // SIGSTOP, which no signal mask holds back, stops the process as Ctrl-Z would have.
                // The stop reaches this thread a moment after `kill` returns: wait for the SIGCONT
                // that ends it before the window goes on.
                _ = signals.continued.take()
                kill(getpid(), SIGSTOP)
                while !signals.continued.take() { try await Task.sleep(for: .milliseconds(20)) }
                if terminal {
                    var raw = saved
                    raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
                    tcsetattr(STDIN_FILENO, TCSANOW, &raw)
                    shown = -1
                }
                guard let resumed = await resume() else { break }
                until = resumed
                continue
            }
            let left = Int(until.timeIntervalSinceNow.rounded(.up))
            if terminal, left != shown {
                shown = left
                FileHandle.standardOutput.write(Data("\r\u{1B}[KSending in \(left) s… press u or Ctrl-C to undo".utf8))
            }
            if terminal {
                var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                if poll(&descriptor, 1, 100) > 0 {
                    var byte: UInt8 = 0
                    if read(STDIN_FILENO, &byte, 1) == 1, byte == UInt8(ascii: "u") || byte == UInt8(ascii: "U") || byte == 3 { return true }
                }
            } else {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        return interrupted.isSet
    }
}

/// SIGINT (Ctrl-C: undo) and SIGTSTP (Ctrl-Z: pause) noted for the countdown instead of their
/// default actions, and SIGCONT (the end of a stop) noted, from `init` until `remove`.
final class CountdownSignals {
    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        func set() { value.store(true, ordering: .relaxed) }
        var isSet: Bool { value.load(ordering: .relaxed) }
        /// Whether it was set, clearing it.
        func take() -> Bool { value.exchange(false, ordering: .relaxed) }
    }

    let interrupted = Flag()
    let stopAsked = Flag()
    let continued = Flag()
    private let sources: [any DispatchSourceSignal]

    init() {
        signal(SIGINT, SIG_IGN)
        signal(SIGTSTP, SIG_IGN)
        let (interrupted, stopAsked, continued) = (interrupted, stopAsked, continued)
        let onInterrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        onInterrupt.setEventHandler { interrupted.set() }
        let onStop = DispatchSource.makeSignalSource(signal: SIGTSTP, queue: .global())
        onStop.setEventHandler { stopAsked.set() }
        // Caught, SIGCONT still continues the process; the handler only notes it.
        let onContinue = DispatchSource.makeSignalSource(signal: SIGCONT, queue: .global())
        onContinue.setEventHandler { continued.set() }
        sources = [onInterrupt, onStop, onContinue]
        for source in sources { source.resume() }
    }

    func remove() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTSTP, SIG_DFL)
        signal(SIGCONT, SIG_DFL)
    }
}

/// `tern drafts`: the Drafts list (local drafts and those other clients left in the server's
/// Drafts), and a draft shown, edited, sent or discarded. Ids: `d12` a local draft, `m345` a
/// server draft (opening it makes it local).
struct DraftsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drafts", abstract: "List, show, edit, send or discard drafts.",
        subcommands: [List.self, Show.self, Edit.self, Send.self, Discard.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List drafts, newest first.")
        @Option(help: "Only this account.")
        var account: AccountName?
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let drafts = try await services().drafts.list(account: account)
            if output.json { return try printJSON(drafts) }
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyy-MM-dd HH:mm"
            let rows = drafts.map { draft in
                [
                    (draft.origin == .local ? "d" : "m") + String(draft.id), formatter.string(from: draft.updatedDate),
                    draft.origin == .server ? "server" : (draft.sync?.rawValue ?? ""),
                    draft.to.map(\.address).joined(separator: ", "), draft.subject, draft.lastError ?? ""
                ]
            }
            print(TextTable(header: ["ID", "UPDATED", "SYNC", "TO", "SUBJECT", "ERROR"], rows: rows.map { $0.map(TerminalText.line) }).rendered)
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a draft as the composer would open it.")
        @Argument(help: "d12 (a local draft) or m345 (a server draft), as `tern drafts` prints them.", transform: DraftReference.argument)
        var id: DraftReference
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let services = try services()
            let draft = try await id.open(services)
            try await ComposedOutput.print(draft.content, services: services, json: output.json)
            if draft.changedOnServer, !output.json { printError("note: this draft was updated on another device since it was last opened") }
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit", abstract: "Change a draft's fields and save it (with no field: in $EDITOR).")
        @Argument(help: "d12 (a local draft) or m345 (a server draft), as `tern drafts` prints them.", transform: DraftReference.argument)
        var id: DraftReference
        @OptionGroup var fields: ComposeFieldOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let services = try services()
            let draft = try await id.open(services)
            var content = try fields.apply(to: draft.content, services: services, aboveQuote: false)
            if fields.isEmpty {
                guard isatty(STDIN_FILENO) == 1 else { throw ValidationError("no field given and no terminal for an editor") }
                content = try MessageEditor.edit(content, services: services)
            }
            try await services.drafts.acknowledgeServerChange(draft.id)
            try await ComposeFlow.saveAndReport(content, id: draft.id, services: services, json: output.json)
        }
    }

    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "send", abstract: "Send a draft (after the undo delay).")
        @Argument(help: "d12 (a local draft) or m345 (a server draft), as `tern drafts` prints them.", transform: DraftReference.argument)
        var id: DraftReference
        @Option(help: "The undo delay for this send, in seconds.")
        var undo: Int?
        @Option(help: "Send later: an ISO time, 'tomorrow 08:00', 'mon 9:00' or 'in 2h' (issue 36).")
        var at: String?
        @Flag(help: "Send even without a subject or text.")
        var yes = false
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if let at {
                guard undo == nil else { throw ValidationError("--at sends later: it takes no --undo") }
                _ = try ScheduledSendWording.time(at)
            }
        }

        func run() async throws {
            let services = try services()
            let draft = try await id.open(services)
            try ComposeFlow.confirm(draft.content, services: services, assumeYes: yes)
            if let at {
                let time = try ScheduledSendWording.time(at)
                return try await SendingCountdown.schedule(draftId: draft.id, at: time, services: services, json: output.json)
            }
            try await SendingCountdown.send(draftId: draft.id, undo: undo, services: services, json: output.json)
        }
    }

    struct Discard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "discard", abstract: "Delete a draft, here and in the server's Drafts.")
        @Argument(help: "d12 (a local draft) or m345 (a server draft), as `tern drafts` prints them.", transform: DraftReference.argument)
        var id: DraftReference

        func run() async throws {
            let services = try services()
            let draft = try await id.open(services)
            try await services.drafts.discard(draft.id)
            _ = try? await services.drafts.syncToServer(accountId: draft.accountId)
            print("draft \(draft.id.cli) deleted")
        }
    }
}

/// `d12`: local draft 12; `m345`: the message 345 in a server's Drafts mailbox (issue 33: a bare
/// number is refused, as everywhere).
enum DraftReference {
    case local(DraftID)
    case server(EmailID)

    static func argument(_ text: String) throws -> DraftReference {
        if let draft = DraftID.read(text) { return .local(draft) }
        if let message = EmailID.read(text) { return .server(message) }
        throw CLIIdentifierSyntax(text: text, expected: [(DraftID.cliPrefix, DraftID.cliNoun), (EmailID.cliPrefix, "server draft")])
    }

    func open(_ services: TernServices) async throws -> Draft {
        switch self {
        case .local(let id): try await services.drafts.open(id)
        case .server(let id): try await services.drafts.open(serverEmailId: id)
        }
    }
}
