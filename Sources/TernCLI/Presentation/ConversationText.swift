import FileNameSafety
import Foundation
import TernCore

/// A conversation for a terminal: one line per collapsed message, headers and the body as text for
/// expanded ones, quoted history folded behind "[N quoted lines]" (FR-ED-01).
struct ConversationText {
    let conversation: Conversation
    var showQuoted = false
    /// FR-ED-02: the summary, above the first message, when it was ready.
    var summary: ThreadDigest? = nil

    var rendered: String {
        var out: [String] = []
        let count = conversation.messageCount
        out.append("\(TerminalText.line(conversation.subject))  (\(count) message\(count == 1 ? "" : "s"))")
        if conversation.offline { out.append("You're offline: bodies that were not downloaded are not shown.") }
        if let summary {
            out.append("Summary: \(TerminalText.line(summary.text))")
        }
        if conversation.hasEarlier {
            out.append(
                "\(conversation.earlierCount) earlier message\(conversation.earlierCount == 1 ? "" : "s") not shown: tern thread \(conversation.threadId) --earlier 1"
            )
        }
        for message in conversation.messages {
            out.append(String(repeating: "─", count: 72))
            out.append(contentsOf: message.collapsed ? collapsedLines(message) : expandedLines(message))
        }
        return out.joined(separator: "\n")
    }

    func collapsedLines(_ message: ConversationMessage) -> [String] {
        [
            "\(message.id.cli)  \(Self.date.string(from: message.date))  \(message.isRead ? " " : "●")\(message.isStarred ? "★" : " ") \(TerminalText.line(message.senderName)): \(TerminalText.line(message.snippet))"
        ]
    }

    func expandedLines(_ message: ConversationMessage) -> [String] {
        var lines: [String] = []
        let state =
            message.sendState == .none ? "" : "  (\(message.sendState.rawValue)\(message.sendError.map { ": \(TerminalText.line($0))" } ?? ""))"
        lines.append("Message: \(message.id.cli)\(message.isRead ? "" : "  ● unread")\(message.isStarred ? "  ★ starred" : "")\(state)")
        lines.append("From:    \(Self.format(message.from))")
        if !message.to.isEmpty { lines.append("To:      \(message.to.map(Self.format).joined(separator: ", "))") }
        if !message.cc.isEmpty { lines.append("Cc:      \(message.cc.map(Self.format).joined(separator: ", "))") }
        lines.append("Date:    \(Self.date.string(from: message.date))")
        if !message.folders.isEmpty { lines.append("Folders: \(message.folders.map(TerminalText.line).joined(separator: ", "))") }
        for attachment in message.attachments {
            lines.append(
                "Attachment \(attachment.id.cli): \(TerminalText.line(AttachmentFilename.visible(attachment.filename))) (\(TerminalText.line(attachment.mimeType)), \(ByteCountFormatter.string(fromByteCount: attachment.size, countStyle: .file)))\(attachment.isDownloaded ? ", downloaded" : "")"
            )
            for warning in attachment.warnings { lines.append("  ⚠ \(warning.text)") }
        }
        if let body = message.body {
            var notes: [String] = []
            if body.trackersBlocked > 0 {
                notes.append(
                    "\(body.trackersBlocked) tracker\(body.trackersBlocked == 1 ? "" : "s") blocked (\(body.trackerHosts.map(TerminalText.line).joined(separator: ", ")))"
                )
            }
            if body.remoteImagesBlocked > 0 {
                notes.append("\(body.remoteImagesBlocked) remote image\(body.remoteImagesBlocked == 1 ? "" : "s") not loaded (--load-remote)")
            }
            if body.senderTrusted, let note = Self.notVerifiedNote(message.senderAuthentication) { notes.append(note) }
            if body.suspiciousLinks > 0 {
                notes.append("\(body.suspiciousLinks) link\(body.suspiciousLinks == 1 ? "" : "s") go elsewhere than their text says")
            }
            if !notes.isEmpty { lines.append("[" + notes.joined(separator: "; ") + "]") }
        }
        if let receipt = message.readReceipt, receipt.asks {
            lines.append(
                "[\(TerminalText.line(message.senderName)) asks for a read receipt: tern receipt send \(message.id.cli), or tern receipt ignore \(message.id.cli)]"
            )
        }
        lines.append("")
        switch message.bodyState {
        case .unavailableOffline: lines.append("(Message body not available offline)")
        case .loading: lines.append("(body not downloaded yet)")
        case .empty: lines.append("(no text body)")
        case .available, .truncated:
            if let body = message.body { lines.append(showQuoted ? body.text : Self.foldingQuotes(body.text)) }
            if message.bodyState == .truncated { lines.append("[message too large: the rest was not downloaded]") }
        }
        return lines
    }

