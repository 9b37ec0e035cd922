import Foundation
import GRDB
import IMAP
import MailStore
import Sync
import Synchronization
import TernCore
import TernTesting

/// One account synced against an in-memory IMAP server into a real store (SQLite in a temporary
/// file, through GRDB): the store's transactions and cursors are what the engine's resumability
/// rests on, so they are tested, not imitated (issue 33).
struct SyncFixture {
    let server: InMemoryIMAPServer
    let pool: InMemoryConnectionPool
    let database: TernDatabase
    let store: SQLiteSyncStore
    let account: Account

    init(
        server: InMemoryIMAPServer = InMemoryIMAPServer(), maxConnections: Int = 5, backoff: BackoffSchedule = BackoffSchedule([]),
        hydration: BodyHydrationPolicy = .none
    ) async throws {
        self.server = server
        pool = InMemoryConnectionPool(server: server, maxConnections: maxConnections, backoff: backoff)
        database = try TernDatabase.temporary()
        store = SQLiteSyncStore(database: database)
        account = Account(
            name: "work", emailAddress: "bob@tern.test", provider: .imap,
            imap: ServerEndpoint(host: "127.0.0.1", port: 1, security: .implicitTLS),
            smtp: ServerEndpoint(host: "127.0.0.1", port: 1, security: .implicitTLS),
            username: "bob@tern.test", credential: .passwordEnvironment("UNUSED"), bodyHydration: hydration)
        try await SQLiteAccountRepository(database: database).insert(account)
    }

    var synchronizer: AccountSynchronizer { AccountSynchronizer(store: store, connections: pool) }

    @discardableResult
    func sync(progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }) async throws -> SyncReport {
        try await synchronizer.sync(account: account, progress: progress)
    }

    func folder(_ path: String = "INBOX") async throws -> Folder? {
        try await store.folders(accountId: account.id).first { $0.path == path }
    }

    /// The stored UIDs of a folder, ascending.
    func storedUIDs(_ path: String = "INBOX") async throws -> [Int64] {
        guard let id = try await folder(path)?.id else { return [] }
        return try await store.localUIDs(folderId: id).sorted()
    }

    /// The UIDs of the folder's stored messages that are read.
    func readUIDs(_ path: String = "INBOX") async throws -> [Int64] {
        guard let id = try await folder(path)?.id else { return [] }
        return try await database.writer.read { db in
            try Int64.fetchAll(
                db, sql: "SELECT ef.imapUID FROM emailFolder ef JOIN email e ON e.id = ef.emailId WHERE e.isRead AND ef.folderId = ? ORDER BY 1",
                arguments: [id])
        }
    }

    func emailCount() async throws -> Int {
        try await database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM email") ?? 0 }
    }

    /// `count` recent messages, numbered from `from`.
    static func messages(_ count: Int, from first: Int = 1, daysAgo: Double = 1) -> [InMemoryMessage] {
        (first..<first + count).map { number in
            InMemoryMessage.text(
                subject: "Message \(number)", body: "Body \(number)", messageId: "<m\(number)@tern.test>",
                date: Date().addingTimeInterval(-daysAgo * 86_400 + Double(number)))
        }
    }
}

/// What a sync or watch reports, gathered for assertions.
final class ProgressLog: Sendable {
    private let events = Locked<[SyncProgress]>([])

    var all: [SyncProgress] { events.withLock { $0 } }
    var states: [SyncState] { all.compactMap { if case .state(_, let state, _) = $0 { state } else { nil } } }

    func record(_ progress: SyncProgress) { events.withLock { $0.append(progress) } }
    var callback: @Sendable (SyncProgress) -> Void { { [self] in record($0) } }

    /// Waits (polling, at most `seconds`: generous, for a loaded machine; a passing test waits milliseconds) until a reported event satisfies `condition`.
    func wait(seconds: Double = 30, until condition: @escaping (SyncProgress) -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if all.contains(where: condition) { return true }
            try await Task.sleep(for: .milliseconds(5))
        }
        return false
    }
}

final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    func withLock<T>(_ body: (inout Value) -> T) -> T { storage.withLock { body(&$0) } }
}
