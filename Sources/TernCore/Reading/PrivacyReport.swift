import Foundation

/// Issue 37: what one received message tried, as kept in the store for `tern privacy`: the
/// sanitizer's counts for its HTML body with remote content blocked (a plain-text body tries
/// nothing). Written once per message and `version`, so the report never sanitizes a body twice.
public struct MessagePrivacyFacts: Sendable, Hashable, Codable {
    /// Raised when the sanitizer counts differently: facts of an older version are computed again.
    public static let version = 1

    public var emailId: EmailID
    public var imageTrackers: Int
    public var cssTrackers: Int
    public var fontTrackers: Int
    public var trackerHosts: [String]
    public var remoteHosts: [HostCount]
    public var linksCleaned: Int
    public var linksTracked: Int
    public var trackedLinkHosts: [String]

    public init(
        emailId: EmailID, imageTrackers: Int = 0, cssTrackers: Int = 0, fontTrackers: Int = 0, trackerHosts: [String] = [],
        remoteHosts: [HostCount] = [], linksCleaned: Int = 0, linksTracked: Int = 0, trackedLinkHosts: [String] = []
    ) {
        self.emailId = emailId
        self.imageTrackers = imageTrackers
        self.cssTrackers = cssTrackers
        self.fontTrackers = fontTrackers
        self.trackerHosts = trackerHosts
        self.remoteHosts = remoteHosts
        self.linksCleaned = linksCleaned
        self.linksTracked = linksTracked
        self.trackedLinkHosts = trackedLinkHosts
    }

    init(emailId: EmailID, sanitized: SanitizedBody) {
        let privacy = sanitized.privacy
        self.init(
            emailId: emailId, imageTrackers: privacy.imageTrackers, cssTrackers: privacy.cssTrackers, fontTrackers: privacy.fontTrackers,
            trackerHosts: sanitized.trackerHosts, remoteHosts: privacy.remoteHosts, linksCleaned: privacy.linksCleaned,
            linksTracked: privacy.linksTracked, trackedLinkHosts: privacy.trackedLinkHosts)
    }
}

/// A received message whose facts are not stored yet: its HTML body (nil: plain text only).
public struct PrivacyFactsInput: Sendable, Hashable {
    public var emailId: EmailID
    public var bodyHTML: String?

    public init(emailId: EmailID, bodyHTML: String?) {
        self.emailId = emailId
        self.bodyHTML = bodyHTML
    }
}

/// One received message as the report reads it.
public struct PrivacyReportRow: Sendable, Hashable {
    public var sender: String
    public var receiptRequested: Bool
    /// Nil while the body is not stored (nothing is known of it).
    public var facts: MessagePrivacyFacts?

    public init(sender: String, receiptRequested: Bool, facts: MessagePrivacyFacts?) {
        self.sender = sender
        self.receiptRequested = receiptRequested
        self.facts = facts
    }
}

public protocol PrivacyReportStore: Sendable {
    /// Received messages (not written here) with a stored body and no facts of `version`, at most `limit`.
    func messagesWithoutPrivacyFacts(version: Int, limit: Int) async throws -> [PrivacyFactsInput]
    func savePrivacyFacts(_ facts: [MessagePrivacyFacts], version: Int) async throws
    /// Every received message since `since` (by the date received; all when nil).
    func privacyRows(since: Date?) async throws -> [PrivacyReportRow]
}

/// `tern privacy`: per sender and per tracking host, what the mail received tried (issue 37).
public struct PrivacyReport: Sendable, Hashable, Codable {
    public var since: Date?
    public var messages: Int
    /// Messages whose body is not stored: what they tried is not known.
    public var messagesWithoutBody: Int
    public var senders: [Sender]
    public var trackingHosts: [TrackingHost]

    public struct Sender: Sendable, Hashable, Codable {
        public var sender: String
        public var messages = 0
        public var imageTrackers = 0
        public var cssTrackers = 0
        public var fontTrackers = 0
        /// Remote loads that are not trackers (what the mail would contact if allowed), by host.
        public var remoteLoads = 0
        public var remoteHosts: [HostCount] = []
        public var linksCleaned = 0
        public var linksTracked = 0
        public var receiptsRequested = 0

        public init(sender: String) { self.sender = sender }

        public var trackers: Int { imageTrackers + cssTrackers + fontTrackers }
        var triedSomething: Bool { trackers + remoteLoads + linksCleaned + linksTracked + receiptsRequested > 0 }
    }

