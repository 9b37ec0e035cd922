import Foundation

/// A thread as the Email Detail screen shows it (FR-ED-01): one page of its messages, oldest first,
/// each with what a front end needs to draw it. Every front end (the CLI, the web app) gets the same.
public struct Conversation: Sendable, Hashable, Codable {
    public var threadId: ThreadID
    public var subject: String
    /// Every message of the thread, loaded or not.
    public var messageCount: Int
    public var messages: [ConversationMessage]
    /// FR-ED-05: older messages not in this page ("Show earlier messages").
    public var earlierCount: Int
    public var hasEarlier: Bool { earlierCount > 0 }
    /// E-05: bodies that were not stored could not be fetched (the server was not reached).
    public var offline: Bool

    public init(threadId: ThreadID, subject: String, messageCount: Int, messages: [ConversationMessage], earlierCount: Int, offline: Bool) {
        self.threadId = threadId
        self.subject = subject
        self.messageCount = messageCount
        self.messages = messages
        self.earlierCount = earlierCount
        self.offline = offline
    }
}

/// One message of a conversation (FR-ED-01's "Message Content" table).
public struct ConversationMessage: Sendable, Hashable, Codable, Identifiable {
    public var id: EmailID
    /// The Message-ID header.
    public var messageId: String?
    public var subject: String
    public var from: EmailAddress
    /// The sender's name, or the address when there is none.
    public var senderName: String
    public var avatar: SenderAvatar
    public var to: [EmailAddress]
    public var cc: [EmailAddress]
    public var date: Date
    public var isRead: Bool
    public var isStarred: Bool
    /// FR-ED-01: read messages are collapsed; unread ones, and the latest when all are read, are expanded.
    public var collapsed: Bool
    /// The one line a collapsed message shows.
    public var snippet: String
    /// Nil when the message is collapsed (rendered when expanded: `RenderMessageUseCase`).
    public var body: RenderedBody?
    public var bodyState: BodyState
    public var attachments: [AttachmentView]
    public var folders: [String]
    public var sendState: SendState
    public var sendError: String?
    /// Send later (issue 36): the time a queued message waits for.
    public var scheduledAt: Date?
    /// Issue 32: whether the account's provider vouched for `from`; a trusted sender's remote
    /// images load only when `letsTrustLoadImages`, and the front ends say when it is not verified.
    public var senderAuthentication = SenderAuthentication(verdict: .unknown, authservId: nil)
    /// Issue 37's privacy report: the provider's SPF, DKIM and DMARC results for `from`.
    public var authenticationChecks = AuthenticationChecks()
    /// Issue 37: the message's read-receipt request (nil: it asks for none); the front ends show
    /// "SENDER asks for a read receipt" with Send receipt and Ignore while it `asks`.
    public var readReceipt: ReadReceiptRequest?
    /// Issue 36: it carries `List-Unsubscribe`, so the front ends offer Unsubscribe (what the list
    /// offers is read from the server only when the person asks).
    public var offersUnsubscribe = false

    public init(
        id: EmailID, messageId: String?, subject: String, from: EmailAddress, senderName: String, avatar: SenderAvatar, to: [EmailAddress],
        cc: [EmailAddress], date: Date, isRead: Bool, isStarred: Bool, collapsed: Bool, snippet: String, body: RenderedBody?,
        bodyState: BodyState, attachments: [AttachmentView], folders: [String], sendState: SendState, sendError: String?
    ) {
        self.id = id
        self.messageId = messageId
        self.subject = subject
        self.from = from
        self.senderName = senderName
        self.avatar = avatar
        self.to = to
        self.cc = cc
        self.date = date
        self.isRead = isRead
        self.isStarred = isStarred
        self.collapsed = collapsed
        self.snippet = snippet
        self.body = body
        self.bodyState = bodyState
        self.attachments = attachments
        self.folders = folders
        self.sendState = sendState
        self.sendError = sendError
    }
}

/// Whether a message's body can be shown (FR-ED-01 view states, E-05).
public enum BodyState: String, Sendable, Hashable, Codable {
    /// Stored: shown.
    case available
    /// Stored, but cut at the 10 MB limit (FR-SYNC-01 step 7): shown with a "message too large" note.
    case truncated
    /// Not stored yet: being fetched.
    case loading
    /// Not stored, and the server could not be reached: "Message body not available offline".
    case unavailableOffline
    /// Fetched: the message has no text body at all.
    case empty
}

/// FR-ED-01: initials and a colour that stay the same for an address everywhere it is drawn.
public struct SenderAvatar: Sendable, Hashable, Codable {
    public var initials: String
    /// One of `palette`, chosen by a stable hash of the lowercased address.
    public var color: String

    /// Twelve colours that each keep white initials at 4.5:1 contrast or better (NFR-ED-03).
    public static let palette = [
        "#B3261E", "#A0410D", "#7A5900", "#3B6E00", "#006C4C", "#00696F",
        "#00639B", "#3F51B5", "#6A3DB8", "#8E2C8A", "#A8245A", "#5D5F63"
    ]

    public init(initials: String, color: String) {
        self.initials = initials
        self.color = color
    }

    public init(for address: EmailAddress) {
        self.init(initials: Self.initials(name: address.name, address: address.address), color: Self.color(for: address.address))
    }

    /// First letters of the first and last words of the name; else of the address's local part.
    static func initials(name: String?, address: String) -> String {
        let words = (name ?? "").split(whereSeparator: { $0.isWhitespace || $0 == "," || $0 == "\"" })
            .filter { $0.first?.isLetter == true || $0.first?.isNumber == true }
        if let first = words.first {
            let last = words.count > 1 ? words.last?.first.map(String.init) ?? "" : ""
            return (String(first.first!) + last).uppercased()
        }
        let local = address.split(separator: "@").first.map(String.init) ?? address
        return local.first { $0.isLetter || $0.isNumber }.map { String($0).uppercased() } ?? "?"
    }

    /// FNV-1a over the address: the same colour on every run and platform (`hashValue` is seeded).
    static func color(for address: String) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in address.lowercased().utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return palette[Int(hash % UInt32(palette.count))]
    }
}

/// An attachment as the detail screen lists it (FR-ED-03), with the warnings to show before download.
public struct AttachmentView: Sendable, Hashable, Codable, Identifiable {
    public var id: AttachmentID
    public var filename: String
    public var mimeType: String
    public var size: Int64
    public var isDownloaded: Bool
    public var isInline: Bool
    public var warnings: [AttachmentWarning]

    public init(id: AttachmentID, filename: String, mimeType: String, size: Int64, isDownloaded: Bool, isInline: Bool, warnings: [AttachmentWarning])
    {
        self.id = id
        self.filename = filename
        self.mimeType = mimeType
        self.size = size
        self.isDownloaded = isDownloaded
        self.isInline = isInline
        self.warnings = warnings
    }
}
