import Crypto
import Foundation
import Synchronization
import TernCore

/// `SendHoldOwnership` as `flock` on `$TERN_HOME/locks/undo-<hash of the Message-ID>.lock`, held by the process
/// that queued the message for its undo window. The kernel drops the lock when that process dies, SIGKILL
/// included, so every other `tern` process then sees the message orphaned (PLATFORM.md, FR-COMP-02).
struct FileSendHolds: SendHoldOwnership {
    let directory: URL

    func path(_ messageId: String) -> String {
        let digest = SHA256.hash(data: Data(messageId.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
        return directory.appendingPathComponent("undo-\(digest).lock").path
    }

    func claim(messageId: String) throws -> any SendHoldClaim {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = path(messageId)
        let descriptor = try LockFile.open(path)
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw TernError.storageUnavailable("another process holds \(path)")
        }
        return FileSendHoldClaim(descriptor: descriptor, path: path)
    }

    func isOrphaned(messageId: String) -> Bool {
        let descriptor = open(path(messageId), O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return true }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
        flock(descriptor, LOCK_UN)
        return true
    }
}

/// The open, locked file of one held message. Released once: the file goes, then the lock.
final class FileSendHoldClaim: SendHoldClaim {
    // A descriptor and a path set once; `release` runs under the mutex. Sendable because nothing else mutates.
    private let state: Mutex<Int32?>
    let path: String

    init(descriptor: Int32, path: String) {
        state = Mutex(descriptor)
        self.path = path
    }

    func release() {
        guard
            let descriptor = state.withLock({ current -> Int32? in
                defer { current = nil }
                return current
            })
        else { return }
        unlink(path)
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    deinit { release() }
}
