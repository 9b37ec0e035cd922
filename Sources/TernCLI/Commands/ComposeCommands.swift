import ArgumentParser
import FileNameSafety
import Foundation
import TernCore
import TernRuntime

/// `tern compose`, `tern reply ID [--all]`, `tern forward ID` (FR-COMP-01): the message prefilled
/// as the spec's table says, then, on a terminal, `$EDITOR` and the question send, edit again, save
/// as draft or discard; or non-interactively with the field flags and `--print`, `--draft` or `--send`.
struct ComposeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compose", abstract: "Write a new message (in $EDITOR, or with --to/--subject/--body and --send or --draft).")

    @Option(help: "The account to write from (needed when there are several).")
    var account: AccountName?
    @Option(help: "Send from this identity (an address of `tern identity list`); default: the account's own address.")
    var from: String?
    @Option(
        help: """
            Prefill from a mailto: link (RFC 6068: to, cc, bcc, subject, body; other fields are ignored).             Nothing is sent without --send or the editor's send.
            """)
    var mailto: String?
    @OptionGroup var fields: ComposeFieldOptions
    @OptionGroup var action: ComposeActionOptions

    func validate() throws {
        if let mailto {
            do { _ = try MailtoURI(mailto) } catch { throw ValidationError("--mailto: \(error)") }
        }
    }

    func run() async throws {
        let services = try services()
        let compose = services.compose
        var prefilled: ComposeDraft
        if let from, account == nil {
            // Issue 35: the identity names its account.
            prefilled = try await compose.sending(try await compose.new(preferring: nil), fromAddress: from)
        } else {
            prefilled = try await compose.new(account: account)
            if let from { prefilled = try await compose.sending(prefilled, fromAddress: from, accountName: account) }
        }
        if let mailto {
            // Issue 36: the link's fields first; the flags given beside it still win.
            let link = try MailtoURI(mailto)
            prefilled = services.composeValidation.applying(link.edit, to: prefilled)
            if !link.ignoredFields.isEmpty {
                let ignored = link.ignoredFields.joined(separator: ", ")
                printError("note: the link's \(ignored) field(s) ignored: a link sets only to, cc, bcc, subject and body")
            }
        }
        // Issue 35: the text goes above the identity's signature (a new message without one starts empty).
        try await ComposeFlow.run(prefilled, fields: fields, action: action, aboveQuote: true)
    }
}

struct ReplyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reply", abstract: "Reply to a message: recipients, subject, quote and threading headers prefilled.")

    @Argument(help: "The message (m34, from `tern thread` or `tern search`).", transform: EmailID.argument)
    var id: EmailID
    @Flag(help: "Reply to all: the original's To and Cc too, but none of your own addresses.")
    var all = false
    @Option(help: "Send from this identity (an address of `tern identity list`); default: the one the original was addressed to.")
    var from: String?
    @OptionGroup var fields: ComposeFieldOptions
    @OptionGroup var action: ComposeActionOptions

    func run() async throws {
        let compose = try services().compose
        var prefilled = try await compose.compose(all ? .replyAll : .reply, replyingTo: id)
        if let from { prefilled = try await compose.sending(prefilled, fromAddress: from) }
        try await ComposeFlow.run(prefilled, fields: fields, action: action, aboveQuote: true)
    }
}

struct ForwardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forward", abstract: "Forward a message with its attachments.")

    @Argument(help: "The message (m34, from `tern thread` or `tern search`).", transform: EmailID.argument)
    var id: EmailID
    @Option(help: "Send from this identity (an address of `tern identity list`); default: the one the original was addressed to.")
    var from: String?
    @OptionGroup var fields: ComposeFieldOptions
    @OptionGroup var action: ComposeActionOptions

    func run() async throws {
        let compose = try services().compose
        var prefilled = try await compose.compose(.forward, replyingTo: id)
        if let from { prefilled = try await compose.sending(prefilled, fromAddress: from) }
        try await ComposeFlow.run(prefilled, fields: fields, action: action, aboveQuote: true)
    }
}

/// The prefilled message as `--print` shows it: header lines, a blank line and the body (as mutt
/// and git show a message to edit), validation on standard error; or all of it as one JSON object.
enum ComposedOutput {
    struct JSONForm: Encodable {
        var mode: ComposeMode
        /// The name of the account it is sent from.
        var account: String
        var from: EmailAddress
        var to: [EmailAddress]
        var cc: [EmailAddress]
        var bcc: [EmailAddress]
        var subject: String
        var body: String
        var inReplyTo: String?
        var references: [String]
        var attachments: [AttachmentForm]
        var warnings: [WarningForm]
        var confirmations: [String]
        var invalidRecipients: [InvalidRecipient]
        var needSMTPUTF8: [String]
        var notes: [ComposeNote]

        enum CodingKeys: String, CodingKey {
            case mode, account, from, to, cc, bcc, subject, body, inReplyTo, references, attachments, warnings, confirmations, invalidRecipients,
                needSMTPUTF8, notes
        }

