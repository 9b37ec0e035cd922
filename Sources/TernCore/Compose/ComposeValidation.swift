import Foundation

/// FR-COMP-01 "Send Validation" and the size limits of "Body Editor" and "Attachment Handling":
/// what a front end shows before it lets a message go. Pure: no store, no network.
public struct ComposeValidationUseCase: Sendable {
    /// The spec's body warning: "SHOULD display a warning if body exceeds 100 KB".
    public static let bodyWarningBytes = 100 * 1024
    /// Gmail's per-message limit, which the spec takes: over it, a warning that blocks sending.
    public static let attachmentLimitBytes: Int64 = 25 * 1024 * 1024

    let syntax: any MailSyntax

    public init(syntax: any MailSyntax) {
        self.syntax = syntax
    }

    /// Recipients as a person types them into one field, parsed; text that is no mailbox stays in
    /// the list (as its own address) so `validate` can point at it.
    public func recipients(_ text: String) -> [EmailAddress] {
        syntax.parseAddressList(text)
    }

    /// `draft` with a front end's edit applied; line breaks are stored as LF whatever the form sent.
    public func applying(_ edit: ComposeEdit, to draft: ComposeDraft) -> ComposeDraft {
        var draft = draft
        if let to = edit.to { draft.to = recipients(to) }
        if let cc = edit.cc { draft.cc = recipients(cc) }
        if let bcc = edit.bcc { draft.bcc = recipients(bcc) }
        if let subject = edit.subject { draft.subject = subject }
        if let body = edit.body?.replacingOccurrences(of: "\r\n", with: "\n") {
            draft.body = edit.bodyAboveQuote && !draft.body.isEmpty ? body + "\n\n" + draft.body : body
        }
        if let keeps = edit.keepsAttachment { draft.attachments = draft.attachments.filter(keeps) }
        draft.attachments += edit.addedAttachments
        return draft
    }

    public func validate(_ message: ComposeDraft) -> ComposeValidation {
        var result = ComposeValidation()
        var validCount = 0
        for (field, list) in [(RecipientField.to, message.to), (.cc, message.cc), (.bcc, message.bcc)] {
            for recipient in list {
                switch syntax.checkAddress(recipient.address) {
                case .valid(let needsSMTPUTF8):
                    validCount += 1
                    if needsSMTPUTF8 { result.needSMTPUTF8.append(recipient.address) }
                case .invalid(let reason):
                    result.invalidRecipients.append(InvalidRecipient(field: field, text: recipient.address, reason: reason))
                }
            }
        }
        if validCount == 0 { result.warnings.append(.noRecipients) }
        if message.subject.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { result.confirmations.append(.sendWithoutSubject) }
        if message.body.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { result.confirmations.append(.sendEmptyMessage) }
        let bodyBytes = message.body.utf8.count
        if bodyBytes > Self.bodyWarningBytes { result.warnings.append(.bodyLarge(bytes: bodyBytes)) }
        let attachmentBytes = message.attachments.reduce(Int64(0)) { $0 + max($1.sizeBytes, 0) }
        if attachmentBytes > Self.attachmentLimitBytes { result.warnings.append(.attachmentsTooLarge(bytes: attachmentBytes)) }
        return result
    }
}

public enum RecipientField: String, Sendable, Hashable, Codable {
    case to, cc, bcc
}

/// A recipient that is not an RFC 5322 address, for the front end to mark (red and an icon,
/// NFR-COMP-03: never color alone).
public struct InvalidRecipient: Sendable, Hashable, Codable {
    public var field: RecipientField
    public var text: String
    public var reason: String

    public init(field: RecipientField, text: String, reason: String) {
        self.field = field
        self.text = text
        self.reason = reason
    }
}

/// What the front end asks the user before sending (FR-COMP-01's SHOULDs).
public enum ComposeConfirmation: String, Sendable, Hashable, Codable {
    case sendWithoutSubject
    case sendEmptyMessage

    /// The spec's wording.
    public var question: String {
        switch self {
        case .sendWithoutSubject: "Send without subject?"
        case .sendEmptyMessage: "Send empty message?"
        }
    }
}

public enum ComposeWarning: Sendable, Hashable, Codable {
    /// No valid address in To, Cc or Bcc: Send stays disabled.
    case noRecipients
    /// The body is over 100 KB: worth saying, not a reason to refuse.
    case bodyLarge(bytes: Int)
    /// The attachments total over 25 MB: most servers refuse such a message.
    case attachmentsTooLarge(bytes: Int64)

    public var blocksSending: Bool {
        switch self {
        case .noRecipients, .attachmentsTooLarge: true
        case .bodyLarge: false
        }
    }

    public var message: String {
        switch self {
        case .noRecipients: "no valid recipient in To, Cc or Bcc"
        case .bodyLarge(let bytes): "the message body is \(bytes / 1024) KB (over 100 KB)"
        case .attachmentsTooLarge(let bytes): "the attachments total \(bytes / (1024 * 1024)) MB (over 25 MB)"
        }
    }
}

/// The result: sending is allowed when no recipient is invalid and no warning blocks it; the
/// confirmations are asked first.
public struct ComposeValidation: Sendable, Hashable {
    public var invalidRecipients: [InvalidRecipient] = []
    /// Valid addresses with non-ASCII text (an internationalized local part or domain): they go
    /// only to a server that offers SMTPUTF8 (RFC 6531), else sending is refused with a message.
    public var needSMTPUTF8: [String] = []
    public var warnings: [ComposeWarning] = []
    public var confirmations: [ComposeConfirmation] = []

    public var canSend: Bool { invalidRecipients.isEmpty && !warnings.contains(where: \.blocksSending) }
}
