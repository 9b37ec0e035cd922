import Foundation
import Synchronization
import TernCore

/// FR-COMP-04: the contact index, built once and again after a minute (the sync adds contacts as
/// mail arrives); a keystroke only searches it.
final class ContactIndexCache: Sendable {
    private let built = Mutex<(index: ContactIndex, at: Date)?>(nil)

    func index(_ autocomplete: ContactsAutocompleteUseCase) async throws -> ContactIndex {
        if let cached = built.withLock({ $0 }), cached.at.timeIntervalSinceNow > -60 { return cached.index }
        let index = try await autocomplete.index()
        built.withLock { $0 = (index, Date()) }
        return index
    }
}
