import IMAP
import MailTransport
import TernCore

/// FR-SYNC-09: each account's one pool of IMAP connections (at most five) for the whole process.
/// Every user of the account's server borrows from it: the one-shot and IDLE-triggered syncs, the
/// IDLE itself, older-mail paging, bodies fetched on open, attachment downloads, pending changes,
/// Sent and Drafts APPENDs. So a `tern serve` or `tern sync --watch` process never opens a
/// connection outside it, and a connection logged in for one job serves the next.
///
/// `reconnect` is the pool's wait between failed connection attempts: FR-SYNC-09's 5, 15 and 45 s
/// in a long-running process; none in a one-shot command, which reports the failure at once (the
/// person runs it again, or `--watch` retries).
///
/// `slotBudget`: the account's five shared with the other processes on the same store (the
/// runtime's lock files), so `tern serve` and the commands run beside it stay within five together.
public actor AccountConnectionPools {
    struct Key: Hashable {
        let accountId: Account.ID
        let server: MailServer
        let username: String
    }

    public nonisolated let reconnect: BackoffSchedule
    public nonisolated let maxConnectionsPerAccount: Int
    /// Opens a pool's connections to `server`, logging in with `credentials`; `nil`: the network.
    public typealias Connector = @Sendable (_ server: MailServer, _ credentials: IMAPCredentialSource) -> IMAPConnectionPool.Connect
    let connector: Connector?
    /// The budget of an account's connections shared across processes; `nil`: per process only.
    public typealias SlotBudgetSource = @Sendable (_ accountId: Account.ID, _ slots: Int) -> any ConnectionSlotBudget
    let slotBudget: SlotBudgetSource?
    private var pools: [Account.ID: (key: Key, pool: IMAPConnectionPool)] = [:]
    private var isShutDown = false

    /// `connector`: for tests of what is built on the pools, connections that fail as they say
    /// without a server (issue 33); the network when `nil`.
    public init(
        reconnect: BackoffSchedule, maxConnectionsPerAccount: Int = 5, connector: Connector? = nil,
        slotBudget: SlotBudgetSource? = nil
    ) {
        self.reconnect = reconnect
        self.maxConnectionsPerAccount = maxConnectionsPerAccount
        self.connector = connector
        self.slotBudget = slotBudget
    }

    /// The account's pool, made on first use. An account whose server or login changed gets a new
    /// one; the old one logs out once its jobs end.
    public func pool(
        for accountId: Account.ID, server: MailServer, username: String,
        credentials: IMAPCredentialSource
    ) -> IMAPConnectionPool {
        let key = Key(accountId: accountId, server: server, username: username)
        if let existing = pools[accountId], existing.key == key, !isShutDown { return existing.pool }
        if let replaced = pools[accountId]?.pool { Task { await replaced.shutdown() } }
        let slots = slotBudget?(accountId, maxConnectionsPerAccount)
        let pool =
            if let connector {
                IMAPConnectionPool(
                    server: server, maxConnections: maxConnectionsPerAccount, backoff: reconnect, slots: slots,
                    connect: connector(server, credentials.reportingSyncStates()))
            } else {
                IMAPConnectionPool(
                    server: server, credentials: credentials.reportingSyncStates(),
                    maxConnections: maxConnectionsPerAccount, backoff: reconnect, slots: slots)
            }
        pools[accountId] = (key, pool)
        return pool
    }

    /// Logs every connection out (at the end of a command, or when `tern serve` stops).
    public func shutdown() async {
        isShutDown = true
        let all = pools.values.map(\.pool)
        pools.removeAll()
        for pool in all { await pool.shutdown() }
    }
}

extension SyncStateReporter {
    /// The states of the sync or watch whose task asks for a connection. A pooled connection is
    /// opened in a task of its own that inherits this from the task that needed it, so the login
    /// it makes is reported to that sync (FR-SYNC-04 Authenticating, TokenRefresh) and to no one
    /// else: a connection opened for a pending change or an attachment reports nothing.
    @TaskLocal static var ofTask: SyncStateReporter?
}

extension IMAPCredentialSource {
    /// FR-SYNC-04 Authenticating when a connection asks for the credential to log in with;
    /// TokenRefresh: a rejected credential's refresh is a state of its own; the login is tried
    /// again with the new token (Authenticating), and a refresh that fails is the error. Reported
    /// to the sync of the task that opened the connection (`SyncStateReporter.ofTask`).
    func reportingSyncStates() -> IMAPCredentialSource {
        let current = current
        let authenticating: @Sendable () async throws -> MailCredential = {
            SyncStateReporter.ofTask?.handle(.credentialRequested)
            return try await Self.temporaryAsRetryable(current)
        }
        guard let refresh else { return IMAPCredentialSource(current: authenticating) }
        return IMAPCredentialSource(
            current: authenticating,
            refresh: {
                let states = SyncStateReporter.ofTask
                states?.handle(.tokenExpired)
                let fresh = try await Self.temporaryAsRetryable(refresh)
                states?.handle(.tokenRefreshed)
                return fresh
            })
    }

    /// A credential that cannot be had for now (a failed password command, a token endpoint out of
    /// reach or failing) is retried with the connection; a sign-in the provider refused needs the
    /// person and ends the watch (FR-SYNC-04: deactivated, Error).
    static func temporaryAsRetryable(_ credential: @Sendable () async throws -> MailCredential) async throws -> MailCredential {
        do {
            return try await credential()
        } catch let error as TernError {
            switch error {
            case .secretUnavailable, .serverFailure, .connectionLost: throw IMAPError.credentialUnavailable(CredentialUnavailable(error))
            default: throw error
            }
        }
    }
}