    /// A host that tracked: as a tracker (pixel, CSS, font) or as a click tracker links go through.
    public struct TrackingHost: Sendable, Hashable, Codable {
        public var host: String
        /// Messages that used it either way.
        public var messages = 0
        public var asTracker = 0
        public var asTrackedLink = 0
        /// Distinct senders whose mail used it.
        public var senders = 0

        public init(host: String) { self.host = host }
    }

    /// Sums the rows: senders with anything tried, most trackers first; hosts by messages.
    public init(rows: [PrivacyReportRow], since: Date?) {
        self.since = since
        messages = rows.count
        messagesWithoutBody = rows.filter { $0.facts == nil }.count
        var senders: [String: Sender] = [:]
        var remoteHosts: [String: [String: Int]] = [:]
        var hosts: [String: TrackingHost] = [:]
        var hostSenders: [String: Set<String>] = [:]
        for row in rows {
            let key = row.sender.lowercased()
            var sender = senders[key] ?? Sender(sender: key)
            sender.messages += 1
            if row.receiptRequested { sender.receiptsRequested += 1 }
            if let facts = row.facts {
                sender.imageTrackers += facts.imageTrackers
                sender.cssTrackers += facts.cssTrackers
                sender.fontTrackers += facts.fontTrackers
                sender.linksCleaned += facts.linksCleaned
                sender.linksTracked += facts.linksTracked
                for remote in facts.remoteHosts {
                    sender.remoteLoads += remote.count
                    remoteHosts[key, default: [:]][remote.host, default: 0] += remote.count
                }
                let trackers = Set(facts.trackerHosts)
                let tracked = Set(facts.trackedLinkHosts)
                for host in trackers.union(tracked) {
                    var entry = hosts[host] ?? TrackingHost(host: host)
                    entry.messages += 1
                    if trackers.contains(host) { entry.asTracker += 1 }
                    if tracked.contains(host) { entry.asTrackedLink += 1 }
                    hosts[host] = entry
                    hostSenders[host, default: []].insert(key)
                }
            }
            senders[key] = sender
        }
        for (key, counts) in remoteHosts { senders[key]?.remoteHosts = HostCount.sorted(counts) }
        for (host, keys) in hostSenders { hosts[host]?.senders = keys.count }
        self.senders = senders.values.filter(\.triedSomething).sorted {
            ($1.trackers, $1.linksTracked, $1.remoteLoads, $0.sender) < ($0.trackers, $0.linksTracked, $0.remoteLoads, $1.sender)
        }
        trackingHosts = hosts.values.sorted { ($1.messages, $0.host) < ($0.messages, $1.host) }
    }
}

/// Issue 37's `tern privacy`: the report from the local store alone. Each message is sanitized
/// once for it (its facts stored, `MessagePrivacyFacts.version`), so a report after the first
/// costs a read of the store, not a sanitize of every body.
public struct PrivacyReportUseCase: Sendable {
    let store: any PrivacyReportStore
    let sanitizer: any BodySanitizing
    let clock: any WallClock

    public init(store: any PrivacyReportStore, sanitizer: any BodySanitizing, clock: any WallClock = SystemClock()) {
        self.store = store
        self.sanitizer = sanitizer
        self.clock = clock
    }

    /// Bodies sanitized per store write.
    static let batchSize = 200

    /// `since`: how far back (by the date received); all mail when nil.
    public func report(since: Duration?) async throws -> PrivacyReport {
        try await computeMissingFacts()
        let start = since.map { clock.now().addingTimeInterval(-Double($0.components.seconds)) }
        return PrivacyReport(rows: try await store.privacyRows(since: start), since: start)
    }

    /// The facts of every received message that has a body and none yet.
    public func computeMissingFacts() async throws {
        while true {
            let inputs = try await store.messagesWithoutPrivacyFacts(version: MessagePrivacyFacts.version, limit: Self.batchSize)
            guard !inputs.isEmpty else { return }
            let facts = inputs.map { input in
                guard let html = input.bodyHTML, !html.isEmpty else { return MessagePrivacyFacts(emailId: input.emailId) }
                return MessagePrivacyFacts(emailId: input.emailId, sanitized: sanitizer.sanitize(html: html, allowRemoteImages: false))
            }
            try await store.savePrivacyFacts(facts, version: MessagePrivacyFacts.version)
            if inputs.count < Self.batchSize { return }
        }
    }
}
