import Foundation
import HTMLSafety
import IMAP
import MIME
import TernCore

/// One account's header sync (FR-SYNC-01, FR-SYNC-02): folder discovery with the special-use
/// mapping, the first page of Inbox headers before anything else (stage B), then every syncable
/// folder: new mail above the forward cursor, history below the backfill cursor back to the sync
/// window, deletions by UID set difference and the server's flags. Every batch is stored with its
/// cursor in one transaction, so a killed sync resumes where it stopped and never stores a message
/// twice. A folder that fails is reported and skipped; the next sync retries it.
public struct AccountSynchronizer: Sendable {
    /// FR-SYNC-01 stage B.
    public static let firstPageSize = 30
    public static let batchSize = 250

    let store: any SyncStore
    let server: IMAPServer
    let credentials: IMAPCredentialSource
    /// FR-SYNC-03: one writer per folder, so an IDLE-triggered sync and a catch-up (in this process
    /// or another) never interleave their reads of the server with each other's writes.
    let locks: any NamedLocks
    let now: @Sendable () -> Date

    public init(store: any SyncStore, server: IMAPServer, credentials: IMAPCredentialSource, locks: any NamedLocks = NoLocks(),
                now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.server = server
        self.credentials = credentials
        self.locks = locks
        self.now = now
    }

    /// The header items fetched per message: the whole header (References, In-Reply-To and the
    /// dedup key's fields come from it), flags, the server's date and size.
    static let headerItems: [FetchItem] = [.flags, .internalDate, .size, .header, .bodyStructure]

    public func sync(account: Account, progress: @escaping @Sendable (SyncProgress) -> Void) async throws -> SyncReport {
        let states = SyncStateReporter(account: account.name, progress: progress)
        progress(.connecting)
        states.move(to: .connecting)
        do {
            return try await IMAPClient.withSession(to: server) { session in
                states.move(to: .authenticating)
                try await session.authenticate(with: credentials.reporting(to: states))
                let report = try await syncFolders(of: account, session: session, only: nil, states: states, progress: progress)
                try? await session.logout()
                return report
            }
        } catch {
            states.move(to: .error, detail: String(describing: error))
            throw error
        }
    }