    /// Issue 32: why a trusted sender's message is not verified; nil when it is.
    static func notVerifiedNote(_ authentication: SenderAuthentication) -> String? {
        switch (authentication.verdict, authentication.authservId) {
        case (.verified, _): nil
        case (.failed, _): "trusted sender not verified: the sender's domain did not pass your provider's checks"
        case (.unknown, .some(let authservId)): "trusted sender not verified: no result from \(TerminalText.line(authservId)) in this message"
        case (.unknown, .none): "sender not verified: no provider checks known for this account (tern account set NAME --authserv-id ID)"
        }
    }

    /// Runs of `>` lines become one "[N quoted lines]" marker (FR-ED-01: quoted text collapsed).
    static func foldingQuotes(_ text: String) -> String {
        var out: [Substring] = []
        var quoted = 0
        func flush() {
            if quoted > 0 { out.append("[\(quoted) quoted line\(quoted == 1 ? "" : "s")]") }
            quoted = 0
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(">") {
                quoted += 1
            } else {
                flush()
                out.append(line)
            }
        }
        flush()
        return out.joined(separator: "\n")
    }

    static func format(_ address: EmailAddress) -> String {
        TerminalText.line(address.name.map { "\($0) <\(address.address)>" } ?? address.address)
    }

    static let date: DateFormatter = {
        let formatter = DateFormatter()
        formatter.dateFormat = "EEE, d MMM yyyy HH:mm"
        return formatter
    }()
}

/// `tern thread --json`: the fields scripts read, per message and per thread. The sanitized HTML
/// only: the raw body never leaves the core.
struct ConversationJSON: Encodable {
    let id: ThreadID
    let subject: String
    let messageCount: Int
    let hasEarlier: Bool
    let earlierCount: Int
    let offline: Bool
    /// FR-ED-02: absent when Assist is off, failed, or was not ready.
    var summary: ThreadDigest? = nil
    let messages: [Message]

    struct Message: Encodable {
        let id: EmailID
        let messageId: String?
        let from: EmailAddress
        let senderName: String
        let avatar: SenderAvatar
        let to: [EmailAddress]
        let cc: [EmailAddress]
        let date: Date
        let isRead: Bool
        let isStarred: Bool
        let collapsed: Bool
        let snippet: String
        let bodyState: BodyState
        let bodyTruncated: Bool
        let html: String?
        let text: String?
        let trackersBlocked: Int
        let trackerHosts: [String]
        let remoteImagesBlocked: Int
        let remoteImagesLoaded: Bool
        /// FR-ED-04: the sender is on the trusted list (whether or not that loaded the images).
        let senderTrusted: Bool
        /// Issue 32: the account's provider vouched for `from` (`senderAuthentication` says how).
        let senderVerified: Bool
        let senderAuthentication: SenderCheck
        let hasQuotedText: Bool
        /// Issue 37: trackers by kind, remote hosts, what link cleaning did (zeros without a body),
        /// the read-receipt request and the provider's SPF, DKIM and DMARC results.
        let privacy: PrivacyJSON
        /// Issue 37: the read-receipt request (null: none), `{"to": [...], "status": "ask" | "sent" | "ignored" | "refused", "refusal": …}`.
        let readReceipt: ReadReceiptRequest?
        let folders: [String]
        let sendState: SendState
        let sendError: String?
        let attachments: [Attachment]

        private enum CodingKeys: String, CodingKey {
            case id, messageId, from, senderName, avatar, to, cc, date, isRead, isStarred, collapsed, snippet, bodyState,
                bodyTruncated, html, text, trackersBlocked, trackerHosts, remoteImagesBlocked, remoteImagesLoaded, senderTrusted,
                senderVerified, senderAuthentication, hasQuotedText, privacy, readReceipt,
                folders, sendState, sendError, attachments
        }

