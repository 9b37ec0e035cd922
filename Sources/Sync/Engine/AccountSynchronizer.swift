import Foundation
import HTMLSafety
import IMAP
import MIME
import Synchronization
import TernCore

/// One account's header sync (FR-SYNC-01, FR-SYNC-02): folder discovery with the special-use
/// mapping and reconciliation, the first page of Inbox headers before anything else (stage B),
/// then every syncable folder through a `FolderSynchronizer`: new mail above the forward cursor,
/// history below the backfill cursor back to the sync window, deletions and the server's flags.
/// Every batch is stored with its cursor in one transaction, so a killed sync resumes where it
/// stopped and never stores a message twice. A folder that fails is reported and skipped; the
/// next sync retries it.
public struct AccountSynchronizer: Sendable {
    /// FR-SYNC-01 stage B.
    public static let firstPageSize = 30
    public static let batchSize = 250

    let store: any SyncStore
    /// FR-SYNC-09: the account's pool (`AccountConnectionPools`); its backoff is also the watch's
    /// wait before trying an unreachable account again.
    let connections: any SyncConnectionPool
    /// FR-SYNC-03: one writer per folder, so an IDLE-triggered sync and a catch-up (in this process
    /// or another) never interleave their reads of the server with each other's writes.
    let locks: any NamedLocks
    /// FR-SYNC-01 stage D: when history catch-up gives way (none: it never does).
    let catchUp: (any CatchUpPausing)?
    /// How often a watch looks whether paused catch-up may go on.
    let catchUpRecheck: Duration
    let now: @Sendable () -> Date

    public init(
        store: any SyncStore, connections: IMAPConnectionPool, locks: any NamedLocks = NoLocks(),
        catchUp: (any CatchUpPausing)? = nil, catchUpRecheck: Duration = .seconds(15),
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.init(
            store: store, connections: LiveSyncConnectionPool(connections), locks: locks, catchUp: catchUp,
            catchUpRecheck: catchUpRecheck, now: now)
    }

    public init(
        store: any SyncStore, connections: any SyncConnectionPool, locks: any NamedLocks = NoLocks(),
        catchUp: (any CatchUpPausing)? = nil, catchUpRecheck: Duration = .seconds(15),
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.store = store
        self.connections = connections
        self.locks = locks
        self.catchUp = catchUp
        self.catchUpRecheck = catchUpRecheck
        self.now = now
    }

    /// The header items fetched per message: the whole header (References, In-Reply-To and the
    /// dedup key's fields come from it), flags, the server's date and size.
    static let headerItems: [FetchItem] = [.flags, .internalDate, .size, .header, .bodyStructure]

    public func sync(account: Account, progress: @escaping @Sendable (SyncProgress) -> Void) async throws -> SyncReport {
        let states = SyncStateReporter(account: account.name, progress: progress)
        progress(.connecting)
        states.handle(.syncTriggered)
        return try await SyncStateReporter.$ofTask.withValue(states) {
            do {
                // Connected and logged in before the folders' states begin (FR-SYNC-04's order); a
                // connection the pool already had logged in is both at once.
                try await connections.withConnection { _ in }
                states.handle(.connected)
                return try await syncFolders(of: account, connections: connections, only: nil, states: states, progress: progress)
            } catch {
                states.handle(.failed, detail: String(describing: error))
                throw error
            }
        }
    }

    /// FR-SYNC-03: IDLE on the Inbox (re-issued every 25 minutes, reconnecting with backoff: the
    /// pool's); each change it announces syncs the Inbox on a second connection, so IDLE never stops
    /// for it. New messages are reported as they are stored. When the account cannot be reached
    /// after the reconnect schedule, the state is Error with the next attempt announced
    /// (`retryScheduled`), and the watch tries again at the schedule's last step, for ever
    /// (FR-SYNC-04 Error → Idle, FR-SYNC-09). Runs until the task is cancelled. The decisions are
    /// `WatchLoop`'s; this carries out its effects.
    public func watch(account: Account, progress: @escaping @Sendable (SyncProgress) -> Void) async throws {
        let states = SyncStateReporter(account: account.name, progress: progress)
        let loop = SharedWatchLoop(WatchLoop(retryDelay: connections.backoff.delays.last ?? .seconds(45)))
        try await SyncStateReporter.$ofTask.withValue(states) {
            while true {
                do {
                    try await watchInbox(account: account, pool: connections, loop: loop, states: states, progress: progress)
                    return
                } catch let error as IMAPError where error.isRetryable {
                    let reason = String(describing: error)
                    for effect in loop.handle(.gaveUp(reason: reason)) {
                        switch effect {
                        case .state(let event, let detail): states.handle(event, detail: detail)
                        case .waitToRetry(let delay):
                            progress(.retryScheduled(account: account.name, at: now().addingTimeInterval(delay.inSeconds), reason: reason))
                            try await Task.sleep(for: delay)
                        default: break
                        }
                    }
                    for case .state(let event, let detail) in loop.handle(.retryDue) { states.handle(event, detail: detail) }
                }
            }
        }
    }

