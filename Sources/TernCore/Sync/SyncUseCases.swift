import Foundation

/// `tern sync [ACCOUNT]`: every active account, or the one named.
public struct SyncAccountsUseCase: Sendable {
    let accounts: any AccountRepository
    let credentials: AccountCredentials
    let synchronizer: any MailSynchronizing
    /// Local changes and queued mail go to the server before each sync pulls (push, then pull: a
    /// message archived offline is not fetched back as new).
    let pusher: LocalChangesPusher?
    /// Where a live front end learns what the engine changed (sync states, new mail, folders done).
    let changes: ChangeFeed?
    /// E-10, E-11: a change the server refused on a push made here (a retry come due, a change
    /// another process queued) is reported as when the action pushed it itself.
    let failedChanges: MailActionsUseCase?
    /// `tern status`: the states reported, written for other processes to read.
    let statuses: (any SyncStatusStore)?
    let processId: Int32
    /// While the send queue waits only for its server, the network coming back makes the watch try
    /// at once (issue 34, FR-SYNC-07).
    let networkReturns: any NetworkReturnSignal

    public init(
        accounts: any AccountRepository, credentials: AccountCredentials, synchronizer: any MailSynchronizing,
        pusher: LocalChangesPusher? = nil, changes: ChangeFeed? = nil, failedChanges: MailActionsUseCase? = nil,
        statuses: (any SyncStatusStore)? = nil, processId: Int32 = 0,
        networkReturns: any NetworkReturnSignal = NoNetworkReturnSignal()
    ) {
        self.networkReturns = networkReturns
        self.accounts = accounts
        self.credentials = credentials
        self.synchronizer = synchronizer
        self.pusher = pusher
        self.changes = changes
        self.failedChanges = failedChanges
        self.statuses = statuses
        self.processId = processId
    }

    /// Runs `body` with the account's progress also recorded for `tern status`, every record
    /// written before it returns.
    func recording<Result: Sendable>(
        _ account: Account, _ progress: @escaping @Sendable (SyncProgress) -> Void,
        _ body: (@escaping @Sendable (SyncProgress) -> Void) async throws -> Result
    ) async throws -> Result {
        guard let statuses else { return try await body(progress) }
        let recorder = SyncStatusRecorder(store: statuses, accountId: account.id, processId: processId)
        do {
            let result = try await body { event in
                recorder.observe(event)
                progress(event)
            }
            await recorder.finish()
            return result
        } catch {
            await recorder.finish()
            throw error
        }
    }

    /// `SyncEngineRunner` tries every account (or the one named) again at `date` after its run failed
    /// (FR-SYNC-04 Error → Idle): the error state on the change feed and for `tern status`. The
    /// accounts' names, for the front end's own report.
    @discardableResult
    public func retryScheduled(at date: Date, reason: String, account name: AccountName? = nil) async -> [AccountName] {
        let selected = (try? await accounts(named: name).filter(\.isActive)) ?? []
        for account in selected {
            changes?.publish(.syncState(accountId: account.id, state: .error, detail: reason))
            try? await statuses?.record(.state(.error, detail: reason), accountId: account.id, at: Date(), processId: processId)
            try? await statuses?.record(.retryScheduled(at: date, reason: reason), accountId: account.id, at: Date(), processId: processId)
        }
        return selected.map(\.name)
    }

