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
        let descriptor = try LockFile.open(path)
        defer { close(descriptor) }
        while try !LockFile.tryLock(descriptor, path: path) {
            try await Task.sleep(for: .milliseconds(20))
        }
        defer { flock(descriptor, LOCK_UN) }
        return try await body()
    }
}
