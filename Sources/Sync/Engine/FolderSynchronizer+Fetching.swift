import Foundation
import HTMLSafety
import IMAP
import MIME
import TernCore

/// A message whose text parts are to be fetched: its part structure and what to fetch of it.
struct PlannedBody {
    let uid: Int64
    let structure: MIMEPart
    let plan: BodyPlan
}

/// Fetching and storing: headers in batches with their cursor, and the bodies the hydration policy covers.
extension FolderSynchronizer {
    enum Cursor { case forward, backfill }

    /// FR-SYNC-01 step 7 under the account's policy: whether a message received at `date` gets its
    /// bodies without waiting for the thread to be opened.
    func hydrates(receivedAt date: Date) -> Bool { hydrationCutoff.map { date >= $0 } ?? false }

    /// FR-SYNC-01 step 7: the oldest date the account's policy fetches bodies for (`distantPast` for
    /// all), nil when it fetches none ahead of opening.
    var hydrationCutoff: Date? { Self.hydrationCutoff(hydration, now: now) }

    static func hydrationCutoff(_ hydration: BodyHydrationPolicy, now: Date) -> Date? {
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
    /// Issue 38: a batch's headers are fetched together, its texts and its writes in runs bounded by
    /// the texts' bytes too (`TextBatches`), each run stored with the cursor it completes, so memory
    /// stays flat whatever the messages' sizes and a kill still refetches at most one batch.
    /// `continuing` is asked before each batch (FR-SYNC-01 stage D: pausable): when it says no, what
    /// was fetched is stored and the rest is left for later; the cursors say where to resume.
    func fetchAndStore(
        _ uids: [Int64], folder: Folder, report: inout FolderSyncReport, cursor: Cursor, bodies: Bool = false,
        continuing: () async -> Bool = { true }, stored: (Int) -> Void = { _ in }
    ) async throws {
        var pendingWrite: Task<StoredBatch, any Error>?
        do {
            try await fetchAndStore(
                uids, folder: folder, report: &report, cursor: cursor, bodies: bodies, continuing: continuing, stored: stored,
                pendingWrite: &pendingWrite)
        } catch {
            // A failed fetch must not leave a write running behind the caller's back: what was fetched
            // before it is stored (its cursor with it), so the next sync asks only for the rest.
            if let previous = pendingWrite { _ = try? await previous.value }
            throw error
        }
    }

    private func fetchAndStore(
        _ uids: [Int64], folder: Folder, report: inout FolderSyncReport, cursor: Cursor, bodies: Bool,
        continuing: () async -> Bool, stored: (Int) -> Void, pendingWrite: inout Task<StoredBatch, any Error>?
    ) async throws {
        let size = AccountSynchronizer.batchSize
        var starts = Array(stride(from: 0, to: uids.count, by: size))
        if cursor == .backfill { starts.reverse() }
        var storedCount = 0
        for (number, start) in starts.enumerated() {
            guard await continuing() else {
                if let previous = pendingWrite {
                    pendingWrite = nil
                    Self.add(try await previous.value, to: &report)
                    stored(storedCount)
                }
                return
            }
            let slice = uids[start..<min(start + size, uids.count)]
            let isLast = number == starts.count - 1
            let batch = try await fetchHeaders(slice, bodies: bodies)
            report.failedMessages += slice.count - batch.messages.count
            var covered = 0
            for run in batch.runs(cursor: cursor, slice: slice) {
                var incoming = try await withTexts(batch, run.indices)
                report.bodiesFetched += incoming.count { $0.email.bodyPlain != nil || $0.email.bodyHTML != nil }
                // The run is written while the next one is fetched (the server works while we store); writes
                // stay in order, one at a time, each with its cursor, so a kill still leaves no gap.
                if let previous = pendingWrite {
                    Self.add(try await previous.value, to: &report)
                    stored(storedCount)
                }
                let store = store
                let folderId = folder.id!
                let cursorUID = cursor == .forward ? run.bound : nil
                let backfillUID = cursor == .forward ? slice.first : run.bound
                pendingWrite = Task { [incoming] in
                    try await store.store(incoming, folderId: folderId, cursorUID: cursorUID, backfillCursorUID: backfillUID)
                }
                incoming = []
                let runCovers = run.isLast ? slice.count - covered : run.indices.count
                covered += runCovers
                storedCount += runCovers
            }
            if isLast {
                Self.add(try await pendingWrite!.value, to: &report)
                pendingWrite = nil
                stored(storedCount)
            }
        }
    }

    /// One batch's headers, flags, dates, sizes and part structure, as Emails to store (without
    /// bodies), with the text parts to fetch of those the hydration policy covers when `bodies`.
    func fetchHeaders(_ slice: ArraySlice<Int64>, bodies: Bool) async throws -> HeaderBatch {
        var batch = HeaderBatch()
        let parser = MessageParser()
        try await session.uidFetch(UIDSet(uids: slice.map { UInt32($0) }), items: AccountSynchronizer.headerItems, changedSince: nil) { message in
            guard let uid = message.uid, let header = message.section("HEADER") else { return }
            let parsed = parser.parse(header)
            var email = parsed.email(
                accountId: accountId, internalDate: message.internalDate ?? Date(timeIntervalSince1970: 0),
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
                    Attachment(
                        emailId: 0, partId: info.partId, filename: info.filename, mimeType: info.mimeType,
                        sizeBytes: Int64(info.sizeBytes), contentId: info.contentId, isInline: info.isInline,
                        transferEncoding: info.transferEncoding)
                }
                if plan.plainPartIds.isEmpty, plan.htmlPartIds.isEmpty {
                    email.bodiesFetched = true // nothing to fetch
                } else if bodies, hydrates(receivedAt: email.dateReceived) {
                    batch.planned[batch.messages.count] = PlannedBody(uid: Int64(uid), structure: structure, plan: plan)
                }
            }
            batch.structures.append(message.bodyStructure)
            batch.messages.append(
                IncomingMessage(
                    email: email, uid: Int64(uid), modSeq: message.modSeq.map { Int64(clamping: $0) },
                    serverFlags: message.flags ?? [], attachments: attachments))
        }
        return batch
    }

