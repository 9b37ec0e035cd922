import Foundation
import MailTransport
import ScriptedServers
import TernCore
import Testing

@testable import IMAP

/// FR-SYNC-09 and FR-SYNC-03 against the real Dovecot: pool limits, a killed server process, IDLE.
/// The user carol is this suite's own, so killing her imap process touches no other test.
@Suite(.enabled(if: TestServers.available, "needs the test mail servers (make test)"), .serialized, .timeLimit(.minutes(3)))
struct IMAPConnectionPoolTests {
    static func pool(
        user: String = "carol", backoff: BackoffSchedule = BackoffSchedule([.milliseconds(50), .milliseconds(100), .milliseconds(200)]),
        server: MailServer = TestServers.server()
    ) -> IMAPConnectionPool {
        IMAPConnectionPool(
            server: server, credentials: .fixed(.password(username: "\(user)@tern.test", password: TestServers.password)),
            backoff: backoff)
    }

    @Test func fiftyConcurrentOperationsNeverOpenASixthConnection() async throws {
        let pool = Self.pool()
        let inUse = Locked((now: 0, peak: 0))
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await pool.withConnection { session in
                        inUse.withLock {
                            $0.now += 1
                            $0.peak = max($0.peak, $0.now)
                        }
                        defer { inUse.withLock { $0.now -= 1 } }
                        let status = try await session.status(of: ["INBOX"])
                        try await session.noop()
                        return Int(status["INBOX"]?["MESSAGES"] ?? 0)
                    }
                }
            }
            var finished = 0
            for try await _ in group { finished += 1 }
            #expect(finished == 50)
        }
        let statistics = await pool.statistics
        #expect(statistics.peakOpen <= 5)
        #expect(statistics.connectionsOpened <= 5)
        #expect(inUse.withLock { $0.peak } <= 5)
        #expect(statistics.busy == 0 && statistics.waiting == 0)
        await pool.shutdown()
        #expect(await pool.statistics.open == 0)
    }

    @Test func waitersAreServedInArrivalOrder() async throws {
        let pool = IMAPConnectionPool(
            server: TestServers.server(),
            credentials: .fixed(.password(username: "carol@tern.test", password: TestServers.password)),
            maxConnections: 1)
        let order = Locked<[Int]>([])
        let blocker = try await pool.withConnection { _ in 0 } // one connection open and idle
        _ = blocker
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<6 {
                group.addTask {
                    try await pool.withConnection { session in
                        order.withLock { $0.append(index) }
                        try await session.noop()
                    }
                }
                try await Task.sleep(for: .milliseconds(20)) // arrive in order
            }
            try await group.waitForAll()
        }
        #expect(order.withLock { $0 } == Array(0..<6))
        #expect(await pool.statistics.connectionsOpened == 1)
        await pool.shutdown()
    }

    @Test func killingTheServerProcessMidFetchIsRetryableAndLeaksNothing() async throws {
        let mailbox = "Kill-\(UUID().uuidString.prefix(6))"
        try await IMAPClient.withSession(to: TestServers.server()) { session in
            try await session.login(username: "carol@tern.test", password: TestServers.password)
            try await session.create(MailboxPath(mailbox))
            // 20 MB that does not compress (COMPRESS=DEFLATE is on): more than the kernel and proxy
            // buffers hold, so the kill is seen mid-stream.
            for index in 0..<400 {
                let filler = (0..<4000).map { _ in String(UInt64.random(in: 0...UInt64.max) % 2_176_782_336, radix: 36) }.joined(separator: " ")
                try await session.append(
                    to: MailboxPath(mailbox),
                    message: IMAPSessionTests.message(
                        "Kill \(index)", messageId: "k\(index)-\(mailbox)@tern.test",
                        body: filler))
            }
        }
        let pool = Self.pool()
        let received = Locked(0)
        let outcome: (any Error)? = await {
            do {
                try await pool.withConnection { session in
                    try await session.select(MailboxPath(mailbox))
                    try await session.uidFetch(UIDSet([1...UInt32.max]), items: [.envelope, .bodyStructure, .section("1")]) { _ in
                        let count = received.withLock {
                            $0 += 1
                            return $0
                        }
                        if count == 5 { Self.killIMAPProcess(of: "carol@tern.test") }
                        Thread.sleep(forTimeInterval: 0.01)
                    }
                }
                return nil
            } catch {
                return error
            }
        }()
        let error = try #require(outcome as? IMAPError, "the fetch should fail, got \(String(describing: outcome))")
        #expect(error.isRetryable, "\(error)")
        #expect(received.withLock { $0 } < 400)
        // The broken connection closes (its task ends) right after the error.
        for _ in 0..<20 where await pool.statistics.open > 0 { try await Task.sleep(for: .milliseconds(50)) }
        let afterKill = await pool.statistics
        #expect(afterKill.busy == 0 && afterKill.open == 0, "\(afterKill)")
        // The next operation reconnects.
        let count = try await pool.withConnection { session in try await session.select(MailboxPath(mailbox)).exists }
        #expect(count == 400)
        // Maybe another pooled connection than the one that selected (under load the pool can have
        // opened a second): it selects, so its UNSELECT is never "no mailbox selected".
        try await pool.withConnection { session in
            _ = try await session.select(MailboxPath(mailbox))
            try await session.unselect()
            try await session.delete(MailboxPath(mailbox))
        }
        await pool.shutdown()
        #expect(await pool.statistics.open == 0)
    }

    @Test func unreachableServerFailsAfterTheBackoffSchedule() async throws {
        let pool = Self.pool(server: MailServer(host: "127.0.0.1", port: 1, security: .implicitTLS, connectTimeout: .seconds(2)))
        let clock = ContinuousClock()
        let started = clock.now
        await #expect(throws: IMAPError.self) {
            try await pool.withConnection { _ in }
        }
        #expect(clock.now - started >= .milliseconds(350)) // 50 + 100 + 200 ms between four attempts
        #expect(await pool.statistics.open == 0)
    }

    /// Issue 20: what a person waits on is told at the first failed attempt, while background work
    /// goes on waiting through the schedule; stopping the pool stops the attempts at once.
    @Test func aFailingFastOperationIsToldAtOnceWhileBackgroundWorkWaits() async throws {
        let pool = Self.pool(
            backoff: BackoffSchedule([.seconds(600)]),
            server: MailServer(host: "127.0.0.1", port: 1, security: .implicitTLS, connectTimeout: .seconds(2)))
        let background = Task { try await pool.withConnection { _ in } }
        while await pool.statistics.waiting == 0 { try await Task.sleep(for: .milliseconds(10)) }
        await #expect(throws: IMAPError.self) {
            try await pool.withConnection(failingFast: true) { _ in }
        }
        #expect(await pool.statistics.waiting == 1, "the background operation still waits for the next attempt")
        // Asked again while the pool waits to try: told at once, nothing new opened.
        let opened = await pool.statistics.connectionsOpened
        await #expect(throws: IMAPError.self) {
            try await pool.withConnection(failingFast: true) { _ in }
        }
        #expect(await pool.statistics.connectionsOpened == opened)
        await pool.shutdown()
        await #expect(throws: CancellationError.self) { try await background.value }
        #expect(await pool.statistics.open == 0)
    }

    /// Issue 20: a connection nobody uses logs out after `maxIdleTime` instead of staying logged in
    /// until the server drops it.
    @Test func anIdleConnectionLogsOutAfterItsIdleTime() async throws {
        let pool = IMAPConnectionPool(
            server: TestServers.server(),
            credentials: .fixed(.password(username: "carol@tern.test", password: TestServers.password)),
            maxIdleTime: .milliseconds(300))
        try await pool.withConnection { session in _ = try await session.noop() }
        #expect(await pool.statistics.open == 1)
        while await pool.statistics.open > 0 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(await pool.statistics.connectionsOpened == 1)
        await pool.shutdown()
    }

    @Test func idleSeesNewMailAndSurvivesTheWatchdog() async throws {
        let mailbox = "Idle-\(UUID().uuidString.prefix(6))"
        try await IMAPClient.withSession(to: TestServers.server()) { session in
            try await session.login(username: "carol@tern.test", password: TestServers.password)
            try await session.create(MailboxPath(mailbox))
        }
        let pool = Self.pool()
        // Re-issue every 2 s and probe after 1 s of silence: both happen during this test.
        let consumer = Task { () -> ContinuousClock.Instant? in
            // Ending the iteration ends the IDLE (DONE) and gives the connection back.
            for try await event in pool.idleEvents(mailbox: MailboxPath(mailbox), reissueAfter: .seconds(2), probeAfterSilence: .seconds(1)) {
                if case .exists(let count) = event, count >= 1 { return ContinuousClock.now }
            }
            return nil
        }
        try await Task.sleep(for: .milliseconds(3500))
        let clock = ContinuousClock()
        let sent = clock.now
        try await IMAPClient.withSession(to: TestServers.server()) { session in
            try await session.login(username: "carol@tern.test", password: TestServers.password)
            try await session.append(to: MailboxPath(mailbox), message: IMAPSessionTests.message("Idle", messageId: "idle-\(mailbox)@tern.test"))
        }
        let seen = try await consumer.value
        // The IDLE notices the end at its next watchdog tick (1 s).
        for _ in 0..<30 where await pool.statistics.busy > 0 { try await Task.sleep(for: .milliseconds(100)) }
        let delay = try #require(seen, "no EXISTS") - sent
        // Seen while the IDLE is re-issued and probed: how soon is a benchmark's question (it took
        // 1.6 s with five builds on the machine), so the bound only tells seen from lost.
        #expect(delay < .seconds(5), "IDLE saw the new message after \(delay)")
        #expect(await pool.statistics.busy == 0, "the IDLE connection is back in the pool")
        try await pool.withConnection { session in try await session.delete(MailboxPath(mailbox)) }
        await pool.shutdown()
    }

    /// SIGKILL to the Dovecot `imap` process serving `user` (its title names the user: verbose_proctitle).
    static func killIMAPProcess(of user: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
        process.arguments = ["-KILL", "-f", "imap \\[\(user)"]
        try? process.run()
        process.waitUntilExit()
    }
}
