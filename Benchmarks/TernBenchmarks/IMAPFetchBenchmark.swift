import Foundation
import IMAP
import MailTransport
import TernCore

/// `tern-bench imap`: UID FETCH of FLAGS ENVELOPE BODYSTRUCTURE for a whole mailbox, each message
/// parsed into Tern's model and dropped (streamed, never held), timed end to end: connect, TLS,
/// login, EXAMINE, fetch, logout.
public enum IMAPFetchBenchmark {
    public struct Run: Sendable, Codable {
        public var messages: Int
        public var seconds: Double
        public var bodyParts: Int
    }

    public static func run(host: String, port: Int, caFile: String?, username: String, password: String, mailbox: String) async throws -> Run {
        let server = MailServer(host: host, port: port, security: .implicitTLS, caFile: caFile)
        let clock = ContinuousClock()
        let started = clock.now
        let (messages, parts) = try await IMAPClient.withSession(to: server) { session in
            try await session.login(username: username, password: password)
            try await session.select(MailboxPath(mailbox), readOnly: true)
            var messages = 0
            var parts = 0
            try await session.uidFetch(UIDSet([1...UInt32.max]), items: [.flags, .envelope, .bodyStructure]) { message in
                messages += 1
                parts += message.bodyStructure?.children.count ?? 0
            }
            try await session.logout()
            return (messages, parts)
        }
        let elapsed = clock.now - started
        return Run(messages: messages, seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, bodyParts: parts)
    }

    /// The client's side alone: recorded server bytes (scripts/bench/imap_record.py) through the
    /// framer and parser in 64 KB reads, as they arrive from the network, into `FetchedMessage`s.
    public static func replay(_ bytes: [UInt8]) throws -> Run {
        let clock = ContinuousClock()
        let started = clock.now
        var parser = IMAPResponseStream()
        var messages = 0
        var parts = 0
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + 65536)
            try parser.append(bytes[offset..<end]) { message in
                messages += 1
                parts += message.bodyStructure?.children.count ?? 0
            }
            offset = end
        }
        let elapsed = clock.now - started
        return Run(messages: messages, seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, bodyParts: parts)
    }

    /// The resident set now (from /proc/self/statm), in bytes.
    public static func currentResidentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let pages = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The largest resident set this process has had, in bytes.
    public static func peakResidentBytes() -> Int {
        var usage = rusage()
        #if os(Linux)
            getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        return usage.ru_maxrss * 1024
    }
}