    /// The messages of `batch` at `indices`, with the texts of those planned fetched; the others keep
    /// their part structure for the fetch that comes later (when the thread is opened, or by hydration).
    func withTexts(_ batch: HeaderBatch, _ indices: [Int]) async throws -> [IncomingMessage] {
        let planned = indices.compactMap { batch.planned[$0] }
        let texts = planned.isEmpty ? [:] : try await fetchTexts(planned)
        return indices.map { index in
            var message = batch.messages[index]
            if let planned = batch.planned[index], let text = texts[planned.uid] {
                let fetched = Self.bodies(0, text)
                message.email.bodyPlain = fetched.plain
                message.email.bodyHTML = fetched.html
                message.email.snippet = fetched.snippet
                message.email.bodyTruncated = fetched.truncated
                message.email.bodiesFetched = true
                message.searchText = fetched.searchText
            } else if !message.email.bodiesFetched, let structure = batch.structures[index] {
                message.email.bodyStructure = (try? JSONEncoder().encode(structure)).map { String(decoding: $0, as: UTF8.self) }
            }
            return message
        }
    }

    static func add(_ batch: StoredBatch, to report: inout FolderSyncReport) {
        report.inserted += batch.inserted
        report.linked += batch.linked
        report.newMessages += batch.newMessages.prefix(max(0, 50 - report.newMessages.count))
    }

    /// Whether the policy still wants bodies of this folder's stored messages.
    /// Whether the policy still wants bodies the folder lacks: an unchanged folder is synced anyway then.
    static func bodiesPending(_ folder: Folder, store: any SyncStore, cutoff: Date?) async throws -> Bool {
        guard let cutoff else { return false }
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
    /// Issue 38: in runs bounded by their texts' bytes (`TextBatches`), each stored before the next is asked.
    func fetchBodies(_ requests: [BodyRequest]) async throws -> Int {
        var planned: [PlannedBody?] = []
        for request in requests {
            let structure = try? JSONDecoder().decode(MIMEPart.self, from: Data(request.bodyStructure.utf8))
            planned.append(structure.map { PlannedBody(uid: request.uid, structure: $0, plan: BodyPlanner.plan($0)) })
        }
        var fetched = 0
        for run in TextBatches.runs(planned.map { $0?.textBytes ?? 0 }, count: AccountSynchronizer.batchSize, bytes: TextBatches.maximumBytes) {
            fetched += try await fetchBodies(Array(requests[run]), planned: planned[run].compactMap { $0 })
        }
        return fetched
    }

    private func fetchBodies(_ requests: [BodyRequest], planned: [PlannedBody]) async throws -> Int {
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
            try await session.uidFetch(UIDSet(uids: members.map { UInt32($0.uid) }), items: sections.map { .section($0) }, changedSince: nil) {
                message in
                guard let uid = message.uid.map(Int64.init), let member = byUID[uid] else { return }
                texts[uid] = BodyText(structure: member.structure, plan: member.plan, sections: message.sections)
            }
        }
        return texts
    }

    /// An HTML-only message is searched and previewed by its text (FR-SYNC-04 Indexing: "HTML-stripped
    /// bodyHTML"), read by the same extractor `tern thread` shows HTML with: no head, styles or scripts.
    static func bodies(_ emailId: EmailID, _ text: BodyText) -> FetchedBodies {
        var searchText: String?
        var snippet = text.snippet
        if text.plain == nil, let html = text.html {
            let extracted = HTMLTextExtractor.text(fromHTML: html)
            searchText = extracted
            snippet = ParsedMessage.previewSnippet(from: extracted)
        }
        return FetchedBodies(
            emailId: emailId, plain: text.plain, html: text.html, snippet: snippet, truncated: text.truncated, searchText: searchText)
    }
}
