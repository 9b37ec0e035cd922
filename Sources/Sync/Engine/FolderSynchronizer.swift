import Foundation
import HTMLSafety
import IMAP
import MIME
import TernCore

/// One folder of one sync: its first sync (FR-SYNC-01 stages B and C), its incremental sync by
/// the folder's UID list or by QRESYNC (FR-SYNC-02), and older-mail paging (step 5). Fetching and
/// storing are in `FolderSynchronizer+Fetching.swift`.
struct FolderSynchronizer {
    let session: any SyncSession
    let store: any SyncStore
    let accountId: Account.ID
    let keepOrphans: Bool
    let since: Date
    let hydration: BodyHydrationPolicy
    let now: Date
    let progress: @Sendable (SyncProgress) -> Void
    /// FR-SYNC-01 stage D's pauses, asked between history batches (none: never paused).
    var catchUp: (any CatchUpPausing)? = nil

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
        var windowCount: Int?
        if page.count < min(pageSize, Int(selected.exists)) {
            let inWindow = try await session.uidSearch(.since(since)).map(Int64.init).sorted()
            windowCount = inWindow.count
            newest = Array(inWindow.suffix(max(budget, 0)))
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
        if newest == nil {
            let inWindow = try await session.uidSearch(.since(since)).map(Int64.init).sorted()
            windowCount = inWindow.count
            window = Array(inWindow.suffix(max(budget, 0)))
        }
        // Issue 35: the first sync's progress, headers stored of the sync window's.
        let total = max(windowCount ?? window.count, page.count)
        progress(.headersFetched(path: folder.path, fetched: page.count, total: total))
        // Newest batch first, so the backfill cursor only moves down and a crash leaves no gap.
        let rest = Array(window.filter { $0 < (page.first ?? .max) }.suffix(max(0, budget - page.count)))
        if !rest.isEmpty {
            try await fetchAndStore(
                rest, folder: folder, report: &report, cursor: .backfill,
                stored: { stored in progress(.headersFetched(path: folder.path, fetched: page.count + stored, total: total)) })
        }
    }

    /// SELECT (read-only); a new UIDVALIDITY resets the folder (FR-SYNC-02 step 5). With `qresync`,
    /// the server also reports what vanished and changed since that state (RFC 7162).
    func select(
        _ stored: Folder, mailbox: MailboxPath, qresync: (uidValidity: UInt32, modSeq: UInt64)? = nil,
        report: inout FolderSyncReport
    ) async throws -> (Folder, IMAPSession.SelectedMailbox) {
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
        // Issue 38: the sorted lists searched by bisection, not copied into sets (tens of MB at 1,000,000 UIDs).
        let older = serverUIDs.filter { $0 < lowest && Self.sortedContains(inWindowList, $0) }
        var paused: CatchUpPause?
        if !older.isEmpty {
            // Issue 35: the history still to fetch (stage D), as the first sync's progress.
            progress(.headersFetched(path: folder.path, fetched: inWindowList.count - older.count, total: inWindowList.count))
            try await fetchAndStore(
                older, folder: folder, report: &report, cursor: .backfill, bodies: true,
                continuing: {
                    paused = await catchUp?.pause(accountId: accountId)
                    return paused == nil
                }
            ) { stored in
                progress(.syncingFolder(path: folder.path, done: done + stored, total: total))
                progress(.headersFetched(path: folder.path, fetched: inWindowList.count - older.count + stored, total: inWindowList.count))
            }
            done += older.count
        }
        report.catchUpPaused = paused
        // Deletions (UID set difference) and the server's flags for what is stored (FR-SYNC-02, 05).
        let local = try await store.localUIDs(folderId: folder.id!)
        // FR-SYNC-01: a message an earlier sync failed to fetch was skipped (the folder noted it), and
        // the cursors moved past it; it is one in the window that the server has between those cursors
        // and the store lacks (UIDs do not follow dates: older mail outside the window lies between
        // them too). Fetched again here; the cursors only ever widen, so they stay where they are.
        if folder.lastSyncError != nil, let low = folder.backfillCursorUID, let high = folder.forwardCursorUID {
            let window = caughtUp ? Set(try await session.uidSearch(.since(since)).map(Int64.init)) : Set(inWindowList)
            let stored = Set(local)
            let skipped = serverUIDs.filter { $0 >= low && $0 <= high && window.contains($0) && !stored.contains($0) }
                .suffix(AccountSynchronizer.batchSize)
            if !skipped.isEmpty {
                let failedBefore = report.failedMessages
                try await fetchAndStore(Array(skipped), folder: folder, report: &report, cursor: .backfill, bodies: true)
                report.retriedMessages = skipped.count - (report.failedMessages - failedBefore)
            }
        }
        let gone = local.filter { !Self.sortedContains(serverUIDs, $0) }
        try await store.removeFromFolder(folder.id!, uids: gone, keepOrphans: keepOrphans)
        report.removed = gone.count
        // Issue 38: the flags of the messages this pass fetched came with their headers, after this SELECT; a
        // change since has a mod-sequence above the SELECT's HIGHESTMODSEQ, which `complete` stores for the next
        // sync's CHANGEDSINCE (or QRESYNC), and a server without CONDSTORE has every flag read again next time.
        // So only messages stored before this pass are asked: a first sync of 1,000,000 messages asked for every
        // flag again and held them all.
        let kept = local.filter {
            Self.sortedContains(serverUIDs, $0) && !Self.sortedContains(older, $0) && !Self.sortedContains(newer, $0)
        }
        // With CONDSTORE (RFC 7162; Gmail and Dovecot have it) an unchanged HIGHESTMODSEQ means no flag
        // changed since the last sync, and otherwise only what changed is fetched (CHANGEDSINCE).
        let knownModSeq = folder.highestModSeq.map { UInt64(clamping: $0) }
        let unchanged = knownModSeq != nil && knownModSeq == selected.highestModSeq
        if !kept.isEmpty, !unchanged {
            let changedSince = selected.highestModSeq == nil ? nil : knownModSeq
            // In chunks, each applied before the next is asked: memory stays flat in the folder's size (a sync
            // resumed after a kill has up to the whole folder stored before this pass).
            for start in stride(from: 0, to: kept.count, by: Self.flagChunkSize) {
                var states: [ServerFlagState] = []
                let chunk = kept[start..<min(start + Self.flagChunkSize, kept.count)]
                try await session.uidFetch(UIDSet(uids: chunk.map { UInt32($0) }), items: [.flags], changedSince: changedSince) { message in
                    if let uid = message.uid, let flags = message.flags {
                        states.append(ServerFlagState(uid: Int64(uid), flags: flags, modSeq: message.modSeq.map { Int64(clamping: $0) }))
                    }
                }
                report.flagChanges += try await store.applyServerFlags(states, folderId: folder.id!)
            }
        }
        // Background bodies (step 7's policy) wait with the history.
        if paused == nil { report.bodiesFetched += try await hydrateBodies(folder) }
        try await complete(folder, selected: selected, serverMessages: serverUIDs.count, report: report) { state in
            state.initialFastCompleted = true
            state.catchUpStatus = paused == nil ? .completed : .paused
            state.reachedServerHistoryBoundary = paused == nil && older.count == serverUIDs.filter { $0 < lowest }.count
        }
    }

