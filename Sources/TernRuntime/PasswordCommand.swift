import Foundation
import TernCore

/// One run of an account's password command (`/bin/sh -c`), in a process group of its own.
///
/// The command is whatever the person wrote: a pipeline, a password manager that starts helpers, a
/// background job. So that a timeout stops all of it, the shell leads a new process group and the
/// timeout kills the group, not only the shell (a child left holding standard output would
/// otherwise keep the reader waiting). Standard output and standard error are read together, so a
/// command that writes much to one while Tern waits on the other does not stall. Once the shell
/// has exited, what its leftover background jobs still write is not waited for.
struct PasswordCommand {
    let command: String
    let environment: [String: String]
    let timeout: Duration

    enum Ending: Equatable {
        case exit(Int32)
        case signal(Int32)
        case timedOut
    }

    struct Outcome {
        var stdout: Data
        var stderr: Data
        var ending: Ending
    }

    /// What is kept of each stream: the password is the first line, a reason the first line of
    /// standard error. The rest is read and dropped, so the command never blocks on a full pipe.
    static let keptBytes = 1 << 20
    /// How long output is still read after the shell exits (a pipeline's last writes).
    static let drainAfterExit: Duration = .milliseconds(100)

    struct SpawnFailure: Error, CustomStringConvertible {
        let description: String
    }

    func run() async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            // poll(2) and waitpid(2) block: on a thread of their own, not the cooperative pool.
            DispatchQueue.global().async {
                continuation.resume(with: Result { try runBlocking() })
            }
        }
    }

    func runBlocking() throws -> Outcome {
        let output = try Self.pipe()
        let errors = try Self.pipe()
        defer { for fd in [output.read, errors.read] { close(fd) } }
        let pid: pid_t
        do {
            defer {
                close(output.write)
                close(errors.write)
            }
            pid = try spawn(stdout: output.write, stderr: errors.write)
        }
        var streams = [OutputPipe(fd: output.read), OutputPipe(fd: errors.read)]
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var exitedAt: ContinuousClock.Instant?
        var status: Int32 = 0
        while true {
            if exitedAt == nil, waitpid(pid, &status, WNOHANG) == pid { exitedAt = clock.now }
            if let exitedAt, streams.allSatisfy(\.closed) || clock.now - exitedAt > Self.drainAfterExit { break }
            if exitedAt == nil, clock.now >= deadline {
                // The whole group: the shell and everything it started that did not leave the group.
                kill(-pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                return Outcome(stdout: streams[0].data, stderr: streams[1].data, ending: .timedOut)
            }
            var descriptors = streams.filter { !$0.closed }.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            if descriptors.isEmpty {
                usleep(20_000)
            } else {
                _ = poll(&descriptors, nfds_t(descriptors.count), 20)
            }
            for index in streams.indices where !streams[index].closed { streams[index].readAvailable() }
        }
        let ending: Ending = Self.exited(status) ? .exit(Self.exitStatus(status)) : .signal(Self.terminatingSignal(status))
        return Outcome(stdout: streams[0].data, stderr: streams[1].data, ending: ending)
    }

    /// A pipe's read end, read without blocking.
    struct OutputPipe {
        let fd: Int32
        var data = Data()
        var closed = false

        init(fd: Int32) {
            self.fd = fd
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }

        mutating func readAvailable() {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count > 0 {
                    let room = max(0, PasswordCommand.keptBytes - data.count)
                    data.append(contentsOf: buffer[..<min(count, room)])
                } else if count == 0 {
                    closed = true
                    return
                } else {
                    if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { closed = true }
                    return
                }
            }
        }
    }

    /// `/bin/sh -c command` as the leader of a new process group, standard input from /dev/null.
    func spawn(stdout: Int32, stderr: Int32) throws -> pid_t {
        #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t?
            var attributes: posix_spawnattr_t?
        #else
            var actions = posix_spawn_file_actions_t()
            var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        // A new group led by the shell (pgid = its pid), default signal handling and no blocked signals.
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaults = sigset_t()
        sigfillset(&defaults)
        sigdelset(&defaults, SIGKILL)
        sigdelset(&defaults, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let words: [String] = ["/bin/sh", "-c", command]
        let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) }
        let variables: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") }
        defer { for pointer in arguments + variables { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/bin/sh", &actions, &attributes, arguments + [nil], variables + [nil])
        guard result == 0 else { throw SpawnFailure(description: String(cString: strerror(result))) }
        return pid
    }

    /// A pipe whose ends are not inherited by other programs this process starts (the dup2 of the
    /// spawn gives the child its own copies without the flag).
    static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        #if canImport(Darwin)
            let created = Darwin.pipe(&ends)
        #else
            let created = Glibc.pipe(&ends)
        #endif
        guard created == 0 else { throw SpawnFailure(description: String(cString: strerror(errno))) }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    // The wait(2) status macros, which Swift does not import.
    static func exited(_ status: Int32) -> Bool { status & 0x7F == 0 }
    static func exitStatus(_ status: Int32) -> Int32 { (status >> 8) & 0xFF }
    static func terminatingSignal(_ status: Int32) -> Int32 { status & 0x7F }
}