        /// Every key always present (`inReplyTo` as null), so scripts need not test for absent keys.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(mode, forKey: .mode)
            try container.encode(account, forKey: .account)
            try container.encode(from, forKey: .from)
            try container.encode(to, forKey: .to)
            try container.encode(cc, forKey: .cc)
            try container.encode(bcc, forKey: .bcc)
            try container.encode(subject, forKey: .subject)
            try container.encode(body, forKey: .body)
            try container.encode(inReplyTo, forKey: .inReplyTo)
            try container.encode(references, forKey: .references)
            try container.encode(attachments, forKey: .attachments)
            try container.encode(warnings, forKey: .warnings)
            try container.encode(confirmations, forKey: .confirmations)
            try container.encode(invalidRecipients, forKey: .invalidRecipients)
            try container.encode(needSMTPUTF8, forKey: .needSMTPUTF8)
            try container.encode(notes, forKey: .notes)
        }
    }

    struct AttachmentForm: Encodable {
        var attachmentId: AttachmentID?
        var path: String?
        var filename: String
        var mimeType: String
        var sizeBytes: Int64
        var availability: ComposedAttachment.Availability
        /// CO01-16: an inline image's, which the text shows as `![name](cid:…)`.
        var contentId: String?
    }

    struct WarningForm: Encodable {
        var message: String
        var blocksSending: Bool
    }

    static func print(_ draft: ComposeDraft, services: TernServices, json: Bool) async throws {
        let validation = services.composeValidation.validate(draft)
        if json {
            let account = try await services.listAccounts().first { $0.id == draft.accountId }
            try printJSON(jsonForm(draft, accountName: account?.name.rawValue ?? draft.accountId.rawValue, validation: validation))
            return
        }
        Swift.print(text(draft))
        for warning in validation.warnings { FileHandle.standardError.write(Data("warning: \(warning.message)\n".utf8)) }
        for confirmation in validation.confirmations { FileHandle.standardError.write(Data("to confirm: \(confirmation.question)\n".utf8)) }
        for note in draft.notes { FileHandle.standardError.write(Data("note: \(noteText(note))\n".utf8)) }
    }

    static func jsonForm(_ draft: ComposeDraft, accountName: String, validation: ComposeValidation) -> JSONForm {
        JSONForm(
            mode: draft.mode, account: accountName, from: draft.from, to: draft.to, cc: draft.cc, bcc: draft.bcc, subject: draft.subject,
            body: draft.body, inReplyTo: draft.inReplyTo, references: draft.references,
            attachments: draft.attachments.map { attachment in
                var form = AttachmentForm(
                    filename: attachment.filename, mimeType: attachment.mimeType, sizeBytes: attachment.sizeBytes,
                    availability: attachment.availability, contentId: attachment.contentId)
                switch attachment.source {
                case .storedAttachment(let id): form.attachmentId = id
                case .file(let path): form.path = path
                }
                return form
            },
            warnings: validation.warnings.map { WarningForm(message: $0.message, blocksSending: $0.blocksSending) },
            confirmations: validation.confirmations.map(\.question), invalidRecipients: validation.invalidRecipients,
            needSMTPUTF8: validation.needSMTPUTF8, notes: draft.notes)
    }

    static func text(_ draft: ComposeDraft) -> String {
        func mailbox(_ address: EmailAddress) -> String {
            guard let name = address.name, !name.isEmpty else { return address.address }
            return "\(name) <\(address.address)>"
        }
        var lines = ["From: \(mailbox(draft.from))"]
        for (field, list) in [("To", draft.to), ("Cc", draft.cc), ("Bcc", draft.bcc)] where !list.isEmpty || field == "To" {
            lines.append("\(field): \(list.map(mailbox).joined(separator: ", "))")
        }
        lines.append("Subject: \(draft.subject)")
        if let inReplyTo = draft.inReplyTo { lines.append("In-Reply-To: \(inReplyTo)") }
        if !draft.references.isEmpty { lines.append("References: \(draft.references.joined(separator: " "))") }
        for attachment in draft.attachments {
            let state = attachment.availability == .local ? "" : ", not downloaded yet"
            lines.append(
                "Attachment: \(shownName(attachment)) (\(ByteCountFormatter.string(fromByteCount: attachment.sizeBytes, countStyle: .file))\(state))")
        }
        return lines.map(TerminalText.line).joined(separator: "\n") + "\n\n" + TerminalText.block(draft.body)
    }

    /// An attachment's name as the text shows it (format characters made visible, issue 32), and so
    /// as the editor's `Attachment:` line that keeps it names it.
    static func shownName(_ attachment: ComposedAttachment) -> String {
        TerminalText.line(AttachmentFilename.visible(attachment.filename))
    }

    static func noteText(_ note: ComposeNote) -> String {
        switch note {
        case .originalBodyUnavailable: "the original's text is not downloaded (offline?): nothing is quoted"
        case .originalBodyTruncated: "the original's text was cut at 10 MB: so is the quote"
        }
    }
}
