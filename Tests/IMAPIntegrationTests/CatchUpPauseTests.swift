import Foundation
import GRDB
import IMAP
import MailStore
import Sync
import Synchronization
import TernCore
import Testing

/// Issue 20, FR-SYNC-01 stage D "pausable and resumable", the engine against the real Dovecot: a
/// pause for the person's own work is waited out and the history goes on from its cursor in the
/// same sync (CatchingUp → Paused → CatchingUp); a pause that lasts ends the sync's catch-up with the
/// folder `paused`, and the next sync fetches the rest, nothing twice.
@Suite(.enabled(if: TestServers.available, "needs the test mail servers (make test)"), .serialized, .timeLimit(.minutes(3)))
struct CatchUpPauseTests {
    /// Answers the engine's questions from a script, then lets catch-up run.
    final class ScriptedPauses: CatchUpPausing {
        let script: Mutex<[CatchUpPause]>
        let asked = Mutex(0)

        init(_ script: [CatchUpPause]) { self.script = Mutex(script) }

        func pause(accountId: Account.ID) async -> CatchUpPause? {
            asked.withLock { $0 += 1 }
            return script.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        }
    }

    static let brief = CatchUpPause(reason: "giving way to your own work on the server", isBrief: true)
    static let lasting = CatchUpPause(reason: "catch-up is paused", isBrief: false)
    static let messages = 800

    let database: TernDatabase
    let account: Account
    let folder = "CatchUp-\(UUID().uuidString.prefix(8))"

    init() async throws {
        database = try TernDatabase.temporary()
        account = Account(
            name: "work", emailAddress: "bob@tern.test", provider: .imap,
            imap: ServerEndpoint(host: "127.0.0.1", port: TestServers.imapsPort, security: .implicitTLS),
            smtp: ServerEndpoint(host: "127.0.0.1", port: 1, security: .implicitTLS),
            username: "bob@tern.test", credential: .passwordEnvironment("UNUSED"), bodyHydration: .none)
        try await SQLiteAccountRepository(database: database).insert(account)
        let name = folder
        try await IMAPClient.withSession(to: TestServers.server()) { session in
            try await session.authenticate(.password(username: "bob@tern.test", password: TestServers.password))
            try await session.create(MailboxPath(name))
            for index in 1...Self.messages {
                _ = try await session.append(
                    to: MailboxPath(name),
                    message: IMAPSessionTests.message(
                        "History \(index)", messageId: "history-\(index)-\(name)@tern.test"))
            }
        }
    }

    func removeFolder() async throws {
        let name = folder
        try await IMAPClient.withSession(to: TestServers.server()) { session in
            try await session.authenticate(.password(username: "bob@tern.test", password: TestServers.password))
            try await session.delete(MailboxPath(name))
        }
    }

    /// One whole sync with `pauses`; the states it went through.
    func sync(_ pauses: ScriptedPauses) async throws -> (SyncReport, [SyncState]) {
        let pool = IMAPConnectionPool(
            server: TestServers.server(),
            credentials: .fixed(.password(username: "bob@tern.test", password: TestServers.password)),
            maxConnections: 1, backoff: BackoffSchedule([]))
        let states = Mutex<[SyncState]>([])
        let report = try await AccountSynchronizer(store: SQLiteSyncStore(database: database), connections: pool, catchUp: pauses)
            .sync(account: account) { event in
                if case .state(_, let state, _) = event { states.withLock { $0.append(state) } }
            }
        await pool.shutdown()
        return (report, states.withLock { $0 })
    }

    func stored() async throws -> (messages: Int, status: CatchUpStatus?) {
        let name = folder
        return try await database.writer.read { db in
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM email WHERE messageId LIKE ?", arguments: ["%-\(name)@tern.test%"]) ?? 0
            let status = try String.fetchOne(db, sql: "SELECT catchUpStatus FROM folder WHERE path = ?", arguments: [name])
            return (count, status.flatMap(CatchUpStatus.init(rawValue:)))
        }
    }

    static func followsTheDiagram(_ states: [SyncState]) -> Bool {
        zip([SyncState.idle] + states, states).allSatisfy { $0.canMove(to: $1) }
    }

    @Test func aPauseForThePersonsWorkIsWaitedOutAndTheHistoryGoesOn() async throws {
        let pauses = ScriptedPauses([Self.brief, Self.brief, Self.brief])
        let (report, states) = try await sync(pauses)
        let folderReport = try #require(report.folders.first { $0.path == folder })
        #expect(folderReport.error == nil && folderReport.catchUpPaused == nil)
        #expect(try await stored() == (Self.messages, .completed))
        let paused = try #require(states.firstIndex(of: .paused), "\(states)")
        #expect(states[paused + 1] == .catchingUp && states.last == .idle, "\(states)")
        #expect(Self.followsTheDiagram(states), "\(states)")
        try await removeFolder()
    }

    @Test func aLastingPauseEndsTheCatchUpAndTheNextSyncResumesIt() async throws {
        let (first, states) = try await sync(ScriptedPauses(Array(repeating: Self.lasting, count: 1000)))
        let folderReport = try #require(first.folders.first { $0.path == folder })
        #expect(folderReport.catchUpPaused == Self.lasting && folderReport.error == nil)
        let partial = try await stored()
        #expect(partial.status == .paused && partial.messages > 0 && partial.messages < Self.messages, "\(partial)")
        #expect(states.suffix(3) == [.paused, .indexing, .idle] && Self.followsTheDiagram(states), "\(states)")

        let (second, _) = try await sync(ScriptedPauses([]))
        #expect(second.folders.first { $0.path == folder }?.catchUpPaused == nil)
        #expect(try await stored() == (Self.messages, .completed), "the rest fetched from the cursor, nothing twice")
        try await removeFolder()
    }
}
