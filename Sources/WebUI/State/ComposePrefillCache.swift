import Foundation
import Synchronization
import TernCore

/// FR-COMP-01's prefill of a composer (the reply's quote is the original rendered to text), made
/// once when the composer opens and reused by its checks, saves and Send for ten minutes: each of
/// those rebuilds the message from the prefill and the form. One with notes (the original's body not
/// there yet) is made again each time. At most 32 are kept.
final class ComposePrefillCache: Sendable {
    private let prefills = Mutex<[String: (draft: ComposeDraft, made: Date)]>([:])
    static let lifetime: TimeInterval = 600
    static let capacity = 32

    func prefill(mode: ComposeMode, original: EmailID?, account: AccountName?, make: () async throws -> ComposeDraft) async throws -> ComposeDraft {
        let key = "\(mode.rawValue)|\(original.map { String($0) } ?? "")|\(account ?? "")"
        if let cached = prefills.withLock({ $0[key] }), cached.made.timeIntervalSinceNow > -Self.lifetime { return cached.draft }
        let draft = try await make()
        guard draft.notes.isEmpty else { return draft }
        prefills.withLock { cache in
            if cache.count >= Self.capacity { cache = cache.filter { $0.value.made.timeIntervalSinceNow > -Self.lifetime } }
            if cache.count >= Self.capacity, let oldest = cache.min(by: { $0.value.made < $1.value.made })?.key { cache.removeValue(forKey: oldest) }
            cache[key] = (draft, Date())
        }
        return draft
    }
}
