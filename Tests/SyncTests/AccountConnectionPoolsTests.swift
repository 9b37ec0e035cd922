import Foundation
import IMAP
import MailTransport
import TernCore
import TernTesting
import Testing

@testable import Sync

/// FR-SYNC-09: one pool per account for the whole process (`AccountConnectionPools`), and the
/// policy the engine counts on from a pool: at most five connections, waiters served in turn, a
/// broken connection never handed out again, reconnects on the backoff schedule, a person's
/// operation told at once (issue 33). The live `IMAPConnectionPool`'s own policy is tested
/// against Dovecot in IMAPIntegrationTests/IMAPConnectionPoolTests.
@Suite struct AccountConnectionPoolsTests {
    static let server = MailServer(host: "127.0.0.1", port: 1, security: .implicitTLS)
    static let credentials = IMAPCredentialSource.fixed(.password(username: "bob", password: "x"))

    @Test func anAccountKeepsItsPoolUntilItsServerOrLoginChanges() async {
        let pools = AccountConnectionPools(reconnect: BackoffSchedule([.seconds(5)]))
        let first = await pools.pool(for: "a", server: Self.server, username: "bob", credentials: Self.credentials)
        let again = await pools.pool(for: "a", server: Self.server, username: "bob", credentials: Self.credentials)
        #expect(first === again)
        #expect(first.maxConnections == 5 && first.backoff == BackoffSchedule([.seconds(5)]))
        let other = await pools.pool(for: "b", server: Self.server, username: "bob", credentials: Self.credentials)
        #expect(other !== first)
        let relogged = await pools.pool(for: "a", server: Self.server, username: "carol", credentials: Self.credentials)
        #expect(relogged !== first)
        let moved = await pools.pool(
            for: "a", server: MailServer(host: "127.0.0.1", port: 2, security: .implicitTLS), username: "carol",
            credentials: Self.credentials)
        #expect(moved !== relogged)
        await pools.shutdown()
        let afterShutdown = await pools.pool(
            for: "a", server: MailServer(host: "127.0.0.1", port: 2, security: .implicitTLS),
            username: "carol", credentials: Self.credentials)
        #expect(afterShutdown !== moved, "a shut-down pool is never handed out")
        await pools.shutdown()
    }

    @Test func theLimitIsPassedToEveryPool() async {
        let pools = AccountConnectionPools(reconnect: BackoffSchedule([]), maxConnectionsPerAccount: 2)
        let pool = await pools.pool(for: "a", server: Self.server, username: "bob", credentials: Self.credentials)
        #expect(pool.maxConnections == 2)
        await pools.shutdown()
    }

    @Test func fiftyOperationsNeverOpenASixthConnection() async throws {
        let server = InMemoryIMAPServer()
        let pool = InMemoryConnectionPool(server: server)
        let running = Locked(0)
        let most = Locked(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await pool.withConnection { _ in
                        let now = running.withLock {
                            $0 += 1
                            return $0
                        }
                        most.withLock { $0 = max($0, now) }
                        // Long enough that the five overlap even on a loaded machine.
                        try await Task.sleep(for: .milliseconds(20))
                        running.withLock { $0 -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(most.withLock { $0 } == 5)
        #expect(await server.peakConnections == 5)
        #expect(await pool.peakOpen == 5)
        #expect(await pool.connectionsOpened == 5)
    }

    @Test func anUnreachableServerIsTriedOnTheScheduleThenFails() async throws {
        let server = InMemoryIMAPServer()
        let pool = InMemoryConnectionPool(server: server, backoff: BackoffSchedule([.milliseconds(1), .milliseconds(2), .milliseconds(3)]))
        await server.inject(.unreachable, times: 4)
        await #expect(throws: IMAPError.network("connection refused")) { try await pool.withConnection { _ in } }
        #expect(await pool.waits == [.milliseconds(1), .milliseconds(2), .milliseconds(3)])
        // The schedule is over: the next operation tries afresh, and gets through.
        try await pool.withConnection { _ in }
        #expect(await pool.connectionsOpened == 1)
    }

    @Test func aServerBackWithinTheScheduleIsReached() async throws {
        let server = InMemoryIMAPServer()
        let pool = InMemoryConnectionPool(server: server, backoff: BackoffSchedule([.milliseconds(1), .milliseconds(2), .milliseconds(3)]))
        await server.inject(.unreachable, times: 2)
        try await pool.withConnection { _ in }
        #expect(await pool.waits == [.milliseconds(1), .milliseconds(2)])
    }

    @Test func aFailingFastOperationIsToldAtOnce() async throws {
        let server = InMemoryIMAPServer()
        let pool = InMemoryConnectionPool(server: server, backoff: BackoffSchedule([.seconds(60)]))
        await server.inject(.unreachable)
        await #expect(throws: IMAPError.self) { try await pool.withConnection(failingFast: true) { _ in } }
        #expect(await pool.waits.isEmpty)
    }

    @Test func aRefusedLoginIsNotRetried() async throws {
        let server = InMemoryIMAPServer()
        let pool = InMemoryConnectionPool(server: server, backoff: BackoffSchedule([.milliseconds(1)]))
        await server.inject(.refuseLogin)
        await #expect(throws: IMAPError.authenticationFailed("invalid credentials")) { try await pool.withConnection { _ in } }
        #expect(await pool.waits.isEmpty)
    }

    @Test func aBrokenConnectionIsReplacedAndAHealthyOneReused() async throws {
        let server = InMemoryIMAPServer()
        let pool = InMemoryConnectionPool(server: server)
        try await pool.withConnection { session in _ = try await session.listMailboxes() }
        try await pool.withConnection { session in _ = try await session.listMailboxes() }
        #expect(await pool.connectionsOpened == 1)
        await server.inject(.timeout(.list))
        await #expect(throws: IMAPError.self) { try await pool.withConnection { session in _ = try await session.listMailboxes() } }
        try await pool.withConnection { session in _ = try await session.listMailboxes() }
        #expect(await pool.connectionsOpened == 2)
        #expect(await server.openConnections.count == 1)
    }

    /// FR-SYNC-04 Authenticating and TokenRefresh, reported to the sync whose task opened the
    /// connection; nothing reported for a connection no sync opened.
    @Test func aLoginReportsAuthenticatingAndARefreshTokenRefresh() async throws {
        let log = ProgressLog()
        let states = SyncStateReporter(account: "work", start: .connecting, progress: log.callback)
        let source = IMAPCredentialSource(
            current: { .password(username: "bob", password: "old") },
            refresh: { .password(username: "bob", password: "new") }
        ).reportingSyncStates()
        try await SyncStateReporter.$ofTask.withValue(states) {
            _ = try await source.current()
            _ = try await source.refresh?()
        }
        #expect(log.states == [.authenticating, .tokenRefresh, .authenticating])
        _ = try await source.current()
        #expect(log.states.count == 3)
    }

    /// A credential that cannot be had for now is retried with the connection; a refused one is not.
    @Test func aCredentialOutOfReachIsRetryable() async throws {
        let unavailable = IMAPCredentialSource(current: { throw TernError.secretUnavailable("the password command failed") })
        await #expect(throws: IMAPError.credentialUnavailable(CredentialUnavailable(TernError.secretUnavailable("the password command failed")))) {
            try await unavailable.reportingSyncStates().current()
        }
        let expired = IMAPCredentialSource(current: { throw TernError.authenticationExpired("sign in again") })
        await #expect(throws: TernError.authenticationExpired("sign in again")) { try await expired.reportingSyncStates().current() }
    }
}