    /// The engine's progress for one account, also published on the change feed.
    func reporting(_ account: Account, to progress: @escaping @Sendable (SyncProgress) -> Void) -> @Sendable (SyncProgress) -> Void {
        guard let changes else { return progress }
        let headers = HeaderProgressTally()
        return { event in
            progress(event)
            switch event {
            case .state(_, let state, let detail): changes.publish(.syncState(accountId: account.id, state: state, detail: detail))
            case .firstPageReady, .folderDone: changes.publish(.threadsChanged(accountId: account.id))
            case .headersFetched(let path, let fetched, let total):
                changes.publish(.headerProgress(headers.record(accountId: account.id, path: path, fetched: fetched, total: total)))
            case .newMail(_, let messages):
                changes.publish(.newMail(accountId: account.id, accountName: account.name, count: messages.count))
                let unread = messages.filter { $0.inInbox && !$0.isRead }
                if !unread.isEmpty { changes.publish(.inboxArrivals(accountId: account.id, messages: unread)) }
                changes.publish(.threadsChanged(accountId: account.id))
            case .pushed(_, let report):
                for emailId in report.queue.sent { changes.publish(.sendOutcome(emailId: emailId, state: .sent, error: nil)) }
                for failure in report.queue.failed {
                    changes.publish(.sendOutcome(emailId: failure.emailId, state: .failed, error: failure.error))
                }
                changes.publish(.outboxChanged(accountId: account.id))
                changes.publish(.threadsChanged(accountId: account.id))
            case .retryScheduled(_, let date, let reason):
                changes.publish(.syncState(accountId: account.id, state: .error, detail: "\(reason); retrying at \(date.formatted(.iso8601))"))
            default: break
            }
        }
    }

