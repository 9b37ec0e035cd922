import Foundation
import MailTransport
import ScriptedServers
import TernCore
import Testing

@testable import IMAP

/// Hostile and broken servers Dovecot cannot imitate: a FETCH response that does not parse, and
/// plaintext injected after STARTTLS. A scripted server on 127.0.0.1 (TLS with the test CA's
/// certificate) answers each command with canned bytes; the client under test is the real one.
@Suite(.enabled(if: TestServers.available, "needs the test CA (make test)"), .timeLimit(.minutes(1)))
struct ScriptedServerTests {
    @Test func anUnparseableMessageIsRefetchedAloneThenQuarantined() async throws {
        let broken = "* 2 FETCH (UID 12 ENVELOPE (\"Sat, 21 Nov 2026 10:00:00 +0000\" \"Broken\" ((NIL NIL \"a\" \"tern.test\")) BROKEN]]\r\n"
        let good: @Sendable (Int, Int) -> String = { sequence, uid in
            "* \(sequence) FETCH (UID \(uid) FLAGS (\\Seen) ENVELOPE (NIL \"Message \(uid)\" NIL NIL NIL NIL NIL NIL NIL \"<m\(uid)@tern.test>\"))\r\n"
        }
        let server = try await ScriptedIMAPServer.start(tls: true) { tag, command in
            switch command.uppercased() {
            case let c where c.hasPrefix("AUTHENTICATE"): "\(tag) OK [CAPABILITY IMAP4rev1 LITERAL+ UIDPLUS] logged in\r\n"
            case let c where c.hasPrefix("SELECT"): "* 3 EXISTS\r\n* OK [UIDVALIDITY 7] ok\r\n\(tag) OK [READ-WRITE] selected\r\n"
            case let c where c.hasPrefix("UID FETCH 11:13"): good(1, 11) + broken + good(3, 13) + "\(tag) OK fetched\r\n"
            case let c where c.hasPrefix("UID FETCH 12 "): broken + "\(tag) OK fetched\r\n"
            case let c where c.hasPrefix("NOOP"): "\(tag) OK still here\r\n"
            case let c where c.hasPrefix("LOGOUT"): "* BYE bye\r\n\(tag) OK bye\r\n"
            default: "\(tag) BAD unexpected\r\n"
            }
        }
        defer { server.stop() }
        let (delivered, quarantined) = try await IMAPClient.withSession(to: server.imapServer) { session in
            try await session.login(username: "bob@tern.test", password: "x")
            try await session.select("INBOX")
            var delivered: [UInt32] = []
            let quarantined = try await session.uidFetch(UIDSet([11...13]), items: [.flags, .envelope]) { delivered.append($0.uid!) }
            try await session.noop() // the connection is still in step
            return (delivered, quarantined)
        }
        #expect(delivered == [11, 13])
        #expect(quarantined.map { $0.uid } == [12])
        #expect(quarantined.first?.sequence == 2)
        let bytes = String(decoding: quarantined.first?.bytes ?? [], as: UTF8.self)
        #expect(bytes.contains("Broken"))
        #expect(server.commands.contains { $0.hasPrefix("UID FETCH 12 ") }, "refetched alone")
    }

