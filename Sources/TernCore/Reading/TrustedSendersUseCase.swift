import Foundation

/// FR-ED-04 "Always load remote images": senders, by exact address, whose remote images load
/// without asking, when the account's provider did not contradict the From (issue 32:
/// `SenderAuthentication.letsTrustLoadImages`). Local only, never synced.
public protocol TrustedSenderStore: Sendable {
    func isTrusted(_ address: String) async throws -> Bool
    /// The addresses of `addresses` that are trusted (lowercased): one read for a page of messages.
    func trusted(among addresses: Set<String>) async throws -> Set<String>
    /// Adding an address that is already trusted keeps the first entry.
    func add(_ sender: TrustedSender) async throws
    func all() async throws -> [TrustedSender]
    /// Whether there was such an entry.
    func remove(address: String) async throws -> Bool
    func removeAll() async throws -> Int
}

/// Settings → Privacy → Trusted Senders (FR-ED-04): add, list, remove one, clear all.
public struct TrustedSendersUseCase: Sendable {
    let store: any TrustedSenderStore
    let changes: ChangeFeed?
    let clock: any WallClock

    public init(store: any TrustedSenderStore, changes: ChangeFeed? = nil, clock: any WallClock = SystemClock()) {
        self.store = store
        self.changes = changes
        self.clock = clock
    }

    /// The exact address, lowercased; not a domain (FR-ED-04 "exact match, not domain").
    public func add(_ address: String) async throws -> TrustedSender {
        let trimmed = address.trimmingCharacters(in: .whitespacesAndNewlines)
        guard Self.looksLikeAddress(trimmed) else { throw TernError.invalidInput("'\(trimmed)' is not an email address") }
        let sender = TrustedSender(senderEmail: trimmed, createdDate: clock.now())
        try await store.add(sender)
        changes?.publish(.trustedSendersChanged)
        return try await store.all().first { $0.senderEmail == sender.senderEmail } ?? sender
    }

    public func list() async throws -> [TrustedSender] { try await store.all() }

    public func remove(_ address: String) async throws {
        guard try await store.remove(address: address.lowercased()) else { throw TernError.notFound("trusted sender '\(address)'") }
        changes?.publish(.trustedSendersChanged)
    }

    /// How many were removed.
    public func clear() async throws -> Int {
        let removed = try await store.removeAll()
        changes?.publish(.trustedSendersChanged)
        return removed
    }

    static func looksLikeAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".")
            && !text.contains(where: { $0.isWhitespace || $0 == "<" || $0 == ">" || $0 == "," })
    }
}
