import Foundation
import IMAP
import MailStore
import ScriptedServers
import Sync
import TernCore
import Testing

@testable import TernRuntime

/// Issue 33: the adapters the sync and attachment use cases reach the engine through. Each turns
/// the engine's IMAP failures into the `TernError` the use cases sort by (a refused sign-in is never
/// retried as a dropped connection), and marks the person's own work (older mail, bodies, an
/// attachment) while it runs, so FR-SYNC-01 stage D gives way to it; a sync is not such work.
/// No server is needed: the pools' connections report what they see and then fail.
@Suite(.timeLimit(.minutes(1)))
struct LiveMailSynchronizerTests {
    /// What a connection attempt saw: whether the account was busy with the person's work.
    final class ConnectionLog: Sendable {
        let busyAtConnect = Locked<[Bool]>([])
    }

    struct Fixture {
        let account: Account
        let store: SQLiteSyncStore
        let userWork = UserWorkTracker()
        let log = ConnectionLog()

        init() async throws {
            account = liveTestAccount()
            let database = try TernDatabase.temporary()
            try await SQLiteAccountRepository(database: database).insert(account)
            store = SQLiteSyncStore(database: database)
            _ = try await store.saveDiscoveredFolders(
                [DiscoveredFolder(path: "INBOX", delimiter: "/", folderType: .inbox)], accountId: account.id, keepOrphans: false)
        }

        /// Pools whose every connection attempt notes whether the account was busy, then fails.
        func pools(failingWith failure: IMAPError) -> AccountConnectionPools {
            let (userWork, log, accountId) = (userWork, log, account.id)
            return AccountConnectionPools(reconnect: BackoffSchedule([])) { _, _ in
                { _, _ in
                    log.busyAtConnect.withLock { $0.append(userWork.isBusy(accountId)) }
                    throw failure
                }
            }
        }

        func synchronizer(failingWith failure: IMAPError) -> LiveMailSynchronizer {
            LiveMailSynchronizer(
                store: store, locks: NoLocks(), connections: pools(failingWith: failure), catchUp: NeverPaused(),
                userWork: userWork)
        }

        func bodyRequest() async throws -> FolderBodyRequest {
            let inbox = try #require(try await store.folders(accountId: account.id).first)
            return FolderBodyRequest(
                accountId: account.id, folderId: try #require(inbox.id), folderPath: "INBOX",
                request: BodyRequest(emailId: 1, uid: 1, bodyStructure: ""))
        }
    }

    struct NeverPaused: CatchUpPausing {
        func pause(accountId: Account.ID) async -> CatchUpPause? { nil }
    }

    static let failures: [(IMAPError, TernError)] = [
        (.authenticationFailed("bad password"), .authenticationRefused("bad password")),
        (.timeout("no answer"), .connectionLost(IMAPError.timeout("no answer").description))
    ]

    @Test func everyEntryPointTurnsAnIMAPFailureIntoTheSameTernError() async throws {
        let fixture = try await Fixture()
        let request = try await fixture.bodyRequest()
        for (failure, expected) in Self.failures {
            let engine = fixture.synchronizer(failingWith: failure)
            let (account, credentials) = (fixture.account, passwordCredentials())
            await #expect(throws: expected, "sync, \(failure)") {
                _ = try await engine.sync(account: account, credentials: credentials) { _ in }
            }
            await #expect(throws: expected, "older mail, \(failure)") {
                _ = try await engine.loadOlder(account: account, folderPath: "INBOX", credentials: credentials)
            }
            await #expect(throws: expected, "bodies, \(failure)") {
                _ = try await engine.fetchBodies([request], account: account, credentials: credentials)
            }
        }
        // A watch reconnects by itself after a lost connection (FR-SYNC-09); a refused sign-in ends it.
        let (failure, expected) = Self.failures[0]
        await #expect(throws: expected) {
            try await fixture.synchronizer(failingWith: failure).watch(account: fixture.account, credentials: passwordCredentials()) { _ in }
        }
    }

    @Test func olderMailAndBodiesAreThePersonsWorkWhileASyncIsNot() async throws {
        let fixture = try await Fixture()
        let request = try await fixture.bodyRequest()
        let engine = fixture.synchronizer(failingWith: .timeout("no answer"))
        let (account, credentials) = (fixture.account, passwordCredentials())
        _ = try? await engine.sync(account: account, credentials: credentials) { _ in }
        let afterSync = fixture.log.busyAtConnect.withLock { $0 }
        #expect(!afterSync.isEmpty && !afterSync.contains(true), "a sync is not the person's own work")

        fixture.log.busyAtConnect.withLock { $0.removeAll() }
        _ = try? await engine.loadOlder(account: account, folderPath: "INBOX", credentials: credentials)
        _ = try? await engine.fetchBodies([request], account: account, credentials: credentials)
        let duringWork = fixture.log.busyAtConnect.withLock { $0 }
        #expect(duringWork.count >= 2 && !duringWork.contains(false))
        #expect(!fixture.userWork.isBusy(account.id), "the mark ends with the work, failed or not")
    }

    @Test func anAttachmentDownloadIsThePersonsWorkAndItsFailureIsTranslated() async throws {
        let fixture = try await Fixture()
        let location = AttachmentLocation(
            attachment: Attachment(emailId: 1, partId: "2", filename: "report.pdf", mimeType: "application/pdf", sizeBytes: 10),
            accountId: fixture.account.id, folderPath: "INBOX", uid: 1)
        for (failure, expected) in Self.failures {
            let fetcher = LiveAttachmentFetcher(connections: fixture.pools(failingWith: failure), userWork: fixture.userWork)
            await #expect(throws: expected) {
                _ = try await fetcher.fetch(location, account: fixture.account, credentials: passwordCredentials()) { _ in }
            }
        }
        let seen = fixture.log.busyAtConnect.withLock { $0 }
        #expect(!seen.isEmpty && !seen.contains(false))
        #expect(!fixture.userWork.isBusy(fixture.account.id))
    }
}
