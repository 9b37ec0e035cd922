import Foundation

/// FR-SYNC-06 step 5: what the thread list shows of a thread, computed from its messages.
public struct ThreadMetadata: Sendable, Hashable {
    /// The subject of the root (earliest) message.
    public var subject: String
    public var normalizedSubject: String
    public var earliestDate: Date
    /// The most recent `dateSent` or `dateReceived` across the messages.
    public var latestDate: Date
    public var messageCount: Int
    public var unreadCount: Int
    /// From addresses, each once, in the order they first wrote.
    public var participants: [EmailAddress]
    /// The latest message's snippet, or the subject when it has no body text.
    public var snippet: String
    public var hasAttachments: Bool
    public var isStarred: Bool

    /// nil for an empty thread.
    public init?(messages: [Email]) {
        guard !messages.isEmpty else { return nil }
        func date(_ email: Email) -> Date { email.dateSent ?? email.dateReceived }
        let ordered = messages.sorted { (date($0), $0.id ?? 0) < (date($1), $1.id ?? 0) }
        let root = ordered[0]
        let latest = ordered[ordered.count - 1]
        subject = root.subject
        normalizedSubject = SubjectNormalizer.normalize(root.subject)
        earliestDate = date(root)
        latestDate = messages.map { max($0.dateSent ?? $0.dateReceived, $0.dateReceived) }.max() ?? date(latest)
        messageCount = messages.count
        unreadCount = messages.count { !$0.isRead }
        var seen: Set<String> = []
        participants = ordered.compactMap { email in
            let address = email.fromAddress.lowercased()
            guard !address.isEmpty, seen.insert(address).inserted else { return nil }
            return EmailAddress(name: email.fromName, address: email.fromAddress)
        }
        let text = latest.snippet?.trimmingWhitespace() ?? ""
        snippet = text.isEmpty ? latest.subject : String(text.prefix(100))
        hasAttachments = messages.contains { $0.hasAttachments }
        isStarred = messages.contains { $0.isStarred }
    }
}
