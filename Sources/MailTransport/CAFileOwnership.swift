import Foundation

/// The account's CA file decides which servers Tern trusts, and it is read again for every
/// connection (a replaced file takes effect at once). Another user who can change it, or replace it
/// through a directory they can write, can make Tern trust their server: a connection is refused
/// unless the file and every directory above it belong to this user or root and are writable by no
/// one else (a sticky directory such as /tmp may be: others cannot replace what is not theirs in
/// it). The same rule as OpenSSH's StrictModes for its own files.
enum CAFileOwnership {
    static func check(_ path: String) throws(TransportFailure) {
        guard let resolved = realpath(path, nil) else {
            throw .tlsRefused("cannot read the CA file '\(path)': \(String(cString: strerror(errno)))")
        }
        var current = String(cString: resolved)
        free(resolved)
        let user = geteuid()
        var isFile = true
        while true {
            var status = stat()
            guard stat(current, &status) == 0 else {
                throw .tlsRefused("cannot read the CA file '\(path)': \(String(cString: strerror(errno)))")
            }
            let mode = status.st_mode
            let place = isFile ? "the CA file '\(path)'" : "'\(current)', a directory above the CA file '\(path)',"
            guard status.st_uid == user || status.st_uid == 0 else {
                throw .tlsRefused("\(place) belongs to another user (uid \(status.st_uid)), who could make Tern trust any server")
            }
            let othersMayWrite = mode & 0o022 != 0 // S_IWGRP | S_IWOTH
            let sticky = mode & 0o1000 != 0 // S_ISVTX
            if othersMayWrite && (isFile || !sticky) {
                throw .tlsRefused(
                    "\(place) can be changed by other users (mode \(String(mode & 0o7777, radix: 8))), who could make Tern "
                        + "trust any server; make it writable by its owner only (chmod go-w)")
            }
            guard current != "/" else { return }
            current = (current as NSString).deletingLastPathComponent
            isFile = false
        }
    }
}
