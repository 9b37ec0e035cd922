import Foundation
import IMAP
import MailStore
import Sync
import TernCore

/// `MailSynchronizing` on the Sync engine, the IMAP client and the local store.
struct LiveMailSynchronizer: MailSynchronizing {
    let store: SQLiteSyncStore
    let locks: any NamedLocks
    let connections: AccountConnectionPools
    /// FR-SYNC-01 stage D gives way to the person's work (`userWork`), their pause and a metered link.
    let catchUp: any CatchUpPausing
    let userWork: UserWorkTracker

    func sync(account: Account, credentials: CredentialSupply, progress: @escaping @Sendable (SyncProgress) -> Void) async throws -> SyncReport {
        try await run(account, credentials) { try await $0.sync(account: account, progress: progress) }
    }

    func loadOlder(account: Account, folderPath: String, credentials: CredentialSupply) async throws -> OlderMailResult {
        try await userWork.during(account.id) {
            try await run(account, credentials) { try await $0.loadOlder(account: account, folderPath: folderPath) }
        }
    }

    func fetchBodies(_ requests: [FolderBodyRequest], account: Account, credentials: CredentialSupply) async throws -> Int {
        try await userWork.during(account.id) {
            try await run(account, credentials) { try await $0.fetchBodies(requests, account: account) }
        }
    }

    func watch(account: Account, credentials: CredentialSupply, progress: @escaping @Sendable (SyncProgress) -> Void) async throws {
        try await run(account, credentials) { try await $0.watch(account: account, progress: progress) }
    }

    /// The account's engine, with IMAP errors turned into `TernError`s (`TernError.translatingMail`).
    private func run<Result: Sendable>(
        _ account: Account, _ credentials: CredentialSupply,
        _ body: (AccountSynchronizer) async throws -> Result
    ) async throws -> Result {
        let synchronizer = AccountSynchronizer(
            store: store, connections: await connections.pool(for: account, credentials: credentials),
            locks: locks, catchUp: catchUp)
        return try await translatingMailFailures { try await body(synchronizer) }
    }
}

/// `AttachmentFetching` on the Sync module's downloader.
struct LiveAttachmentFetcher: AttachmentFetching {
    let connections: AccountConnectionPools
    let userWork: UserWorkTracker

    func fetch(
        _ location: AttachmentLocation, account: Account, credentials: CredentialSupply,
        progress: @escaping @Sendable (Int64) -> Void
    ) async throws -> [UInt8] {
        let downloader = AttachmentDownloader(connections: await connections.pool(for: account, credentials: credentials))
        return try await translatingMailFailures {
            try await userWork.during(account.id) { try await downloader.fetch(location, progress: progress) }
        }
    }
}
