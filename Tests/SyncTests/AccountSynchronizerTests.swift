import Foundation
import IMAP
import Sync
import TernCore
import TernTesting
import Testing

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
        #expect(
            Dictionary(uniqueKeysWithValues: folders.map { ($0.path, $0.folderType) })
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
        #expect(
            try await log.wait { progress in
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
        #expect(
            try await log.wait { progress in
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

    /// FR-SYNC-01 stage D pausable: a brief pause (the person's own work) is waited out in Paused and
    /// catch-up goes on; a lasting one ends this sync's catch-up, which the next sync resumes.
    @Test(arguments: [true, false])
    func catchUpPausesBetweenHistoryBatches(brief: Bool) async throws {
        let fixture = try await SyncFixture()
        // 600 in the window: the first sync's bootstrap takes the newest 300, history the rest.
        await fixture.server.deliver(SyncFixture.messages(600, daysAgo: 10))
        let pauses = ScriptedPauses(CatchUpPause(reason: "reading a thread", isBrief: brief), times: brief ? 1 : .max)
        let log = ProgressLog()
        try await AccountSynchronizer(store: fixture.store, connections: fixture.pool, catchUp: pauses)
            .sync(account: fixture.account, progress: log.callback)
        let tail = Array(log.states.drop { $0 != .catchingUp })
        if brief {
            #expect(tail == [.catchingUp, .paused, .catchingUp, .indexing, .idle])
            #expect(try await fixture.storedUIDs() == Array(1...600))
            #expect(try await fixture.folder()?.catchUpStatus == .completed)
        } else {
            #expect(tail == [.catchingUp, .paused, .indexing, .idle])
            #expect(try await fixture.storedUIDs() == Array(301...600))
            #expect(try await fixture.folder()?.catchUpStatus == .paused)
            try await fixture.sync()
            #expect(try await fixture.storedUIDs() == Array(1...600), "the next sync resumes from the backfill cursor")
        }
    }
}

/// A catch-up that gives way `times` times, then never.
final class ScriptedPauses: CatchUpPausing {
    let pause: CatchUpPause
    private let left: Locked<Int>

    init(_ pause: CatchUpPause, times: Int) {
        self.pause = pause
        left = Locked(times)
    }

    func pause(accountId: Account.ID) async -> CatchUpPause? {
        left.withLock { left in
            guard left > 0 else { return nil }
            left -= 1
            return pause
        }
    }
}
