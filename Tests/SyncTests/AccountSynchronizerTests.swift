import Foundation
import IMAP
import Sync
import Testing
import TernCore
import TernTesting

/// The account's sync and watch against the in-memory server: FR-SYNC-04's reported states, folder
/// discovery, an IDLE push, a dropped IDLE reconnected, the retry after the pool gives up, and
/// the five-connection limit under a whole sync (issue 33).
@Suite struct AccountSynchronizerTests {
    @Test func aSyncReportsTheDiagramsStatesInOrder() async throws {
        let fixture = try await SyncFixture()
        await fixture.server.deliver(SyncFixture.messages(3))
        let log = ProgressLog()
        try await fixture.sync(progress: log.callback)
        #expect(log.states == [.connecting, .authenticating, .syncingFolders, .initialFast, .catchingUp, .indexing, .idle])
        var previous = SyncState.idle
        for state in log.states {
            #expect(previous.canMove(to: state), "\(previous) → \(state)")
            previous = state
        }
    }

    @Test func aRefusedLoginIsTheSyncsError() async throws {
        let fixture = try await SyncFixture()
        await fixture.server.inject(.refuseLogin)
        let log = ProgressLog()
        await #expect(throws: IMAPError.authenticationFailed("invalid credentials")) { try await fixture.sync(progress: log.callback) }
        #expect(log.states == [.connecting, .error])
    }

    @Test func foldersAreDiscoveredWithTheirRoles() async throws {
        let server = InMemoryIMAPServer(mailboxes: [("INBOX", []), ("Sent Items", ["\\Sent"]), ("Junk", ["\\Junk"]), ("Projects", [])])
        let fixture = try await SyncFixture(server: server)
        try await fixture.sync()
        let folders = try await fixture.store.folders(accountId: fixture.account.id)
        #expect(Dictionary(uniqueKeysWithValues: folders.map { ($0.path, $0.folderType) })
            == ["INBOX": .inbox, "Sent Items": .sent, "Junk": .spam, "Projects": .custom])
        await server.removeMailbox("Projects")
        try await fixture.sync()
        #expect(try await fixture.store.folders(accountId: fixture.account.id).map(\.path).sorted() == ["INBOX", "Junk", "Sent Items"])
    }

    @Test func aWholeSyncNeverOpensASixthConnection() async throws {
        let names = ["INBOX"] + (1...12).map { "Folder \($0)" }
        let server = InMemoryIMAPServer(mailboxes: names.map { ($0, []) })
        let fixture = try await SyncFixture(server: server)
        for name in names { await server.deliver(SyncFixture.messages(2), to: name) }
        try await fixture.sync()
        #expect(await server.peakConnections <= 5)
        #expect(await fixture.pool.peakOpen <= 5)
        for name in names { #expect(try await fixture.storedUIDs(name) == [1, 2]) }
    }

    @Test func anIdlePushSyncsTheInboxAndAnnouncesTheNewMail() async throws {
        let fixture = try await SyncFixture()
        await fixture.server.deliver(SyncFixture.messages(2))
        try await fixture.sync()
        let log = ProgressLog()
        let watch = Task { try await fixture.synchronizer.watch(account: fixture.account, progress: log.callback) }
        defer { watch.cancel() }
        #expect(try await log.wait { if case .watching = $0 { true } else { false } })
        await fixture.server.deliver(InMemoryMessage.text(subject: "Pushed", messageId: "<pushed@tern.test>"))
        #expect(try await log.wait { progress in
            if case .newMail(_, let messages) = progress { messages.contains { $0.subject == "Pushed" } } else { false }
        })
        #expect(try await fixture.storedUIDs() == [1, 2, 3])
        #expect(log.states.first == .listening)
    }

    @Test func aDroppedIdleIsReconnectedAndHearsMailAgain() async throws {
        let fixture = try await SyncFixture(backoff: BackoffSchedule([.milliseconds(1)]))
        try await fixture.sync()
        let log = ProgressLog()
        let watch = Task { try await fixture.synchronizer.watch(account: fixture.account, progress: log.callback) }
        defer { watch.cancel() }
        #expect(try await log.wait { if case .watching = $0 { true } else { false } })
        await fixture.server.dropIdleConnections()
        #expect(try await log.wait { if case .state(_, .connecting, let detail) = $0 { detail?.hasSuffix("reconnecting") == true } else { false } })
        #expect(try await log.wait { _ in log.states.last == .listening && log.states.count >= 3 })
        await fixture.server.deliver(InMemoryMessage.text(subject: "After the drop"))
        #expect(try await log.wait { progress in
            if case .newMail(_, let messages) = progress { messages.contains { $0.subject == "After the drop" } } else { false }
        })
    }

    @Test func anUnreachableAccountIsAnErrorWithTheNextAttemptAnnounced() async throws {
        let fixture = try await SyncFixture(backoff: BackoffSchedule([.milliseconds(1), .milliseconds(2)]))
        // Every attempt of the first schedule fails: the watch gives up, waits its last step, then gets through.
        await fixture.server.inject(.unreachable, times: 3)
        let log = ProgressLog()
        let watch = Task { try await fixture.synchronizer.watch(account: fixture.account, progress: log.callback) }
        defer { watch.cancel() }
        #expect(try await log.wait { if case .retryScheduled = $0 { true } else { false } })
        #expect(try await log.wait { if case .watching = $0 { true } else { false } })
        let states = log.states
        let error = try #require(states.firstIndex(of: .error))
        #expect(Array(states[error...].prefix(3)) == [.error, .idle, .listening], "\(states)")
        #expect(await fixture.pool.waits == [.milliseconds(1), .milliseconds(2)])
    }
}