    /// FR-SYNC-03: IDLE on the Inbox (re-issued every 25 minutes, reconnecting with backoff: the
    /// pool's); each change it announces syncs the Inbox on a second connection, so IDLE never stops
    /// for it. New messages are reported as they are stored. Runs until the task is cancelled.
    public func watch(account: Account, progress: @escaping @Sendable (SyncProgress) -> Void) async throws {
        let states = SyncStateReporter(account: account.name, progress: progress)
        let pool = IMAPConnectionPool(server: server, credentials: credentials.reporting(to: states), maxConnections: 2)
        // Each (re)established IDLE is followed by one catch-up sync, for mail that came before it.
        let (wakeups, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let events = pool.idleEvents(mailbox: "INBOX") { wake.yield() }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await _ in events { wake.yield() }
                    wake.finish()
                }
                group.addTask {
                    var announced = false
                    states.move(to: .listening)
                    for await _ in wakeups {
                        let report = try await pool.withConnection { session in
                            try await syncFolders(of: account, session: session, only: .inbox, states: states) { _ in }
                        }
                        states.move(to: .listening)
                        if !announced {
                            announced = true
                            progress(.watching(account: account.name))
                        }
                        let new = report.folders.flatMap(\.newMessages)
                        if !new.isEmpty { progress(.newMail(account: account.name, messages: new)) }
                    }
                }
                try await group.next()
                group.cancelAll()
            }
            await pool.shutdown()
        } catch {
            await pool.shutdown()
            throw error
        }
    }

    func syncFolders(of account: Account, session: IMAPSession, only: FolderType?, states: SyncStateReporter,
                     progress: @escaping @Sendable (SyncProgress) -> Void) async throws -> SyncReport {
        // After an IDLE event the folders are known: straight to the Inbox's new mail (the diagram's
        // Listening → InitialFast).
        if states.state != .listening { states.move(to: .syncingFolders) }
        // RFC 7162: a caught-up folder is then resynchronized from its SELECT (`resynchronize`).
        if session.hasCapability("QRESYNC"), !session.enabled.contains("QRESYNC") { _ = try? await session.enable(["QRESYNC"]) }
        let clock = ContinuousClock()
        let start = clock.now
        let keepOrphans = account.provider == .gmail
        var folders: [Folder]
        // Each folder as the server listed it, so its own spelling goes back in commands (issue 22).
        var listed: [String: MailboxPath] = [:]
        // The Inbox synced again on each IDLE event does not list the mailboxes again (its name is "INBOX").
        let known = only == .inbox ? try await store.folders(accountId: account.id).filter { $0.folderType == .inbox } : []
        if !known.isEmpty {
            folders = known
        } else {
            let listings = try await session.listMailboxes()
            var discovered = SpecialUseInference.completing(
                listings.map { DiscoveredFolder(path: $0.name, delimiter: $0.delimiter, folderType: $0.folderType) })
            // RFC 8474: the MAILBOXID of each folder not known by it yet (once per folder), which
            // tells a renamed folder from a new one at reconciliation (issue 22).
            if session.hasCapability("OBJECTID") {
                let identified = Set(try await store.folders(accountId: account.id).filter { $0.mailboxId != nil }.map(\.path))
                let asking = listings.filter { !identified.contains($0.name) && $0.folderType != .container }
                let ids = (try? await session.mailboxIds(of: asking.map(MailboxPath.init(listing:)))) ?? [:]
                for index in discovered.indices { discovered[index].mailboxId = ids[discovered[index].path] }
            }
            folders = try await store.saveDiscoveredFolders(discovered, accountId: account.id, keepOrphans: keepOrphans)
                .filter(\.isSyncable)
                .filter { only == nil || $0.folderType == only }
            listed = Dictionary(listings.map { ($0.name, MailboxPath(listing: $0)) }, uniquingKeysWith: { first, _ in first })
        }
        let mailbox: (Folder) -> MailboxPath = { folder in listed[folder.path] ?? MailboxPath(folder.path) }
        progress(.discoveredFolders(folders.count))
        let ordered = folders.sorted { Self.priority($0.folderType) < Self.priority($1.folderType) }
        var reports = ordered.map { FolderSyncReport(path: $0.path, folderType: $0.folderType) }
        var firstPage: Double?
        let since = now().addingTimeInterval(-Double(account.syncWindowDays) * 86_400)
        func synchronizer() -> FolderSynchronizer {
            FolderSynchronizer(session: session, store: store, accountId: account.id, keepOrphans: keepOrphans,
                               since: since, hydration: account.bodyHydration, now: now(), progress: progress)
        }
        let markFirstPage: (Folder) -> Void = { folder in
            if folder.folderType == .inbox, firstPage == nil { firstPage = (clock.now - start).inSeconds * 1000 }
        }
        states.move(to: .initialFast)
        // Stage B and C: the newest headers of every folder synced for the first time, within the
        // budget, before any folder's history (the Inbox's first 30 before anything else).
        let fresh = ordered.indices.filter { ordered[$0].forwardCursorUID == nil }
        if !fresh.isEmpty {
            let budgets = BootstrapBudget.allocate(fresh.map { ordered[$0].folderType })
            for (index, budget) in zip(fresh, budgets) {
                let folder = ordered[index]
                do {
                    try await locks.withLock(Self.lockName(folder)) {
                        try await synchronizer().bootstrap(folder, mailbox: mailbox(folder), budget: budget,
                                                           report: &reports[index]) { markFirstPage(folder) }
                    }
                } catch IMAPError.server(_, let text) {
                    reports[index].error = text
                }
            }
        }
        states.move(to: .catchingUp)
        // FR-SYNC-02 incremental: one pipelined STATUS of the folders whose catch-up is complete; one
        // whose UIDVALIDITY, UIDNEXT, message count and HIGHESTMODSEQ are as the last sync left them
        // has nothing new, gone or changed, and is not selected or searched at all. Not after an IDLE
        // event (it says the Inbox changed), and never for the mailbox this connection has selected:
        // STATUS may answer for it as of the selection (RFC 9051 section 6.3.11).
        let selectedName = await session.selected?.name
        let settled = ordered.filter {
            $0.catchUpStatus == .completed && $0.highestModSeq != nil && $0.serverMessageCount != nil
                && $0.path != selectedName
        }
        var statuses: [String: [String: UInt64]] = [:]
        if only == nil, !settled.isEmpty, session.hasCapability("CONDSTORE") {
            statuses = (try? await session.status(of: settled.map(mailbox),
                                                  items: ["MESSAGES", "UIDNEXT", "UIDVALIDITY", "HIGHESTMODSEQ"])) ?? [:]
        }
        // Stage D and incremental sync: new mail, history back to the window, deletions, flags, bodies.
        for (index, stale) in ordered.enumerated() where reports[index].error == nil {
            if let status = statuses[stale.path], stale.isUnchanged(status),
               try await !synchronizer().bodiesPending(stale) {
                reports[index].serverMessages = Int(stale.serverMessageCount ?? 0)
                progress(.folderDone(path: stale.path))
                continue
            }
            do {
                try await locks.withLock(Self.lockName(stale)) {
                    // Read under the lock: another writer may have moved the cursors meanwhile.
                    let folder = try await store.folders(accountId: account.id).first { $0.id == stale.id } ?? stale
                    try await synchronizer().sync(folder, mailbox: mailbox(folder), report: &reports[index]) {
                        markFirstPage(folder)
                    }
                }
            } catch IMAPError.server(_, let text) {
                // This folder refused (SELECT, FETCH): reported and retried next time; the others go on.
                reports[index].error = text
            }
            progress(.folderDone(path: stale.path))
        }
        // FR-SYNC-04 Indexing: new messages were indexed with their batches; what failed or was
        // missed is indexed again here, never holding up the sync.
        states.move(to: .indexing)
        let repaired = (try? await store.indexMissing(accountId: account.id)) ?? 0
        states.move(to: .idle, detail: repaired > 0 ? "\(repaired) search entries repaired" : nil)
        return SyncReport(account: account.name, folders: reports, firstPageMilliseconds: firstPage, seconds: (clock.now - start).inSeconds)
    }

    /// FR-SYNC-01 step 5: the next page of history below the folder's backfill cursor, within the
    /// sync window; at the end, the folder records that it reached the server's history.
    public func loadOlder(account: Account, folderPath: String) async throws -> OlderMailResult {
        guard let stored = try await store.folders(accountId: account.id).first(where: { $0.path == folderPath }) else {
            throw IMAPError.server(status: .no, text: "no synced folder '\(folderPath)': the account has not synced it yet")
        }
        guard stored.isSyncable else { return .notApplicable(reason: "\(folderPath) is not synced") }
        return try await IMAPClient.withSession(to: server) { session in
            try await session.authenticate(with: credentials)
            let result = try await locks.withLock(Self.lockName(stored)) {
                let since = now().addingTimeInterval(-Double(account.syncWindowDays) * 86_400)
                let synchronizer = FolderSynchronizer(session: session, store: store, accountId: account.id,
                                                      keepOrphans: account.provider == .gmail, since: since,
                                                      hydration: account.bodyHydration, now: now(), progress: { _ in })
                return try await synchronizer.loadOlder(stored)
            }
            try? await session.logout()
            return result
        }
    }

    /// FR-SYNC-01 step 7 "detail open": the bodies asked for, folder by folder, on one connection.
    public func fetchBodies(_ requests: [FolderBodyRequest], account: Account) async throws -> Int {
        guard !requests.isEmpty else { return 0 }
        return try await IMAPClient.withSession(to: server) { session in
            try await session.authenticate(with: credentials)
            var fetched = 0
            for (path, inFolder) in Dictionary(grouping: requests, by: \.folderPath) {
                try await session.select(MailboxPath(path), readOnly: true)
                let synchronizer = FolderSynchronizer(session: session, store: store, accountId: account.id,
                                                      keepOrphans: account.provider == .gmail, since: .distantPast,
                                                      hydration: .all, now: now(), progress: { _ in })
                fetched += try await synchronizer.fetchBodies(inFolder.map(\.request))
            }
            try? await session.logout()
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

/// A message whose text parts are to be fetched: its part structure and what to fetch of it.
struct PlannedBody {
    let uid: Int64
    let structure: MIMEPart
    let plan: BodyPlan
}

/// One folder of one sync.
struct FolderSynchronizer {
    let session: IMAPSession
    let store: any SyncStore
    let accountId: Account.ID
    let keepOrphans: Bool
    let since: Date
    let hydration: BodyHydrationPolicy
    let now: Date
    let progress: @Sendable (SyncProgress) -> Void

    /// Stage B/C of a folder synced for the first time: its newest `budget` headers in the window,
    /// the first page stored (and announced, for the Inbox) before the rest.
    func bootstrap(_ stored: Folder, mailbox: MailboxPath, budget: Int, report: inout FolderSyncReport, firstPageStored: () -> Void) async throws {
        let (folder, selected) = try await select(stored, mailbox: mailbox, report: &report)
        let pageSize = min(AccountSynchronizer.firstPageSize, max(budget, 0))
        // The first page from the newest arrivals by sequence number: a search of 30 messages, where
        // the window's search reads the dates of the whole mailbox (a third of the first page's time
        // on an Inbox of 8,000). When some of them are older than the window, the whole search decides.
        var page: [Int64] = []
        if selected.exists > 0, pageSize > 0 {
            let low = selected.exists > UInt32(pageSize) ? selected.exists - UInt32(pageSize) + 1 : 1
            page = try await session.uidSearch(.and([.sequences(low...selected.exists), .since(since)])).map(Int64.init).sorted()
        }
        var newest: [Int64]?
        if page.count < min(pageSize, Int(selected.exists)) {
            newest = Array(try await session.uidSearch(.since(since)).map(Int64.init).sorted().suffix(max(budget, 0)))
            page = Array(newest!.suffix(pageSize))
        }
        if !page.isEmpty { try await fetchAndStore(page, folder: folder, report: &report, cursor: .forward) }
        if folder.folderType == .inbox {
            progress(.firstPageReady(messages: page.count))
            firstPageStored()
        }
        // An empty folder has no message to move the forward cursor: it is set here, or the folder
        // counts as never synced and is selected and bootstrapped again on every sync (issue 22).
        if selected.exists == 0 {
            var state = try await store.folders(accountId: accountId).first { $0.id == folder.id } ?? folder
            if state.forwardCursorUID == nil {
                state.forwardCursorUID = max(0, Int64(selected.uidNext ?? 1) - 1)
                try await store.updateFolderState(state)
            }
            return
        }
        var window = newest ?? []
        if newest == nil { window = Array(try await session.uidSearch(.since(since)).map(Int64.init).sorted().suffix(max(budget, 0))) }
        // Newest batch first, so the backfill cursor only moves down and a crash leaves no gap.
        let rest = Array(window.filter { $0 < (page.first ?? .max) }.suffix(max(0, budget - page.count)))
        if !rest.isEmpty { try await fetchAndStore(rest, folder: folder, report: &report, cursor: .backfill) }
    }

    /// SELECT (read-only); a new UIDVALIDITY resets the folder (FR-SYNC-02 step 5). With `qresync`,
    /// the server also reports what vanished and changed since that state (RFC 7162).
    func select(_ stored: Folder, mailbox: MailboxPath, qresync: (uidValidity: UInt32, modSeq: UInt64)? = nil,
                report: inout FolderSyncReport) async throws -> (Folder, IMAPSession.SelectedMailbox) {
        var folder = stored
        progress(.selectingFolder(path: folder.path))
        let selected = try await session.select(mailbox, readOnly: true, qresync: qresync)
        if let validity = selected.uidValidity.map(Int64.init), folder.uidValidity != validity {
            if folder.uidValidity != nil { report.uidValidityReset = true }
            try await store.resetFolder(folder.id!, uidValidity: validity, keepOrphans: keepOrphans)
            folder = try await store.folders(accountId: accountId).first { $0.id == folder.id } ?? folder
        }
        return (folder, selected)
    }

    func sync(_ stored: Folder, mailbox: MailboxPath, report: inout FolderSyncReport, firstPageStored: () -> Void) async throws {
        let (folder, selected) = try await select(stored, mailbox: mailbox, qresync: Self.resynchronization(of: stored), report: &report)
        if selected.resynchronized {
            return try await resynchronize(folder, selected: selected, report: &report, firstPageStored: firstPageStored)
        }
        let forward = folder.forwardCursorUID ?? 0
        let backfill = folder.backfillCursorUID ?? Int64.max
        let firstSync = folder.forwardCursorUID == nil
        // Once the history is caught up, nothing in the window lies below the backfill cursor: the
        // window's start only moves forward and new mail gets higher UIDs. The server's date search
        // (a scan of the whole folder on Dovecot) is then skipped.
        let caughtUp = !firstSync && folder.catchUpStatus == .completed && folder.backfillCursorUID != nil
        let inWindowList = caughtUp ? [] : try await session.uidSearch(.since(since)).map(Int64.init).sorted()
        let inWindow = Set(inWindowList)
        // Above the forward cursor: new mail. On a first sync the window's newest come first, before the
        // full UID list is even asked for (stage B: the first page is the render gate).
        var serverUIDs = firstSync ? [] : try await session.uidSearch(.all).map(Int64.init).sorted()
        let newer = firstSync ? Array(inWindowList.suffix(AccountSynchronizer.firstPageSize)) : serverUIDs.filter { $0 > forward }
        var done = 0
        if !newer.isEmpty {
            // The first page of a first sync is the render gate: headers only.
            try await fetchAndStore(newer, folder: folder, report: &report, cursor: .forward, bodies: !firstSync)
            done += newer.count
        }
        if folder.folderType == .inbox {
            progress(.firstPageReady(messages: newer.count))
            firstPageStored()
        }
        if firstSync { serverUIDs = try await session.uidSearch(.all).map(Int64.init).sorted() }
        report.serverMessages = serverUIDs.count
        let total = serverUIDs.count
        progress(.syncingFolder(path: folder.path, done: done, total: total))
        // History below the backfill cursor, newest first, back to the sync window (stage D).
        let lowest = min(backfill, newer.first ?? backfill)
        let older = serverUIDs.filter { $0 < lowest && inWindow.contains($0) }
        if !older.isEmpty {
            try await fetchAndStore(older, folder: folder, report: &report, cursor: .backfill, bodies: true) { stored in
                progress(.syncingFolder(path: folder.path, done: done + stored, total: total))
            }
            done += older.count
        }
        // Deletions (UID set difference) and the server's flags for what is stored (FR-SYNC-02, 05).
        let local = try await store.localUIDs(folderId: folder.id!)
        let serverSet = Set(serverUIDs)
        // FR-SYNC-01: a message an earlier sync failed to fetch was skipped (the folder noted it), and
        // the cursors moved past it; it is one in the window that the server has between those cursors
        // and the store lacks (UIDs do not follow dates: older mail outside the window lies between
        // them too). Fetched again here; the cursors only ever widen, so they stay where they are.
        if folder.lastSyncError != nil, let low = folder.backfillCursorUID, let high = folder.forwardCursorUID {
            let window = caughtUp ? Set(try await session.uidSearch(.since(since)).map(Int64.init)) : inWindow
            let stored = Set(local)
            let skipped = serverUIDs.filter { $0 >= low && $0 <= high && window.contains($0) && !stored.contains($0) }
                .suffix(AccountSynchronizer.batchSize)
            if !skipped.isEmpty {
                let failedBefore = report.failedMessages
                try await fetchAndStore(Array(skipped), folder: folder, report: &report, cursor: .backfill, bodies: true)
                report.retriedMessages = skipped.count - (report.failedMessages - failedBefore)
            }
        }
        let gone = local.filter { !serverSet.contains($0) }
        try await store.removeFromFolder(folder.id!, uids: gone, keepOrphans: keepOrphans)
        report.removed = gone.count
        let kept = local.filter { serverSet.contains($0) }
        // With CONDSTORE (RFC 7162; Gmail and Dovecot have it) an unchanged HIGHESTMODSEQ means no flag
        // changed since the last sync, and otherwise only what changed is fetched (CHANGEDSINCE).
        let knownModSeq = folder.highestModSeq.map { UInt64(clamping: $0) }
        let unchanged = knownModSeq != nil && knownModSeq == selected.highestModSeq
        if !kept.isEmpty, !unchanged {
            var states: [ServerFlagState] = []
            let changedSince = selected.highestModSeq == nil ? nil : knownModSeq
            try await session.uidFetch(UIDSet(uids: kept.map { UInt32($0) }), items: [.flags], changedSince: changedSince) { message in
                if let uid = message.uid, let flags = message.flags {
                    states.append(ServerFlagState(uid: Int64(uid), flags: flags, modSeq: message.modSeq.map { Int64(clamping: $0) }))
                }
            }
            report.flagChanges = try await store.applyServerFlags(states, folderId: folder.id!)
        }
        report.bodiesFetched += try await hydrateBodies(folder)
        var state = try await store.folders(accountId: accountId).first { $0.id == folder.id } ?? folder
        state.uidNext = selected.uidNext.map(Int64.init)
        state.highestModSeq = selected.highestModSeq.map { Int64(clamping: $0) }
        state.serverMessageCount = Int64(serverUIDs.count)
        state.initialFastCompleted = true
        state.catchUpStatus = .completed
        state.reachedServerHistoryBoundary = older.count == serverUIDs.filter { $0 < lowest }.count
        state.lastSyncDate = Date()
        state.lastSyncError = report.failedMessages > 0
            ? "\(report.failedMessages) message\(report.failedMessages == 1 ? "" : "s") could not be fetched; retried at the next sync" : nil
        try await store.updateFolderState(state)
    }

    /// RFC 7162 QRESYNC: the state a caught-up folder was left in, which the server compares its own
    /// with. Not for a folder with messages still to retry: the full path finds those.
    static func resynchronization(of folder: Folder) -> (uidValidity: UInt32, modSeq: UInt64)? {
        guard folder.catchUpStatus == .completed, folder.forwardCursorUID != nil, folder.backfillCursorUID != nil,
              folder.lastSyncError == nil, let validity = folder.uidValidity, let modSeq = folder.highestModSeq,
              validity > 0, validity <= Int64(UInt32.max), modSeq > 0 else { return nil }
        return (UInt32(validity), UInt64(modSeq))
    }

    /// FR-SYNC-02 incremental on a server with QRESYNC (Dovecot, Cyrus, Fastmail; not Gmail): the
    /// SELECT itself said which messages vanished and whose flags changed since the last sync, so
    /// the folder's whole UID list (`UID SEARCH ALL`, 600 KB for 100,000 messages) is not asked for
    /// and no flags are fetched; only the UIDs above the forward cursor are searched, when UIDNEXT
    /// says there are any.
    func resynchronize(_ folder: Folder, selected: IMAPSession.SelectedMailbox, report: inout FolderSyncReport,
                       firstPageStored: () -> Void) async throws {
        let forward = folder.forwardCursorUID ?? 0
        var newer: [Int64] = []
        if selected.uidNext.map({ Int64($0) > forward + 1 }) ?? true, forward < Int64(UInt32.max) {
            newer = try await session.uidSearch(.uids(UIDSet([UInt32(forward + 1)...UInt32.max])))
                .map(Int64.init).filter { $0 > forward }.sorted()
        }
        if !newer.isEmpty { try await fetchAndStore(newer, folder: folder, report: &report, cursor: .forward, bodies: true) }
        if folder.folderType == .inbox {
            progress(.firstPageReady(messages: newer.count))
            firstPageStored()
        }
        report.serverMessages = Int(selected.exists)
        progress(.syncingFolder(path: folder.path, done: newer.count, total: Int(selected.exists)))
        let local = try await store.localUIDs(folderId: folder.id!)
        let gone = local.filter { $0 <= Int64(UInt32.max) && selected.vanished.contains(UInt32($0)) }
        try await store.removeFromFolder(folder.id!, uids: gone, keepOrphans: keepOrphans)
        report.removed = gone.count
        // Flags the SELECT reported for messages stored before this sync; the new ones came with
        // their headers, which are fresher.
        let states = selected.changed.filter { Int64($0.uid) <= forward && !selected.vanished.contains($0.uid) }.map {
            ServerFlagState(uid: Int64($0.uid), flags: $0.flags, modSeq: $0.modSeq.map { Int64(clamping: $0) })
        }
        if !states.isEmpty { report.flagChanges = try await store.applyServerFlags(states, folderId: folder.id!) }
        report.bodiesFetched += try await hydrateBodies(folder)
        var state = try await store.folders(accountId: accountId).first { $0.id == folder.id } ?? folder
        state.uidNext = selected.uidNext.map(Int64.init)
        state.highestModSeq = selected.highestModSeq.map { Int64(clamping: $0) }
        state.serverMessageCount = Int64(selected.exists)
        state.lastSyncDate = Date()
        state.lastSyncError = report.failedMessages > 0
            ? "\(report.failedMessages) message\(report.failedMessages == 1 ? "" : "s") could not be fetched; retried at the next sync" : nil
        try await store.updateFolderState(state)
    }

    func loadOlder(_ stored: Folder) async throws -> OlderMailResult {
        var report = FolderSyncReport(path: stored.path, folderType: stored.folderType)
        let (folder, _) = try await select(stored, mailbox: MailboxPath(stored.path), report: &report)
        let lowest = folder.backfillCursorUID ?? Int64.max
        let older = try await session.uidSearch(.uids(UIDSet([1...UInt32(clamping: max(1, lowest - 1))]))).map(Int64.init).sorted()
            .filter { $0 < lowest }
        let inWindow = Set(try await session.uidSearch(.since(since)).map(Int64.init))
        let page = Array(older.filter(inWindow.contains).suffix(AccountSynchronizer.batchSize))
        var state = folder
        if page.isEmpty {
            state.reachedServerHistoryBoundary = older.isEmpty
            try await store.updateFolderState(state)
            return .reachedBoundary(serverHistory: older.isEmpty)
        }
        try await fetchAndStore(page, folder: folder, report: &report, cursor: .backfill, bodies: true)
        return .fetched(count: page.count)
    }

    enum Cursor { case forward, backfill }

    /// FR-SYNC-01 step 7 under the account's policy: whether a message received at `date` gets its
    /// bodies without waiting for the thread to be opened.
    func hydrates(receivedAt date: Date) -> Bool { hydrationCutoff.map { date >= $0 } ?? false }

    /// FR-SYNC-01 step 7: the oldest date the account's policy fetches bodies for (`distantPast` for
    /// all), nil when it fetches none ahead of opening.
    var hydrationCutoff: Date? {
        switch hydration {
        case .none: nil
        case .all: .distantPast
        case .recent(let days): now.addingTimeInterval(-Double(days) * 86_400)
        }
    }

    /// Fetches and stores `uids` in batches. Forward (new mail): oldest batch first, the forward
    /// cursor rising. Backfill (history): newest batch first, the backfill cursor only falling. Either
    /// way a kill leaves the stored range without a gap. With `bodies`, the text parts of the messages
    /// the hydration policy covers are fetched with their batch and stored, indexed and previewed in
    /// the same transaction as the headers: one write and one search entry per message instead of two.
    func fetchAndStore(_ uids: [Int64], folder: Folder, report: inout FolderSyncReport, cursor: Cursor, bodies: Bool = false,
                       stored: (Int) -> Void = { _ in }) async throws {
        var pendingWrite: Task<StoredBatch, any Error>?
        // A failed fetch must not leave a write running behind the caller's back.
        defer { pendingWrite?.cancel() }
        let size = AccountSynchronizer.batchSize
        var starts = Array(stride(from: 0, to: uids.count, by: size))
        if cursor == .backfill { starts.reverse() }
        var storedCount = 0
        for (number, start) in starts.enumerated() {
            let slice = uids[start..<min(start + size, uids.count)]
            let isLast = number == starts.count - 1
            var incoming = try await fetchHeaders(slice, bodies: bodies)
            report.bodiesFetched += incoming.count { $0.email.bodyPlain != nil || $0.email.bodyHTML != nil }
            report.failedMessages += slice.count - incoming.count
            // The batch is written while the next one is fetched (the server works while we store); writes
            // stay in order, one at a time, each with its cursor, so a kill still leaves no gap.
            if let previous = pendingWrite {
                Self.add(try await previous.value, to: &report)
                stored(storedCount)
            }
            let store = store
            let folderId = folder.id!
            let cursorUID = cursor == .forward ? slice.last : nil
            let backfillUID = slice.first
            pendingWrite = Task { [incoming] in
                try await store.store(incoming, folderId: folderId, cursorUID: cursorUID, backfillCursorUID: backfillUID)
            }
            incoming = []
            storedCount += slice.count
            if isLast {
                Self.add(try await pendingWrite!.value, to: &report)
                pendingWrite = nil
                stored(storedCount)
            }
        }
    }

    /// One batch's headers, flags, dates, sizes and part structure, as Emails to store; with `bodies`,
    /// also the text parts of those the hydration policy covers.
    func fetchHeaders(_ slice: ArraySlice<Int64>, bodies: Bool) async throws -> [IncomingMessage] {
        var incoming: [IncomingMessage] = []
        var structures: [MIMEPart?] = []
        var planned: [Int: PlannedBody] = [:]
        let parser = MessageParser()
        try await session.uidFetch(UIDSet(uids: slice.map { UInt32($0) }), items: AccountSynchronizer.headerItems) { message in
            guard let uid = message.uid, let header = message.section("HEADER") else { return }
            let parsed = parser.parse(header)
            var email = parsed.email(accountId: accountId, internalDate: message.internalDate ?? Date(timeIntervalSince1970: 0),
                                     sizeBytes: Int64(clamping: message.size ?? 0))
            // Headers only: the bodies come later (FR-SYNC-01 step 7) unless fetched with the batch below;
            // BODYSTRUCTURE says which parts they are and which parts are attachments (step 8).
            email.bodiesFetched = false
            email.snippet = nil
            email.bodyPlain = nil
            email.bodyHTML = nil
            email.bodyTruncated = false
            var attachments: [Attachment] = []
            if let structure = message.bodyStructure {
                let plan = BodyPlanner.plan(structure)
                email.hasAttachments = plan.attachments.contains { !$0.isInline }
                attachments = plan.attachments.map { info in
                    Attachment(emailId: 0, partId: info.partId, filename: info.filename, mimeType: info.mimeType,
                               sizeBytes: Int64(info.sizeBytes), contentId: info.contentId, isInline: info.isInline,
                               transferEncoding: info.transferEncoding)
                }
                if plan.plainPartIds.isEmpty, plan.htmlPartIds.isEmpty {
                    email.bodiesFetched = true  // nothing to fetch
                } else if bodies, hydrates(receivedAt: email.dateReceived) {
                    planned[incoming.count] = PlannedBody(uid: Int64(uid), structure: structure, plan: plan)
                }
            }
            structures.append(message.bodyStructure)
            incoming.append(IncomingMessage(email: email, uid: Int64(uid), modSeq: message.modSeq.map { Int64(clamping: $0) },
                                            serverFlags: message.flags ?? [], attachments: attachments))
        }
        let texts = planned.isEmpty ? [:] : try await fetchTexts(Array(planned.values))
        for index in incoming.indices {
            if let planned = planned[index], let text = texts[planned.uid] {
                let fetched = Self.bodies(0, text)
                incoming[index].email.bodyPlain = fetched.plain
                incoming[index].email.bodyHTML = fetched.html
                incoming[index].email.snippet = fetched.snippet
                incoming[index].email.bodyTruncated = fetched.truncated
                incoming[index].email.bodiesFetched = true
                incoming[index].searchText = fetched.searchText
            } else if !incoming[index].email.bodiesFetched, let structure = structures[index] {
                // Kept for the fetch that comes later: when the thread is opened or by hydration.
                incoming[index].email.bodyStructure = (try? JSONEncoder().encode(structure)).map { String(decoding: $0, as: UTF8.self) }
            }
        }
        return incoming
    }

    static func add(_ batch: StoredBatch, to report: inout FolderSyncReport) {
        report.inserted += batch.inserted
        report.linked += batch.linked
        report.newMessages += batch.newMessages.prefix(max(0, 50 - report.newMessages.count))
    }

    /// Whether the policy still wants bodies of this folder's stored messages.
    func bodiesPending(_ folder: Folder) async throws -> Bool {
        guard let cutoff = hydrationCutoff else { return false }
        return try await !store.emailsNeedingBodies(folderId: folder.id!, since: cutoff, limit: 1).isEmpty
    }

    /// FR-SYNC-01 step 7 under the account's policy, for what the header batches left without bodies:
    /// only the text parts BODYSTRUCTURE names, messages with the same part layout together.
    func hydrateBodies(_ folder: Folder) async throws -> Int {
        guard let cutoff = hydrationCutoff else { return 0 }
        var fetched = 0
        while true {
            let requests = try await store.emailsNeedingBodies(folderId: folder.id!, since: cutoff, limit: AccountSynchronizer.batchSize)
            guard !requests.isEmpty else { return fetched }
            fetched += try await fetchBodies(requests)
            progress(.syncingFolder(path: folder.path, done: fetched, total: fetched + requests.count))
        }
    }

    /// Fetches and stores the bodies of stored messages of the selected folder.
    func fetchBodies(_ requests: [BodyRequest]) async throws -> Int {
        var planned: [PlannedBody] = []
        var emailIds: [Int64: Int64] = [:]
        for request in requests {
            guard let structure = try? JSONDecoder().decode(MIMEPart.self, from: Data(request.bodyStructure.utf8)) else { continue }
            planned.append(PlannedBody(uid: request.uid, structure: structure, plan: BodyPlanner.plan(structure)))
            emailIds[request.uid] = request.emailId
        }
        let texts = try await fetchTexts(planned)
        // Unreadable structure, or gone from the server meanwhile: marked fetched (empty) so the loop
        // ends; deletion sync removes what is gone.
        let bodies = requests.map { request in
            texts[request.uid].map { Self.bodies(request.emailId, $0) }
                ?? FetchedBodies(emailId: request.emailId, plain: nil, html: nil, snippet: nil, truncated: false)
        }
        try await store.saveBodies(bodies)
        return bodies.count
    }

    /// The text parts of messages of the selected folder, by UID: only the parts BODYSTRUCTURE names,
    /// messages with the same part layout in one UID FETCH. A message the server no longer has is
    /// absent from the result.
    func fetchTexts(_ planned: [PlannedBody]) async throws -> [Int64: BodyText] {
        var texts: [Int64: BodyText] = [:]
        let groups = Dictionary(grouping: planned) { $0.plan.plainPartIds + ["|"] + $0.plan.htmlPartIds }
        for (_, members) in groups {
            let sections = members[0].plan.plainPartIds + members[0].plan.htmlPartIds
            let byUID = Dictionary(members.map { ($0.uid, $0) }, uniquingKeysWith: { first, _ in first })
            try await session.uidFetch(UIDSet(uids: members.map { UInt32($0.uid) }), items: sections.map { .section($0) }) { message in
                guard let uid = message.uid.map(Int64.init), let member = byUID[uid] else { return }
                texts[uid] = BodyText(structure: member.structure, plan: member.plan, sections: message.sections)
            }
        }
        return texts
    }

    /// An HTML-only message is searched and previewed by its text (FR-SYNC-04 Indexing: "HTML-stripped
    /// bodyHTML"), read by the same extractor `tern thread` shows HTML with: no head, styles or scripts.
    static func bodies(_ emailId: Int64, _ text: BodyText) -> FetchedBodies {
        var searchText: String?
        var snippet = text.snippet
        if text.plain == nil, let html = text.html {
            let extracted = HTMLTextExtractor.text(fromHTML: html)
            searchText = extracted
            snippet = ParsedMessage.previewSnippet(from: extracted)
        }
        return FetchedBodies(emailId: emailId, plain: text.plain, html: text.html, snippet: snippet, truncated: text.truncated, searchText: searchText)
    }
}

extension Folder {
    /// A STATUS answer that matches the state the last completed sync stored.
    func isUnchanged(_ status: [String: UInt64]) -> Bool {
        guard let validity = status["UIDVALIDITY"], let next = status["UIDNEXT"], let messages = status["MESSAGES"],
              let modSeq = status["HIGHESTMODSEQ"] else { return false }
        // A folder whose last sync skipped messages is synced again: they are retried.
        return uidValidity == Int64(validity) && uidNext == Int64(next) && serverMessageCount == Int64(messages)
            && highestModSeq == Int64(clamping: modSeq) && lastSyncError == nil
    }
}

extension IMAPCredentialSource {
    /// FR-SYNC-04 TokenRefresh: a rejected credential's refresh is a state of its own; the login is
    /// tried again with the new token (Authenticating), and a refresh that fails is the error.
    func reporting(to states: SyncStateReporter) -> IMAPCredentialSource {
        guard let refresh else { return self }
        return IMAPCredentialSource(current: current, refresh: {
            states.move(to: .tokenRefresh)
            let fresh = try await refresh()
            states.move(to: .authenticating)
            return fresh
        })
    }
}
