import Foundation
import TernCore

/// Files Tern writes for the user alone, created owner-only from the first byte (issue 32): opened
/// with `O_CREAT | O_EXCL | O_NOFOLLOW` and mode 0600, so there is no moment in which another user
/// may read them (a file written first and chmodded after has one), a name planted in advance, a
/// symbolic link included, is refused rather than followed, and no file's mode is changed afterwards
/// (a chmod follows a link, to a file that is the user's own).
public enum OwnerOnlyFiles {
    /// Creates `directory` (mode 0700) when it is missing. An existing one must be a directory of
    /// this user's, not a link to one; one others may enter is closed to them.
    public static func directory(_ directory: URL) throws {
        let path = directory.path
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw TernError.storageUnavailable("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        var status = stat()
        guard lstat(path, &status) == 0 else { throw TernError.storageUnavailable("cannot read \(path): \(String(cString: strerror(errno)))") }
        guard status.st_mode & S_IFMT == S_IFDIR, status.st_uid == geteuid() else {
            throw TernError.storageUnavailable("\(path) is not a directory of this user's")
        }
        if status.st_mode & 0o077 != 0, chmod(path, 0o700) != 0 {
            throw TernError.storageUnavailable("cannot make \(path) private: \(String(cString: strerror(errno)))")
        }
    }

    /// A new file at `file` holding `bytes`; it must not exist yet.
    public static func create(_ file: URL, bytes: some Sequence<UInt8>) throws {
        try withNewFile(file) { target in
            try Array(bytes).withUnsafeBytes { try writeAll($0, to: target, path: file.path) }
        }
    }

    /// A copy of the file at `source` as a new file `file`: its bytes as they are now, so changing
    /// the original afterwards changes nothing in the copy. A symbolic link is followed on purpose,
    /// as `cp` follows one: attaching a link means attaching the file it names, which is what the
    /// user pointed at. Only a regular file is copied; a directory, FIFO or device is refused.
    public static func copy(from source: String, to file: URL) throws {
        let origin = open(source, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard origin >= 0 else {
            if errno == ENOENT { throw TernError.notFound("file '\(source)'") }
            throw TernError.storageUnavailable("cannot read \(source): \(String(cString: strerror(errno)))")
        }
        defer { close(origin) }
        var status = stat()
        guard fstat(origin, &status) == 0 else { throw TernError.storageUnavailable("cannot read \(source): \(String(cString: strerror(errno)))") }
        guard status.st_mode & S_IFMT == S_IFREG else { throw TernError.invalidInput("'\(source)' is not a regular file") }
        try withNewFile(file) { target in
            var buffer = [UInt8](repeating: 0, count: 128 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(origin, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count >= 0 else { throw TernError.storageUnavailable("cannot read \(source): \(String(cString: strerror(errno)))") }
                if count == 0 { return }
                try buffer.withUnsafeBytes { try writeAll(UnsafeRawBufferPointer(rebasing: $0[..<count]), to: target, path: file.path) }
            }
        }
    }

    /// Runs `body` on `file` opened for writing as a new owner-only file, and removes the file when
    /// `body` fails. Something of that name, a link included, is `TernError.alreadyExists`.
    static func withNewFile(_ file: URL, _ body: (Int32) throws -> Void) throws {
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST { throw TernError.alreadyExists(file.path) }
            throw TernError.storageUnavailable("cannot create \(file.path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        do {
            try body(descriptor)
        } catch {
            unlink(file.path)
            throw error
        }
    }

    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw TernError.storageUnavailable("cannot write \(path): \(String(cString: strerror(errno)))") }
            offset += written
        }
    }
}
