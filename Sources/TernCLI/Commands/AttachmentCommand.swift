import ArgumentParser
import FileNameSafety
import Foundation
import TernCore

/// `tern attachment download ID`: FR-ED-03 and FR-SYNC-08 on a terminal. The warnings come first and
/// must be answered (`--yes` answers them for scripts); a progress bar follows on a terminal; Ctrl-C
/// cancels, and the use case leaves no partial file behind.
struct AttachmentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attachment", abstract: "Work with attachments.", subcommands: [Download.self])

    struct Download: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "download", abstract: "Download an attachment (ids are listed by `tern thread`) into the local cache and print its path.",
            discussion: "Dangerous file types and large files on a metered connection are confirmed first: on a terminal Tern asks, "
                + "elsewhere it refuses unless --yes is given. Ctrl-C cancels and keeps nothing.")

        @Argument(help: "The attachment (a7, from `tern thread`).", transform: AttachmentID.argument)
        var id: AttachmentID
        @Flag(help: "Download without asking, even when there are warnings.")
        var yes = false
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let services = try services()
            let check = try await services.downloadAttachment.check(attachmentId: id)
            if !check.warnings.isEmpty, !yes { try confirm(check) }
            let bar = !output.json && isatty(STDERR_FILENO) == 1 ? ProgressBar(label: AttachmentFilename.visible(check.filename)) : nil
            let download = services.downloadAttachment
            let attachmentId = id
            let file: DownloadedAttachment
            do {
                file = try await CancelledByInterrupt.run {
                    try await download.download(attachmentId: attachmentId) { event in bar?.show(event) }
                }
            } catch is CancellationError {
                bar?.clear()
                throw CLIError.downloadCancelled
            }
            bar?.clear()
            if output.json {
                try printJSON(DownloadJSON(attachment: check, file: file))
            } else {
                print(TerminalText.line(file.path))
            }
        }

        /// On a terminal, the warnings and a question; elsewhere a refusal naming `--yes`.
        func confirm(_ check: AttachmentDownloadCheck) throws {
            let texts = check.warnings.map(\.text)
            guard !output.json, isatty(STDIN_FILENO) == 1, isatty(STDERR_FILENO) == 1 else {
                throw CLIError.confirmationNeeded(filename: AttachmentFilename.visible(check.filename), warnings: texts)
            }
            var prompt = ""
            for text in texts { prompt += "\(TerminalText.line(text))\n" }
            prompt += "Download \"\(TerminalText.line(AttachmentFilename.visible(check.filename)))\" anyway? [y/N] "
            FileHandle.standardError.write(Data(prompt.utf8))
            let answer = (readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
            guard answer == "y" || answer == "yes" else { throw CLIError.downloadDeclined }
        }
    }

    /// `--json`: the attachment, its warnings (already confirmed), and where the file is.
    struct DownloadJSON: Encodable {
        var id: AttachmentID
        var filename: String
        var path: String
        var size: Int64
        /// From the bytes, never only from the sender's header.
        var mimeType: String
        var declaredMimeType: String
        var warnings: [String]

        init(attachment: AttachmentDownloadCheck, file: DownloadedAttachment) {
            id = attachment.attachmentId
            filename = attachment.filename
            path = file.path
            size = file.size
            mimeType = file.sniffedType
            declaredMimeType = attachment.mimeType
            warnings = attachment.warnings.map(\.text)
        }
    }
}
