import Foundation
import TernCore

/// `NamedLocks` as `flock` on `$TERN_HOME/locks/<name>.lock`. A lock belongs to an open file
/// description, so two tasks of one process exclude each other as two processes do. Waits without
/// blocking a thread of the cooperative pool (non-blocking attempts, 20 ms apart); the kernel drops
/// the lock of a process that dies, so a SIGKILLed `tern` never leaves anything locked.
struct FileLocks: NamedLocks {
    let directory: URL

    func withLock<Result: Sendable>(_ name: String, _ body: () async throws -> Result) async throws -> Result {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = directory.appendingPathComponent("\(name).lock").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw TernError.storageUnavailable("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw TernError.storageUnavailable("cannot lock \(path): \(String(cString: strerror(errno)))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        defer { flock(descriptor, LOCK_UN) }
        return try await body()
    }
}