    /// Issue 38: with ESEARCH a folder's UIDs come as ranges and are listed as SEARCH lists them; a range
    /// naming more UIDs than the mailbox can hold is refused before it is expanded (issue 21).
    @Test(arguments: [true, false])
    func searchAsksForRangesWhenTheServerHasESEARCH(extended: Bool) async throws {
        let capabilities = extended ? "IMAP4rev1 UIDPLUS ESEARCH" : "IMAP4rev1 UIDPLUS"
        let server = try await ScriptedIMAPServer.start(tls: true) { tag, command in
            switch command.uppercased() {
            case let c where c.hasPrefix("AUTHENTICATE"): "\(tag) OK [CAPABILITY \(capabilities)] logged in\r\n"
            case let c where c.hasPrefix("SELECT") && c.contains("INBOX"):
                "* 6 EXISTS\r\n* OK [UIDVALIDITY 7] ok\r\n\(tag) OK [READ-WRITE] selected\r\n"
            case let c where c.hasPrefix("SELECT") && c.contains("HOSTILE"):
                "* 6 EXISTS\r\n* OK [UIDVALIDITY 8] ok\r\n\(tag) OK [READ-WRITE] selected\r\n"
            case "UID SEARCH RETURN (ALL) ALL":
                "* ESEARCH (TAG \"\(tag)\") UID ALL 3,5:7,40:41\r\n\(tag) OK searched\r\n"
            case "UID SEARCH RETURN (ALL) UNSEEN": "* ESEARCH (TAG \"\(tag)\") UID\r\n\(tag) OK searched\r\n"
            case "UID SEARCH ALL": "* SEARCH 3 5 6 7 40 41\r\n\(tag) OK searched\r\n"
            case "UID SEARCH UNSEEN": "* SEARCH\r\n\(tag) OK searched\r\n"
            case "UID SEARCH RETURN (ALL) FLAGGED": "* ESEARCH (TAG \"\(tag)\") UID ALL 1:4294967294\r\n\(tag) OK searched\r\n"
            case let c where c.hasPrefix("LOGOUT"): "* BYE bye\r\n\(tag) OK bye\r\n"
            default: "\(tag) BAD unexpected\r\n"
            }
        }
        defer { server.stop() }
        let (all, unseen) = try await IMAPClient.withSession(to: server.imapServer) { session in
            try await session.login(username: "bob@tern.test", password: "x")
            try await session.select("INBOX")
            return (try await session.uidSearch(.all), try await session.uidSearch(.unseen))
        }
        #expect(all == [3, 5, 6, 7, 40, 41])
        #expect(unseen.isEmpty)
        #expect(server.commands.contains { $0.hasPrefix("UID SEARCH RETURN (ALL)") } == extended)
        guard extended else { return }
        await #expect {
            try await IMAPClient.withSession(to: server.imapServer) { session in
                try await session.login(username: "bob@tern.test", password: "x")
                try await session.select("HOSTILE")
                _ = try await session.uidSearch(.flagged)
            }
        } throws: { error in
            guard case IMAPError.protocolViolation(let violation) = error else { return false }
            return "\(violation)".contains("4294967294 UIDs")
        }
    }

    @Test func plaintextInjectedAfterSTARTTLSIsRefused() async throws {
        let server = try await ScriptedIMAPServer.start(tls: false, greeting: "* OK [CAPABILITY IMAP4rev1 STARTTLS LOGINDISABLED] hi\r\n") {
            tag, command in
            command.uppercased() == "STARTTLS" ? "\(tag) OK begin TLS\r\n* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN] injected\r\n" : "\(tag) BAD no\r\n"
        }
        defer { server.stop() }
        var imapServer = server.imapServer
        imapServer.security = .startTLS
        await #expect {
            try await IMAPClient.withSession(to: imapServer) { _ in }
        } throws: { error in
            guard case IMAPError.tlsRefused(let text) = error else { return false }
            return text.contains("injection")
        }
    }

    /// Issue 21: answers forged in the greeting's packet, queued before STARTTLS was even sent,
    /// must not be read as the server's answers over TLS.
    @Test func answersQueuedBeforeSTARTTLSAreRefusedAndNothingIsSentOverTLS() async throws {
        let forged =
            "* OK [CAPABILITY IMAP4rev1 STARTTLS LOGINDISABLED] hi\r\n" + "t1 OK begin TLS\r\n"
            + "* CAPABILITY IMAP4rev1 AUTH=PLAIN SASL-IR INJECTED\r\n" + "t2 OK capabilities\r\n"
        let server = try await ScriptedIMAPServer.start(tls: false, greeting: forged, silentSTARTTLS: true) { tag, _ in "\(tag) BAD no\r\n" }
        defer { server.stop() }
        var imapServer = server.imapServer
        imapServer.security = .startTLS
        await #expect {
            try await IMAPClient.withSession(to: imapServer) { session in
                try await session.login(username: "bob@tern.test", password: "x")
            }
        } throws: { error in
            guard case IMAPError.tlsRefused(let text) = error else { return false }
            return text.contains("injecting")
        }
        #expect(server.commandsOverTLS.isEmpty)
    }

    /// Issue 21: counts and ranges naming four billion messages, in SELECT, MOVE, EXPUNGE and IDLE,
    /// cost what their bytes cost (the old map took 16 GB for the EXISTS).
    @Test func hugeCountsAndRangesKeepTheClientSmall() async throws {
        let idleTag = Locked("")
        let server = try await ScriptedIMAPServer.start(tls: true) { tag, command in
            switch command.uppercased() {
            case let c where c.hasPrefix("AUTHENTICATE"): return "\(tag) OK [CAPABILITY IMAP4rev1 IDLE UIDPLUS MOVE QRESYNC] in\r\n"
            case let c where c.hasPrefix("SELECT"):
                return "* 4294967295 EXISTS\r\n* OK [UIDVALIDITY 7] ok\r\n* VANISHED (EARLIER) 1:4294967294\r\n\(tag) OK [READ-WRITE] selected\r\n"
            case let c where c.hasPrefix("UID MOVE"):
                return "* OK [COPYUID 9 1:4294967294 1:4294967294] moved\r\n* VANISHED 1:4294967294\r\n\(tag) OK moved\r\n"
            case let c where c.hasPrefix("UID EXPUNGE"): return "* VANISHED 1:4294967294\r\n\(tag) OK expunged\r\n"
            case "IDLE":
                idleTag.withLock { $0 = tag }
                return "+ idling\r\n* 4294967295 EXISTS\r\n* 4294967295 FETCH (UID 4294967294 FLAGS ())\r\n"
            case "DONE": return "\(idleTag.withLock { $0 }) OK idle done\r\n"
            default: return "\(tag) OK\r\n"
            }
        }
        defer { server.stop() }
        var imapServer = server.imapServer
        imapServer.watchdogInterval = .milliseconds(50)
        let events = Locked<[MailboxEvent]>([])
        try await IMAPClient.withSession(to: imapServer) { session in
            try await session.login(username: "bob@tern.test", password: "x")
            let selected = try await session.select("INBOX")
            #expect(selected.exists == 4_294_967_295 && selected.vanished.ranges == [1...4_294_967_294])
            let mapping = try await session.uidMove(UIDSet([3...4]), to: "Archive")
            #expect(mapping?.destinations(of: [3, 4]) == [3: 3, 4: 4])
            #expect(try await session.uidExpunge(UIDSet([5...6])) == [5, 6])
            session.eventSink = { _, event in events.withLock { $0.append(event) } }
            _ = try await session.idle { events.withLock { $0.count >= 2 } }
            #expect(session.sequenceMap.entries.count == 1)
            #expect(session.uid(forSequence: 4_294_967_295) == 4_294_967_294)
        }
        #expect(events.withLock { $0 }.first == .exists(count: 4_294_967_295))
    }

    /// Issue 21: neither the XOAUTH2 response nor the server's challenge reaches the log.
    @Test func anXOAUTH2ExchangeLeavesNoSecretInTheLog() async throws {
        let token = "ya29.a0-secret-access-token"
        let initialResponse = XOAUTH2.initialResponse(username: "bob@tern.test", accessToken: token)
        // A challenge that echoes what it got, as a debugging proxy might.
        let challenge = Data("{\"status\":\"401\",\"echo\":\"\(token)\"}".utf8).base64EncodedString()
        let authenticateTag = Locked("")
        let server = try await ScriptedIMAPServer.start(tls: true, greeting: "* OK [CAPABILITY IMAP4rev1 AUTH=XOAUTH2 SASL-IR] ready\r\n") {
            tag, command in
            if command.uppercased().hasPrefix("AUTHENTICATE") {
                authenticateTag.withLock { $0 = tag }
                return "+ \(challenge)\r\n"
            }
            return command.isEmpty ? "\(authenticateTag.withLock { $0 }) NO [AUTHENTICATIONFAILED] invalid token\r\n" : "\(tag) BAD no\r\n"
        }
        defer { server.stop() }
        let log = CapturedLog()
        await #expect(throws: IMAPError.authenticationFailed("invalid token")) {
            try await IMAPClient.withSession(to: server.imapServer, logger: log.logger) { session in
                try await session.authenticateXOAUTH2(username: "bob@tern.test", accessToken: token)
            }
        }
        #expect(!log.text.isEmpty, "the exchange is logged")
        #expect(!log.text.contains(token) && !log.text.contains(initialResponse) && !log.text.contains(challenge))
    }

    @Test func aSilentServerIsAStuckConnection() async throws {
        let server = try await ScriptedIMAPServer.start(tls: true) { tag, command in
            command.uppercased().hasPrefix("AUTHENTICATE") ? "\(tag) OK [CAPABILITY IMAP4rev1] in\r\n" : ""
        }
        defer { server.stop() }
        var imapServer = server.imapServer
        imapServer.commandTimeout = .seconds(2)
        await #expect {
            try await IMAPClient.withSession(to: imapServer) { session in
                try await session.login(username: "bob@tern.test", password: "x")
                try await session.noop() // never answered
            }
        } throws: { error in
            guard case IMAPError.timeout(let text) = error else { return false }
            return text.contains("stuck")
        }
    }
}