    /// UIDs per flag FETCH of stored messages (issue 38: bounded memory at any folder size).
    static let flagChunkSize = 50_000

    /// Whether ascending `uids` holds `uid` (binary search: the lists are a folder's whole history).
    static func sortedContains(_ uids: [Int64], _ uid: Int64) -> Bool {
        var low = 0
        var high = uids.count
        while low < high {
            let middle = (low + high) / 2
            if uids[middle] < uid { low = middle + 1 } else { high = middle }
        }
        return low < uids.count && uids[low] == uid
    }

    /// The end of a folder's sync: the server's state as this SELECT saw it, what could not be
    /// fetched (retried next time), and `adjust`'s changes, stored over the folder as it is now.
    func complete(
        _ folder: Folder, selected: IMAPSession.SelectedMailbox, serverMessages: Int, report: FolderSyncReport,
        adjust: (inout Folder) -> Void = { _ in }
    ) async throws {
        var state = try await store.folders(accountId: accountId).first { $0.id == folder.id } ?? folder
        state.uidNext = selected.uidNext.map(Int64.init)
        state.highestModSeq = selected.highestModSeq.map { Int64(clamping: $0) }
        state.serverMessageCount = Int64(serverMessages)
        state.lastSyncDate = Date()
        state.lastSyncError =
            report.failedMessages > 0
            ? "\(report.failedMessages) message\(report.failedMessages == 1 ? "" : "s") could not be fetched; retried at the next sync" : nil
        adjust(&state)
        try await store.updateFolderState(state)
    }

    /// RFC 7162 QRESYNC: the state a caught-up folder was left in, which the server compares its own
    /// with. Not for a folder with messages still to retry: the full path finds those.
    static func resynchronization(of folder: Folder) -> (uidValidity: UInt32, modSeq: UInt64)? {
        guard folder.catchUpStatus == .completed, folder.forwardCursorUID != nil, folder.backfillCursorUID != nil,
            folder.lastSyncError == nil, let validity = folder.uidValidity, let modSeq = folder.highestModSeq,
            validity > 0, validity <= Int64(UInt32.max), modSeq > 0
        else { return nil }
        return (UInt32(validity), UInt64(modSeq))
    }

    /// FR-SYNC-02 incremental on a server with QRESYNC (Dovecot, Cyrus, Fastmail; not Gmail): the
    /// SELECT itself said which messages vanished and whose flags changed since the last sync, so
    /// the folder's whole UID list (`UID SEARCH ALL`, 600 KB for 100,000 messages) is not asked for
    /// and no flags are fetched; only the UIDs above the forward cursor are searched, when UIDNEXT
    /// says there are any.
    func resynchronize(
        _ folder: Folder, selected: IMAPSession.SelectedMailbox, report: inout FolderSyncReport,
        firstPageStored: () -> Void
    ) async throws {
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
        // Issue 38: the stored UIDs are read only when the server named some as vanished: every IDLE event
        // read and sorted all of them (332,000 in a 20-year Inbox) to intersect them with an empty set.
        let local = selected.vanished.isEmpty ? [] : try await store.localUIDs(folderId: folder.id!)
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
        try await complete(folder, selected: selected, serverMessages: Int(selected.exists), report: report)
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
}
