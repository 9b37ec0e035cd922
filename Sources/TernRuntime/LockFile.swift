import Foundation
import TernCore

/// The one way the runtime's `flock` files under `$TERN_HOME/locks` are opened and tried: named
/// locks (`FileLocks`), undo-window holds (`FileSendHolds`) and connection slots
/// (`FileConnectionSlotBudget`). Close-on-exec, so a child such as a password command never
/// inherits a lock and outlives its owner holding it.
enum LockFile {
    /// Opens (creating, 0600) the lock file at `path`.
    static func open(_ path: String) throws -> Int32 {
        let descriptor = Foundation.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw TernError.storageUnavailable("cannot open \(path): \(String(cString: strerror(errno)))") }
        return descriptor
    }

    /// `LOCK_EX | LOCK_NB`: true when taken, false when another open file holds it.
    static func tryLock(_ descriptor: Int32, path: String) throws -> Bool {
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
        guard errno == EWOULDBLOCK || errno == EINTR else {
            throw TernError.storageUnavailable("cannot lock \(path): \(String(cString: strerror(errno)))")
        }
        return false
    }
}