    /// One IDLE on the Inbox until it ends: cancelled (returns), or given up by the pool after its
    /// reconnect schedule (throws). Announces `watching` once it is established.
    func watchInbox(
        account: Account, pool: any SyncConnectionPool, loop: SharedWatchLoop, states: SyncStateReporter,
        progress: @escaping @Sendable (SyncProgress) -> Void
    ) async throws {
        // Each (re)established IDLE is followed by one catch-up sync, for mail that came before it.
        // A wake-up is `true` for a whole pass: catch-up that was paused may go on (FR-SYNC-01 stage D).
        let (wakeups, wake) = AsyncStream<Bool>.makeStream(bufferingPolicy: .bufferingNewest(1))
        // The effects of an event that come before any sync: states and wake-ups.
        let apply: @Sendable (WatchLoop.Event) -> Void = { event in
            for effect in loop.handle(event) {
                switch effect {
                case .state(let event, let detail): states.handle(event, detail: detail)
                case .sync(let allFolders): wake.yield(allFolders)
                default: break
                }
            }
        }
        let events = pool.idleEvents(
            mailbox: "INBOX",
            reconnecting: { error in
                apply(.idleDropped(reason: "\(error)"))
            },
            established: {
                // Listening once IDLE is established (`tern status` clears the announced retry then).
                apply(.idleEstablished)
            })
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await _ in events { apply(.mailboxChanged) }
                wake.finish()
            }
            if let catchUp {
                group.addTask {
                    // A whole pass when a pause has just ended (or the watch starts with folders the
                    // sync before it left paused), not every recheck: a paused folder that fails for
                    // another reason would otherwise be synced every 15 s.
                    var wasPaused = true
                    while true {
                        try await Task.sleep(for: catchUpRecheck)
                        guard await catchUp.pause(accountId: account.id) == nil else {
                            wasPaused = true
                            continue
                        }
                        if wasPaused, try await store.folders(accountId: account.id).contains(where: { $0.isSyncable && $0.catchUpStatus == .paused })
                        {
                            apply(.catchUpMayResume)
                        }
                        wasPaused = false
                    }
                }
            }
            group.addTask {
                for await whole in wakeups {
                    let report: SyncReport
                    do {
                        report = try await syncFolders(of: account, connections: pool, only: whole ? nil : .inbox, states: states) { _ in }
                    } catch let error as IMAPError where error.isRetryable {
                        // FR-SYNC-04 Error → Idle: the Inbox is synced again on the next event or
                        // re-established IDLE (the pool reconnects with backoff); the watch goes on.
                        apply(.syncFailed(reason: String(describing: error)))
                        continue
                    }
                    let new = report.folders.flatMap { folder in
                        folder.newMessages.map { message in
                            var message = message
                            message.inInbox = folder.folderType == .inbox
                            return message
                        }
                    }
                    for effect in loop.handle(.syncFinished(newMessages: new.count)) {
                        switch effect {
                        case .state(let event, let detail): states.handle(event, detail: detail)
                        case .announceWatching: progress(.watching(account: account.name))
                        case .announceNewMail: progress(.newMail(account: account.name, messages: new))
                        default: break
                        }
                    }
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    /// The folders of one sync, each on a connection from `connections`: discovery and the
    /// pipelined STATUS first, then every folder in priority order, each as one job of the pool.
    func syncFolders(
        of account: Account, connections: any SyncConnectionPool, only: FolderType?, states: SyncStateReporter,
        progress: @escaping @Sendable (SyncProgress) -> Void
    ) async throws -> SyncReport {
        // After an IDLE event the folders are known: straight to the Inbox's new mail (the diagram's
        // Listening → InitialFast).
        var stages = SyncStageOrder()
        try stages.begin(.discoverFolders, states: states)
        let clock = ContinuousClock()
        let start = clock.now
        let keepOrphans = account.provider == .gmail
        // The Inbox synced again on each IDLE event does not list the mailboxes again (its name is "INBOX").
        let known = only == .inbox ? try await store.folders(accountId: account.id).filter { $0.folderType == .inbox } : []
        // Each folder as the server listed it, so its own spelling goes back in commands (issue 22).
        let (folders, listed): ([Folder], [String: MailboxPath])
        if !known.isEmpty {
            (folders, listed) = (known, [:])
        } else {
            let discovered = try await connections.withConnection { session in
                try await discoverFolders(of: account, session: session, keepOrphans: keepOrphans)
            }
            (folders, listed) = (discovered.folders.filter { $0.isSyncable && (only == nil || $0.folderType == only) }, discovered.listed)
        }
        let mailbox: @Sendable (Folder) -> MailboxPath = { folder in listed[folder.path] ?? MailboxPath(folder.path) }
        progress(.discoveredFolders(folders.count))
        let ordered = folders.sorted { Self.priority($0.folderType) < Self.priority($1.folderType) }
        var reports = ordered.map { FolderSyncReport(path: $0.path, folderType: $0.folderType) }
        let firstPage = Mutex<Double?>(nil)
        let since = now().addingTimeInterval(-Double(account.syncWindowDays) * 86_400)
        let now = now()
        let store = store
        let catchUp = catchUp
        let synchronizer: @Sendable (any SyncSession) -> FolderSynchronizer = { session in
            FolderSynchronizer(
                session: session, store: store, accountId: account.id, keepOrphans: keepOrphans,
                since: since, hydration: account.bodyHydration, now: now, progress: progress, catchUp: catchUp)
        }
        let markFirstPage: @Sendable (Folder) -> Void = { folder in
            guard folder.folderType == .inbox else { return }
            firstPage.withLock { if $0 == nil { $0 = (clock.now - start).inSeconds * 1000 } }
        }
        var connectionsLost = 0
        try stages.begin(.bootstrap, states: states)
        // Stage B and C: the newest headers of every folder synced for the first time, within the
        // budget, before any folder's history (the Inbox's first 30 before anything else).
        let fresh = ordered.indices.filter { ordered[$0].forwardCursorUID == nil }
        if !fresh.isEmpty {
            let budgets = BootstrapBudget.allocate(fresh.map { ordered[$0].folderType })
            for (index, budget) in zip(fresh, budgets) {
                let folder = ordered[index]
                reports[index] = try await inFolder(folder, report: reports[index], connections: connections, lost: &connectionsLost) {
                    session, report in
                    try await synchronizer(session).bootstrap(folder, mailbox: mailbox(folder), budget: budget, report: &report) {
                        markFirstPage(folder)
                    }
                }
            }
        }
        try stages.begin(.status, states: states)
        // FR-SYNC-02 incremental: one pipelined STATUS of the folders whose catch-up is complete; one
        // whose UIDVALIDITY, UIDNEXT, message count and HIGHESTMODSEQ are as the last sync left them
        // has nothing new, gone or changed, and is not selected or searched at all. Not after an IDLE
        // event (it says the Inbox changed), and never for the mailbox the connection has selected:
        // STATUS may answer for it as of the selection (RFC 9051 section 6.3.11).
        let settled = ordered.filter { $0.catchUpStatus == .completed && $0.highestModSeq != nil && $0.serverMessageCount != nil }
        var statuses: [String: [String: UInt64]] = [:]
        if only == nil, !settled.isEmpty {
            statuses =
                (try? await connections.withConnection { session in
                    guard session.hasCapability("CONDSTORE") else { return [:] }
                    let selected = session.selected?.name
                    return try await session.status(
                        of: settled.filter { $0.path != selected }.map(mailbox),
                        items: ["MESSAGES", "UIDNEXT", "UIDVALIDITY", "HIGHESTMODSEQ"])
                }) ?? [:]
        }
        // Stage D and incremental sync: new mail, history back to the window, deletions, flags, bodies.
        try stages.begin(.catchUp, states: states)
        for (index, stale) in ordered.enumerated() where reports[index].error == nil {
            if let status = statuses[stale.path], stale.isUnchanged(status),
                try await !FolderSynchronizer.bodiesPending(
                    stale, store: store, cutoff: FolderSynchronizer.hydrationCutoff(account.bodyHydration, now: now))
            {
                reports[index].serverMessages = Int(stale.serverMessageCount ?? 0)
                progress(.folderDone(path: stale.path))
                continue
            }
            while true {
                reports[index] = try await inFolder(stale, report: reports[index], connections: connections, lost: &connectionsLost) {
                    session, report in
                    // Read under the lock: another writer may have moved the cursors meanwhile.
                    let folder = try await store.folders(accountId: account.id).first { $0.id == stale.id } ?? stale
                    try await synchronizer(session).sync(folder, mailbox: mailbox(folder), report: &report) { markFirstPage(folder) }
                }
                // FR-SYNC-01 stage D paused (FR-SYNC-04 CatchingUp → Paused). The person's own work is
                // waited out (the folder's job has ended: no connection or lock is held meanwhile), then
                // the folder's history goes on from its cursor; any other pause lasts past this sync.
                guard let pause = reports[index].catchUpPaused else { break }
                states.handle(.catchUpPaused, detail: pause.reason)
                guard pause.isBrief, only == nil, try await waitOutBriefPause(account) else { break }
                states.handle(.catchUpResumed)
                reports[index].catchUpPaused = nil
            }
            progress(.folderDone(path: stale.path))
        }
        // FR-SYNC-04 Indexing: new messages were indexed with their batches; what failed or was
        // missed is indexed again here, never holding up the sync.
        try stages.begin(.indexing, states: states)
        let repaired = (try? await store.indexMissing(accountId: account.id)) ?? 0
        try stages.begin(.done, states: states, detail: repaired > 0 ? "\(repaired) search entries repaired" : nil)
        states.progress(.synced(account: account.name, failedFolders: reports.filter { $0.error != nil }.map(\.path)))
        return SyncReport(
            account: account.name, folders: reports, firstPageMilliseconds: firstPage.withLock { $0 },
            seconds: (clock.now - start).inSeconds)
    }

    /// True once catch-up may run again; false when the pause turned into one that lasts.
    func waitOutBriefPause(_ account: Account) async throws -> Bool {
        while let pause = await catchUp?.pause(accountId: account.id) {
            guard pause.isBrief else { return false }
            try await Task.sleep(for: .milliseconds(250))
        }
        return true
    }

    /// A folder whose connection broke this many times in one sync stops the sync: the server or
    /// the network is failing, not the folder.
    static let connectionLossesPerSync = 3

    /// One folder's work as one job of the pool, under the folder's lock. A folder the server
    /// refuses (NO, BAD) or whose connection breaks (drop, timeout, TLS error mid-session) is
    /// reported and retried at the next sync while the others go on, the next on a new connection
    /// (FR-SYNC-01 error handling, FR-SYNC-09). A connection that cannot be made at all is the
    /// account's failure and is thrown.
    func inFolder(
        _ folder: Folder, report: FolderSyncReport, connections: any SyncConnectionPool, lost: inout Int,
        _ body: @escaping @Sendable (any SyncSession, inout FolderSyncReport) async throws -> Void
    ) async throws -> FolderSyncReport {
        let started = Mutex(false)
        let locks = locks
        do {
            return try await connections.withConnection { session in
                started.withLock { $0 = true }
                var report = report
                try await locks.withLock(Self.lockName(folder)) { try await body(session, &report) }
                return report
            }
        } catch IMAPError.server(_, let text) {
            var failed = report
            failed.error = text
            return failed
        } catch let error as IMAPError where error.isRetryable && started.withLock({ $0 }) {
            lost += 1
            if lost >= Self.connectionLossesPerSync { throw error }
            var failed = report
            failed.error = "the connection was lost: \(error)"
            return failed
        }
    }

    /// FR-SYNC-01 step 1: the server's complete LIST, roles completed from names, MAILBOXIDs where
    /// offered, reconciled with the stored folders (renames followed, deletions applied). Returns
    /// the account's folders and each listed folder's name as the server spells it.
    func discoverFolders(of account: Account, session: any SyncSession, keepOrphans: Bool) async throws
        -> (folders: [Folder], listed: [String: MailboxPath])
    {
        let listings = try await session.listMailboxes()
        var discovered = DiscoveredFolder.roles(of: listings)
        // RFC 8474: the MAILBOXID of each folder not known by it yet (once per folder), which
        // tells a renamed folder from a new one at reconciliation (issue 22).
        if session.hasCapability("OBJECTID") {
            let identified = Set(try await store.folders(accountId: account.id).filter { $0.mailboxId != nil }.map(\.path))
            let asking = listings.filter { !identified.contains($0.name) && $0.folderType != .container }
            let ids = (try? await session.mailboxIds(of: asking.map(MailboxPath.init(listing:)))) ?? [:]
            for index in discovered.indices { discovered[index].mailboxId = ids[discovered[index].path] }
        }
        let folders = try await store.saveDiscoveredFolders(discovered, accountId: account.id, keepOrphans: keepOrphans)
        let listed = Dictionary(listings.map { ($0.name, MailboxPath(listing: $0)) }, uniquingKeysWith: { first, _ in first })
        return (folders, listed)
    }

    /// FR-SYNC-01 step 5: the next page of history below the folder's backfill cursor, within the
    /// sync window; at the end, the folder records that it reached the server's history.
    public func loadOlder(account: Account, folderPath: String) async throws -> OlderMailResult {
        guard let stored = try await store.folders(accountId: account.id).first(where: { $0.path == folderPath }) else {
            throw IMAPError.server(status: .no, text: "no synced folder '\(folderPath)': the account has not synced it yet")
        }
        guard stored.isSyncable else { return .notApplicable(reason: "\(folderPath) is not synced") }
        let locks = locks
        let store = store
        let since = now().addingTimeInterval(-Double(account.syncWindowDays) * 86_400)
        let now = now()
        return try await connections.withConnection(failingFast: true) { session in
            try await locks.withLock(Self.lockName(stored)) {
                let synchronizer = FolderSynchronizer(
                    session: session, store: store, accountId: account.id,
                    keepOrphans: account.provider == .gmail, since: since,
                    hydration: account.bodyHydration, now: now, progress: { _ in })
                return try await synchronizer.loadOlder(stored)
            }
        }
    }

    /// FR-SYNC-01 step 7 "detail open": the bodies asked for, folder by folder, on one connection.
    public func fetchBodies(_ requests: [FolderBodyRequest], account: Account) async throws -> Int {
        guard !requests.isEmpty else { return 0 }
        let store = store
        let now = now()
        return try await connections.withConnection(failingFast: true) { session in
            var fetched = 0
            for (path, inFolder) in Dictionary(grouping: requests, by: \.folderPath) {
                try await session.select(MailboxPath(path), readOnly: true, qresync: nil)
                let synchronizer = FolderSynchronizer(
                    session: session, store: store, accountId: account.id,
                    keepOrphans: account.provider == .gmail, since: .distantPast,
                    hydration: .all, now: now, progress: { _ in })
                fetched += try await synchronizer.fetchBodies(inFolder.map(\.request))
            }
            return fetched
        }
    }

    static func lockName(_ folder: Folder) -> String { "sync-\(folder.accountId)-\(folder.id ?? 0)" }

    /// Inbox first (its first page is the render gate), then Sent, then the rest.
    static func priority(_ type: FolderType) -> Int {
        switch type {
        case .inbox: 0
        case .sent: 1
        case .starred: 2
        case .drafts: 3
        case .custom, .archive: 4
        default: 5
        }
    }
}

extension Folder {
    /// A STATUS answer that matches the state the last completed sync stored.
    func isUnchanged(_ status: [String: UInt64]) -> Bool {
        guard let validity = status["UIDVALIDITY"], let next = status["UIDNEXT"], let messages = status["MESSAGES"],
            let modSeq = status["HIGHESTMODSEQ"]
        else { return false }
        // A folder whose last sync skipped messages is synced again: they are retried.
        return uidValidity == Int64(validity) && uidNext == Int64(next) && serverMessageCount == Int64(messages)
            && highestModSeq == Int64(clamping: modSeq) && lastSyncError == nil
    }
}

extension DiscoveredFolder {
    /// FR-SYNC-01 step 1: the server's LIST as folders with their roles, special use first, then
    /// the names of unmarked ones (`SpecialUseInference`).
    static func roles(of listings: [MailboxListing]) -> [DiscoveredFolder] {
        SpecialUseInference.completing(listings.map { DiscoveredFolder(path: $0.name, delimiter: $0.delimiter, folderType: $0.folderType) })
    }
}

extension SyncStageOrder {
    /// Begins `stage` and tells the account's FR-SYNC-04 states what its beginning is.
    mutating func begin(_ stage: Stage, states: SyncStateReporter, detail: String? = nil) throws(OrderError) {
        try begin(stage)
        if let event = Self.event(beginning: stage) { states.handle(event, detail: detail) }
    }
}
