import Foundation
import IMAP
import Synchronization
import TernCore

/// FR-SYNC-09 across processes: an account's five IMAP connections as five lock files,
/// `$TERN_HOME/locks/imap-<account-id>-slot-<n>.lock` (0600), each held with a non-blocking `flock`
/// by the process whose connection uses it, for the whole life of that connection. The kernel drops
/// the locks of a process that dies, SIGKILL included, so no slot is ever lost.
///
/// A process takes a slot only while it holds `imap-<account-id>-queue.lock`: the one waiting
/// holds it until a slot frees, so a slot given up goes to the process that waited, not back to
/// the one that gave it up. The same lock tells the holders that someone waits
/// (`isWantedElsewhere`). Every wait is a non-blocking attempt repeated with a short backoff, so no
/// thread of the cooperative pool blocks. docs/decisions.md, "Five connections per account across
/// processes".
final class FileConnectionSlotBudget: ConnectionSlotBudget {
    let directory: URL
    let accountId: AccountID
    let slots: Int
    /// The waits between attempts: from `firstRetry`, doubling up to `longestRetry`.
    let firstRetry: Duration
    let longestRetry: Duration
    /// How many of this budget's `takeSlot` calls are under way: while one is, the queue lock's
    /// holder may be this process, so it does not count as someone waiting elsewhere.
    private let takingHere = Mutex(0)

    init(
        directory: URL, accountId: AccountID, slots: Int = 5, firstRetry: Duration = .milliseconds(5),
        longestRetry: Duration = .milliseconds(100)
    ) {
        self.directory = directory
        self.accountId = accountId
        self.slots = max(1, slots)
        self.firstRetry = firstRetry
        self.longestRetry = longestRetry
    }

    func slotPath(_ index: Int) -> String {
        directory.appendingPathComponent("imap-\(accountId)-slot-\(index).lock").path
    }

    var queuePath: String { directory.appendingPathComponent("imap-\(accountId)-queue.lock").path }

    func takeSlot() async throws -> any ConnectionSlot {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        takingHere.withLock { $0 += 1 }
        defer { takingHere.withLock { $0 -= 1 } }
        let queue = try LockFile.open(queuePath)
        // Closing the descriptor drops the queue lock if this call holds it.
        defer { close(queue) }
        var holdsQueue = false
        var retry = firstRetry
        while true {
            try Task.checkCancellation()
            if !holdsQueue { holdsQueue = try LockFile.tryLock(queue, path: queuePath) }
            if holdsQueue, let slot = try takeFreeSlot() { return slot }
            try await Task.sleep(for: retry)
            retry = min(retry * 2, longestRetry)
        }
    }

    func isWantedElsewhere() -> Bool {
        guard takingHere.withLock({ $0 }) == 0 else { return false }
        guard let queue = try? LockFile.open(queuePath) else { return false }
        defer { close(queue) }
        guard let free = try? LockFile.tryLock(queue, path: queuePath) else { return false }
        if free { flock(queue, LOCK_UN) }
        return !free
    }

    private func takeFreeSlot() throws -> FileConnectionSlot? {
        for index in 0..<slots {
            let path = slotPath(index)
            let descriptor = try LockFile.open(path)
            if try LockFile.tryLock(descriptor, path: path) { return FileConnectionSlot(descriptor: descriptor) }
            close(descriptor)
        }
        return nil
    }
}

/// The open, locked file of one slot. Released once, by the pool when its connection closes, or
/// when the last reference goes.
final class FileConnectionSlot: ConnectionSlot {
    private let descriptor: Mutex<Int32?>

    init(descriptor: Int32) {
        self.descriptor = Mutex(descriptor)
    }

    func release() {
        guard
            let descriptor = descriptor.withLock({ current -> Int32? in
                defer { current = nil }
                return current
            })
        else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    deinit { release() }
}
