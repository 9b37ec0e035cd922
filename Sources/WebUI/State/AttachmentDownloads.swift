import Foundation
import Synchronization
import TernCore

/// FR-SYNC-08: the attachment downloads running, one per attachment, so Cancel can stop one.
final class AttachmentDownloads: Sendable {
    private let running = Mutex<[AttachmentID: Task<Void, Never>]>([:])

    /// Starts a download unless one of the same attachment runs; false when one does.
    func start(_ attachmentId: AttachmentID, _ work: @escaping @Sendable () async -> Void) -> Bool {
        running.withLock { running in
            guard running[attachmentId] == nil else { return false }
            running[attachmentId] = Task { [weak self] in
                await work()
                _ = self?.running.withLock { $0.removeValue(forKey: attachmentId) }
            }
            return true
        }
    }

    /// False when no download of it runs.
    func cancel(_ attachmentId: AttachmentID) -> Bool {
        guard let task = running.withLock({ $0[attachmentId] }) else { return false }
        task.cancel()
        return true
    }
}