    /// `bodies` overrides the accounts' body policy for this run (`tern sync --bodies all`).
    public func callAsFunction(
        account name: AccountName?, bodies: BodyHydrationPolicy? = nil,
        progress: @escaping @Sendable (SyncProgress) -> Void
    ) async throws -> [SyncReport] {
        let selected = try await accounts(named: name)
        if let inactive = selected.first(where: { !$0.isActive }) { throw TernError.authenticationExpired(inactive.name.rawValue) }
        // Each account has its own engine and connection: they sync at the same time.
        return try await withThrowingTaskGroup(of: (Int, SyncReport).self) { group in
            for (index, selectedAccount) in selected.enumerated() {
                var account = selectedAccount
                if let bodies { account.bodyHydration = bodies }
                let supply = credentials.supply(for: account)
                let report = reporting(account, to: progress)
                group.addTask { [synchronizer, pusher, failedChanges, announce = report] in
                    var pushed: PushReport?
                    if let pusher { pushed = try? await pusher.push(account: account) }
                    if let pushed { await Self.reportFailures(pushed, account: account, to: failedChanges) }
                    // Issue 36: Send later messages whose time passed while nothing ran went out in this push: said.
                    if let pushed, !pushed.queue.sentLate.isEmpty { announce(.pushed(account: account.name, pushed)) }
                    var report = try await recording(account, report) { progress in
                        try await synchronizer.sync(account: account, credentials: supply, progress: progress)
                    }
                    report.pushed = pushed
                    return (index, report)
                }
            }
            var reports: [(Int, SyncReport)] = []
            for try await result in group { reports.append(result) }
            return reports.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// The account named, or every active account.
    public func accounts(named name: AccountName?) async throws -> [Account] {
        guard let name else { return try await accounts.allAccounts().filter(\.isActive) }
        guard let account = try await accounts.account(named: name) else { throw TernError.notFound("account '\(name)'") }
        return [account]
    }

    /// `tern sync --watch`: after the sync, every active account (or the one named) is watched until cancelled.
    public func watch(account name: AccountName?, progress: @escaping @Sendable (SyncProgress) -> Void) async throws {
        let selected = try await accounts(named: name)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for account in selected {
                let supply = credentials.supply(for: account)
                let report = reporting(account, to: progress)
                group.addTask {
                    try await recording(account, report) { progress in
                        try await synchronizer.watch(account: account, credentials: supply, progress: progress)
                    }
                }
                if let pusher {
                    group.addTask { [failedChanges, networkReturns] in
                        try await Self.keepPushing(
                            account: account, pusher: pusher, networkReturns: networkReturns, progress: report
                        ) { pushed in
                            await Self.reportFailures(pushed, account: account, to: failedChanges)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// While watching: local changes and queued mail go out as they become due (retries on their
    /// schedules), and what another `tern` process queued is picked up within `pollInterval`. While
    /// queued mail waits on a backoff, the network coming back ends the wait and the next pass tries
    /// at once what waits only for its server (issue 34: it waited up to its 30 s recheck).
    static func keepPushing(
        account: Account, pusher: LocalChangesPusher, pollInterval: Duration = .seconds(5),
        networkReturns: any NetworkReturnSignal = NoNetworkReturnSignal(),
        progress: @escaping @Sendable (SyncProgress) -> Void,
        pushed: @Sendable (PushReport) async -> Void = { _ in }
    ) async throws {
        var networkCameBack = false
        networkReturns.startListening()
        while !Task.isCancelled {
            var wait = pollInterval
            let returnsSeen = networkReturns.returnsHeard
            var waitsForNetwork = false
            if let report = try? await pusher.push(account: account, retryUnreachableNow: networkCameBack) {
                await pushed(report)
                if !report.queue.sent.isEmpty || !report.queue.failed.isEmpty { progress(.pushed(account: account.name, report)) }
                if let next = LocalChangesPusher.nextDue(report) {
                    wait = min(wait, .milliseconds(max(10, Int64(next.timeIntervalSinceNow * 1000))))
                }
                waitsForNetwork = Self.waitsOnBackoff(report)
            }
            networkCameBack = false
            if waitsForNetwork {
                networkCameBack = try await networkReturns.cutShort({ [wait] in try await Task.sleep(for: wait) }, onReturnBeyond: returnsSeen)
            } else {
                try await Task.sleep(for: wait)
            }
        }
    }

    /// Whether queued mail waits on a backoff: when the network comes back, what waits only for its
    /// server is tried at once (as `tern outbox flush` does); a retry after a refusal keeps its time.
    static func waitsOnBackoff(_ report: PushReport) -> Bool {
        report.queue.waiting > 0
    }
}

extension SyncAccountsUseCase {
    static func reportFailures(_ report: PushReport, account: Account, to failedChanges: MailActionsUseCase?) async {
        guard let failedChanges, !report.changes.failedOperationIds.isEmpty else { return }
        try? await failedChanges.publishFailures(report.changes, accountId: account.id)
    }
}

/// FR-SYNC-01 step 5: older mail on demand, when the local pages of a folder are exhausted.
public struct LoadOlderMailUseCase: Sendable {
    let accounts: any AccountRepository
    let credentials: AccountCredentials
    let synchronizer: any MailSynchronizing
    let folders: any SyncStore

    public init(
        accounts: any AccountRepository, credentials: AccountCredentials, synchronizer: any MailSynchronizing,
        folders: any SyncStore
    ) {
        self.accounts = accounts
        self.credentials = credentials
        self.synchronizer = synchronizer
        self.folders = folders
    }

    /// The context guards come first: no paging in the unified inbox (no account), in a virtual
    /// folder (`folder` nil or a `VirtualMailbox` name), or while searching.
    public func callAsFunction(account name: AccountName?, folder: String?, searching: Bool = false) async throws -> OlderMailResult {
        guard let name else { return .notApplicable(reason: "the unified inbox spans accounts: pick one") }
        guard !searching else { return .notApplicable(reason: "search results are not paged from the server") }
        guard let folder, VirtualMailbox(rawValue: folder.lowercased()) == nil else {
            return .notApplicable(reason: "only a server folder has older mail on the server")
        }
        guard let account = try await accounts.account(named: name) else { throw TernError.notFound("account '\(name)'") }
        guard account.isActive else { throw TernError.authenticationExpired(account.name.rawValue) }
        // FR-SYNC-01 step 5: a folder whose whole history is stored answers from the store; the
        // server is not asked again (offline too). New mail only ever comes above, by UID.
        if try await folders.folders(accountId: account.id).first(where: { $0.path == folder })?.reachedServerHistoryBoundary == true {
            return .reachedBoundary(serverHistory: true)
        }
        return try await synchronizer.loadOlder(account: account, folderPath: folder, credentials: credentials.supply(for: account))
    }
}