/// An IMAP server that answers each command line with what `script` returns (`ScriptedLineServer`
/// with tags: a line without one, DONE or an AUTHENTICATE response, comes with the tag "").
final class ScriptedIMAPServer: Sendable {
    let lineServer: ScriptedLineServer
    private let received: Locked<[String]>

    var port: Int { lineServer.port }
    /// The commands received; those that came over TLS started by STARTTLS marked "TLS: ".
    var commands: [String] { received.withLock { $0 } }
    var commandsOverTLS: [String] { commands.filter { $0.hasPrefix("TLS: ") } }

    var imapServer: MailServer {
        MailServer(host: "127.0.0.1", port: port, security: .implicitTLS, caFile: TestServers.ca, connectTimeout: .seconds(5))
    }

    /// A pool of one connection to this server, logging in as bob, no reconnect waits; the caller
    /// shuts it down.
    func pool() -> IMAPConnectionPool {
        IMAPConnectionPool(
            server: imapServer, credentials: .fixed(.password(username: "bob@tern.test", password: "x")), maxConnections: 1,
            backoff: BackoffSchedule([]))
    }

    /// `silentSTARTTLS`: STARTTLS is not answered; the server starts TLS at once (what an on-path
    /// attacker who forged the answer in an earlier packet lets through).
    static func start(
        tls: Bool, greeting: String = "* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN SASL-IR LITERAL+] ready\r\n",
        silentSTARTTLS: Bool = false,
        script: @escaping @Sendable (_ tag: String, _ command: String) -> String
    ) async throws -> ScriptedIMAPServer {
        let log = Locked<[String]>([])
        let lineServer = try await ScriptedLineServer.start(tls: tls, greeting: greeting) { line, overTLS in
            let space = line.firstIndex(of: " ")
            let tag = space.map { String(line[..<$0]) } ?? ""
            let command = space.map { String(line[line.index(after: $0)...]) } ?? line
            log.withLock { $0.append(overTLS && !tls ? "TLS: " + command : command) }
            if silentSTARTTLS, !overTLS, command.uppercased() == "STARTTLS" { return .startTLS }
            return .write(script(tag, command))
        }
        return ScriptedIMAPServer(lineServer: lineServer, log: log)
    }

    private init(lineServer: ScriptedLineServer, log: Locked<[String]>) {
        self.lineServer = lineServer
        self.received = log
    }

    func stop() { lineServer.stop() }
}