        /// Every key is present: `messageId`, `html`, `text` and `sendError` are `null` when absent,
        /// so a script reads `message["html"]` without guarding for the key (issue 15's contract).
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(messageId, forKey: .messageId)
            try container.encode(from, forKey: .from)
            try container.encode(senderName, forKey: .senderName)
            try container.encode(avatar, forKey: .avatar)
            try container.encode(to, forKey: .to)
            try container.encode(cc, forKey: .cc)
            try container.encode(date, forKey: .date)
            try container.encode(isRead, forKey: .isRead)
            try container.encode(isStarred, forKey: .isStarred)
            try container.encode(collapsed, forKey: .collapsed)
            try container.encode(snippet, forKey: .snippet)
            try container.encode(bodyState, forKey: .bodyState)
            try container.encode(bodyTruncated, forKey: .bodyTruncated)
            try container.encode(html, forKey: .html)
            try container.encode(text, forKey: .text)
            try container.encode(trackersBlocked, forKey: .trackersBlocked)
            try container.encode(trackerHosts, forKey: .trackerHosts)
            try container.encode(remoteImagesBlocked, forKey: .remoteImagesBlocked)
            try container.encode(remoteImagesLoaded, forKey: .remoteImagesLoaded)
            try container.encode(senderTrusted, forKey: .senderTrusted)
            try container.encode(senderVerified, forKey: .senderVerified)
            try container.encode(senderAuthentication, forKey: .senderAuthentication)
            try container.encode(hasQuotedText, forKey: .hasQuotedText)
            try container.encode(privacy, forKey: .privacy)
            try container.encode(readReceipt, forKey: .readReceipt)
            try container.encode(folders, forKey: .folders)
            try container.encode(sendState, forKey: .sendState)
            try container.encode(sendError, forKey: .sendError)
            try container.encode(attachments, forKey: .attachments)
        }
    }

    /// Issue 32: `{"verdict": "verified" | "failed" | "unknown", "authservId": "mx.google.com" | null}`;
    /// a null authservId means Tern knows no provider checks for the account.
    struct SenderCheck: Encodable {
        let verdict: SenderAuthentication.Verdict
        let authservId: String?

        private enum CodingKeys: String, CodingKey { case verdict, authservId }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(verdict, forKey: .verdict)
            try container.encode(authservId, forKey: .authservId)
        }
    }

    /// The body's `BodyPrivacy` keys, with `readReceiptRequested` and `authentication`
    /// (`{"spf": "pass" | …, "dkim": …, "dmarc": …, "verdict": …, "authservId": …}`, each null when the
    /// provider's field said nothing of it).
    struct PrivacyJSON: Encodable {
        let body: BodyPrivacy
        let readReceiptRequested: Bool
        let authentication: Authentication

        struct Authentication: Encodable {
            let spf: String?
            let dkim: String?
            let dmarc: String?
            let verdict: SenderAuthentication.Verdict
            let authservId: String?

            private enum CodingKeys: String, CodingKey { case spf, dkim, dmarc, verdict, authservId }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(spf, forKey: .spf)
                try container.encode(dkim, forKey: .dkim)
                try container.encode(dmarc, forKey: .dmarc)
                try container.encode(verdict, forKey: .verdict)
                try container.encode(authservId, forKey: .authservId)
            }
        }

        private enum CodingKeys: String, CodingKey { case readReceiptRequested, authentication }

        func encode(to encoder: any Encoder) throws {
            try body.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(readReceiptRequested, forKey: .readReceiptRequested)
            try container.encode(authentication, forKey: .authentication)
        }
    }

    struct Attachment: Encodable {
        let id: AttachmentID
        let filename: String
        let mimeType: String
        let size: Int64
        let isDownloaded: Bool
        let warnings: [String]
    }

    init(_ conversation: Conversation) {
        id = conversation.threadId
        subject = conversation.subject
        messageCount = conversation.messageCount
        hasEarlier = conversation.hasEarlier
        earlierCount = conversation.earlierCount
        offline = conversation.offline
        messages = conversation.messages.map { message in
            let body = message.body
            return Message(
                id: message.id, messageId: message.messageId, from: message.from, senderName: message.senderName, avatar: message.avatar,
                to: message.to, cc: message.cc, date: message.date, isRead: message.isRead, isStarred: message.isStarred,
                collapsed: message.collapsed, snippet: message.snippet, bodyState: message.bodyState,
                bodyTruncated: message.bodyState == .truncated, html: body?.html, text: body?.text,
                trackersBlocked: body?.trackersBlocked ?? 0, trackerHosts: body?.trackerHosts ?? [],
                remoteImagesBlocked: body?.remoteImagesBlocked ?? 0, remoteImagesLoaded: body?.remoteImagesLoaded ?? false,
                senderTrusted: body?.senderTrusted ?? false, senderVerified: message.senderAuthentication.isVerified,
                senderAuthentication: SenderCheck(verdict: message.senderAuthentication.verdict, authservId: message.senderAuthentication.authservId),
                hasQuotedText: body?.hasQuotedText ?? false,
                privacy: PrivacyJSON(
                    body: body?.privacy ?? BodyPrivacy(), readReceiptRequested: message.readReceipt != nil,
                    authentication: PrivacyJSON.Authentication(
                        spf: message.authenticationChecks.spf, dkim: message.authenticationChecks.dkim,
                        dmarc: message.authenticationChecks.dmarc, verdict: message.senderAuthentication.verdict,
                        authservId: message.senderAuthentication.authservId)),
                readReceipt: message.readReceipt, folders: message.folders,
                sendState: message.sendState, sendError: message.sendError,
                attachments: message.attachments.map {
                    Attachment(
                        id: $0.id, filename: $0.filename, mimeType: $0.mimeType, size: $0.size, isDownloaded: $0.isDownloaded,
                        warnings: $0.warnings.map(\.text))
                })
        }
    }
}
