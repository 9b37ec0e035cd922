import Foundation

/// What a thread says to a reader who has not read it: FR-ED-02's summary at the top of the thread.
public struct ThreadDigest: Sendable, Hashable, Codable {
    /// Plain text: shown escaped, never interpreted as markup (a model's answer is untrusted text).
    public var text: String
    /// Which provider wrote it (`builtin`, `endpoint`), so a change of provider recomputes it.
    public var provider: String
    public var date: Date

    public init(text: String, provider: String, date: Date) {
        self.text = text
        self.provider = provider
        self.date = date
    }
}

/// FR-COMP-03: why the last message calls for an answer; each smart reply answers one of them.
public enum ReplyIntent: String, Sendable, Hashable, Codable, CaseIterable {
    case question
    case scheduling
    case actionRequest
    case thanks
    case announcement
}

/// One smart reply: a short text the user can insert and then edit freely (AC-U-11).
public struct SmartReply: Sendable, Hashable, Codable {
    public var text: String
    public var intent: ReplyIntent

    public init(text: String, intent: ReplyIntent) {
        self.text = text
        self.intent = intent
    }
}

/// A thread as the Assist providers read it: plain text only, oldest message first, with what tells
/// bulk and automated mail apart. Built by `AssistThreadLoader` from the store.
public struct AssistThread: Sendable, Hashable, Codable {
    public var subject: String
    public var messages: [AssistMessage]
    /// The account's own addresses (its address and aliases), lowercased: "the user wrote last" and
    /// "the user is a direct recipient" are read against these.
    public var userAddresses: Set<String>

    public init(subject: String, messages: [AssistMessage], userAddresses: Set<String>) {
        self.subject = subject
        self.messages = messages
        self.userAddresses = Set(userAddresses.map { $0.lowercased() })
    }

    public func isFromUser(_ message: AssistMessage) -> Bool { userAddresses.contains(message.from.address.lowercased()) }
}

public struct AssistMessage: Sendable, Hashable, Codable {
    public var from: EmailAddress
    public var to: [EmailAddress]
    public var cc: [EmailAddress]
    public var date: Date
    public var subject: String
    /// The body as text: the plain part, or the readable text of the sanitized HTML part.
    public var text: String
    public var bulkMarkers: BulkMailMarkers

    public init(
        from: EmailAddress, to: [EmailAddress], cc: [EmailAddress], date: Date, subject: String, text: String,
        bulkMarkers: BulkMailMarkers = []
    ) {
        self.from = from
        self.to = to
        self.cc = cc
        self.date = date
        self.subject = subject
        self.text = text
        self.bulkMarkers = bulkMarkers
    }
}

/// Headers by which a message declares itself bulk or machine-written (RFC 2369 `List-*`, RFC 8058,
/// RFC 3834 `Auto-Submitted`, the de facto `Precedence`). Kept per message at sync, so FR-COMP-03's
/// smart replies can stay silent on mail that expects no answer, as Gmail does.
public struct BulkMailMarkers: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let listUnsubscribe = BulkMailMarkers(rawValue: 1)
    public static let listId = BulkMailMarkers(rawValue: 2)
    /// `Precedence: bulk`, `list` or `junk`.
    public static let bulkPrecedence = BulkMailMarkers(rawValue: 4)
    /// `Auto-Submitted` other than `no`.
    public static let autoSubmitted = BulkMailMarkers(rawValue: 8)

    /// The markers a header block declares; `field` answers a header's value by its name, or nil.
    public static func from(field: (String) -> String?) -> BulkMailMarkers {
        var markers: BulkMailMarkers = []
        if field("List-Unsubscribe") != nil { markers.insert(.listUnsubscribe) }
        if field("List-Id") != nil { markers.insert(.listId) }
        if let precedence = field("Precedence")?.trimmingCharacters(in: .whitespaces).lowercased(),
            ["bulk", "list", "junk"].contains(precedence)
        {
            markers.insert(.bulkPrecedence)
        }
        if let auto = field("Auto-Submitted")?.trimmingCharacters(in: .whitespaces).lowercased(), !auto.isEmpty, !auto.hasPrefix("no") {
            markers.insert(.autoSubmitted)
        }
        return markers
    }
}

/// A source of summaries and smart replies (PLATFORM.md "On-device AI"). Either may answer nil:
/// nothing worth showing, which the front ends treat like a failure: the section is hidden.
public protocol AssistProvider: Sendable {
    /// A short stable name stored with cached summaries (`builtin`, `endpoint`).
    var name: String { get }
    func summarize(_ thread: AssistThread) async throws -> String?
    /// At most three, in the thread's language; none for mail that expects no reply.
    func suggestReplies(_ thread: AssistThread) async throws -> [SmartReply]
    /// What a cached summary was written by: another model or server recomputes it.
    var identity: String { get }
}

extension AssistProvider {
    public var identity: String { name }
}

/// Why a provider gave no answer; logged, never shown (FR-ED-02: the section is hidden instead).
public enum AssistFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Assist is off in the settings.
    case disabled
    /// The configured endpoint is not on this machine and the user did not allow that.
    case endpointNotLocal(String)
    /// The endpoint is not a usable http(s) URL.
    case endpointInvalid(String)
    case unreachable(String)
    /// Past the time budget.
    case timedOut
    /// An answer that is not what the protocol promises (not JSON, too large, no text).
    case malformedAnswer(String)

    public var description: String {
        switch self {
        case .disabled: "assist is off"
        case .endpointNotLocal(let host): "the assist endpoint \(host) is not on this machine"
        case .endpointInvalid(let text): "the assist endpoint is not an http(s) URL: \(text)"
        case .unreachable(let text): "the assist endpoint cannot be reached: \(text)"
        case .timedOut: "the assist provider did not answer in time"
        case .malformedAnswer(let text): "the assist provider's answer is unusable: \(text)"
        }
    }
}
