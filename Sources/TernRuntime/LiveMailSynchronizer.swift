import Foundation
import IMAP
import MailStore
import Sync
import TernCore

/// `MailSynchronizing` on the Sync engine, the IMAP client and the local store.
struct LiveMailSynchronizer: MailSynchronizing {
    let store: SQLiteSyncStore
    let locks: any NamedLocks

    func sync(account: Account, credentials: CredentialSupply, progress: @escaping @Sendable (SyncProgress) -> Void) async throws -> SyncReport {
        let synchronizer = AccountSynchronizer(store: store, server: IMAPServer(endpoint: account.imap, caFile: account.caFile),
                                               credentials: credentials.imapSource, locks: locks)
        do {
            return try await synchronizer.sync(account: account, progress: progress)
        } catch let error as IMAPError {
            throw TernError.serverFailure(error.description)
        }
    }

    func loadOlder(account: Account, folderPath: String, credentials: CredentialSupply) async throws -> OlderMailResult {
        let synchronizer = AccountSynchronizer(store: store, server: IMAPServer(endpoint: account.imap, caFile: account.caFile),
                                               credentials: credentials.imapSource, locks: locks)
        do {
            return try await synchronizer.loadOlder(account: account, folderPath: folderPath)
        } catch let error as IMAPError {
            throw TernError.serverFailure(error.description)
        }
    }

    func fetchBodies(_ requests: [FolderBodyRequest], account: Account, credentials: CredentialSupply) async throws -> Int {
        let synchronizer = AccountSynchronizer(store: store, server: IMAPServer(endpoint: account.imap, caFile: account.caFile),
                                               credentials: credentials.imapSource, locks: locks)
        do {
            return try await synchronizer.fetchBodies(requests, account: account)
        } catch let error as IMAPError where error.isRetryable {
            throw TernError.connectionLost(error.description)
        } catch let error as IMAPError {
            throw TernError.serverFailure(error.description)
        }
    }

    func watch(account: Account, credentials: CredentialSupply, progress: @escaping @Sendable (SyncProgress) -> Void) async throws {
        let synchronizer = AccountSynchronizer(store: store, server: IMAPServer(endpoint: account.imap, caFile: account.caFile),
                                               credentials: credentials.imapSource, locks: locks)
        do {
            try await synchronizer.watch(account: account, progress: progress)
        } catch let error as IMAPError {
            throw TernError.serverFailure(error.description)
        }
    }
}


/// `AttachmentFetching` on the Sync module's downloader.
struct LiveAttachmentFetcher: AttachmentFetching {
    func fetch(_ location: AttachmentLocation, account: Account, credentials: CredentialSupply) async throws -> [UInt8] {
        let downloader = AttachmentDownloader(server: IMAPServer(endpoint: account.imap, caFile: account.caFile), credentials: credentials.imapSource)
        do {
            return try await downloader.fetch(location)
        } catch let error as IMAPError where error.isRetryable {
            throw TernError.connectionLost(error.description)
        } catch let error as IMAPError {
            throw TernError.serverFailure(error.description)
        }
    }
}
