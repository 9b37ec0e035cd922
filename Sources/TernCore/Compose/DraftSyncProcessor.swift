import Foundation
import Synchronization

/// Brings the server's Drafts mailbox in line with the local drafts, in `LocalChangesPusher`'s pass
/// (FR-COMP-01 "Draft lifecycle", FR-SYNC-05): new revisions uploaded, discarded and sent drafts
/// removed, and synced drafts compared with the server, whose version wins when another client
/// changed it (FR-COMP-01 "Conflict").
///
/// Order on the server (docs/decisions.md, "Drafts on the server"): the new version is appended
/// first, then every other copy with the draft's Message-ID is removed. A crash between the two
/// leaves two versions until the next pass removes the older; the other order could leave none
/// while the local copy exists.
public struct DraftSyncProcessor: Sendable {
    let store: any DraftStore
    let server: any DraftMailboxServer
    let coding: any DraftMessageCoding
    let attachments: any ComposeAttachmentLoading
    let folders: any MailActionStore
    let changes: ChangeFeed?
    let clock: any WallClock
    /// The local copies of a draft's attachments, removed with the draft: a sent draft's stay until
    /// its message is sent (issue 34), and this pass is where it goes.
    let files: (any DraftFiles)?

    /// Synced drafts are compared with the server at most this often per account and process (the
    /// watch loop pushes every 5 s); a new process (`tern sync`) compares at its first pass.
    public static let defaultCheckInterval: Duration = .seconds(60)
    let checkInterval: Duration
    let lastChecks = LastChecks()

    /// Retries back off to at most 15 minutes and never give up: a draft stays local until it is on the server.
    public static let retryDelays: [Duration] = [.seconds(5), .seconds(15), .seconds(45), .seconds(120), .seconds(300), .seconds(900)]

    public init(
        store: any DraftStore, server: any DraftMailboxServer, coding: any DraftMessageCoding, attachments: any ComposeAttachmentLoading,
        folders: any MailActionStore, changes: ChangeFeed? = nil, clock: any WallClock = SystemClock(),
        checkInterval: Duration = DraftSyncProcessor.defaultCheckInterval, files: (any DraftFiles)? = nil
    ) {
        self.files = files
        self.checkInterval = checkInterval
        self.store = store
        self.server = server
        self.coding = coding
        self.attachments = attachments
        self.folders = folders
        self.changes = changes
        self.clock = clock
    }

    public func process(account: Account, credentials: CredentialSupply, ignoreBackoff: Bool = false) async throws -> DraftSyncReport {
        let now = clock.now()
        let due = try await store.due(accountId: account.id, at: now, ignoreBackoff: ignoreBackoff)
        let checking = lastChecks.claim(account.id, at: now, every: checkInterval, force: ignoreBackoff)
        let synced = checking ? try await store.synced(accountId: account.id) : []
        var report = DraftSyncReport()
        guard !due.isEmpty || !synced.isEmpty else { return report }

        var requests: [DraftServerRequest] = []
        var revisions: [Draft.ID: Draft] = [:]
        for draft in due {
            revisions[draft.id] = draft
            switch draft.sync.state {
            case .removing:
                requests.append(DraftServerRequest(draftId: draft.id, messageId: draft.messageId, action: .remove))
            case .pending, .synced:
                do {
                    requests.append(
                        DraftServerRequest(
                            draftId: draft.id, messageId: draft.messageId,
                            action: .upload(raw: try await bytes(of: draft), date: draft.updatedDate, known: draft.serverCopy)))
                } catch {
                    try await failed(draft, "\(error)", report: &report)
                }
            }
        }
        for draft in synced where revisions[draft.id] == nil {
            guard let known = draft.serverCopy else { continue }
            revisions[draft.id] = draft
            requests.append(DraftServerRequest(draftId: draft.id, messageId: draft.messageId, action: .check(known: known)))
        }
        guard !requests.isEmpty else { return report }

        let draftsMailbox = try await folders.folders(accountId: account.id).first { $0.folderType == .drafts }?.path
        var outcomes: [Draft.ID: DraftServerOutcome] = [:]
        var connectionError: String?
        var needsPerson = false
        do {
            outcomes = try await server.perform(requests, draftsMailbox: draftsMailbox, account: account, credentials: credentials)
        } catch {
            connectionError = "\(error)"
            needsPerson = (error as? TernError)?.needsPerson == true
        }
        for request in requests {
            guard let draft = revisions[request.draftId] else { continue }
            switch outcomes[request.draftId] ?? .failed(connectionError ?? "the server did not answer") {
            case .uploaded(let copy):
                try await store.recordUploaded(id: draft.id, revision: draft.revision, copy: copy)
                report.uploaded += 1
            case .removed:
                try await store.delete(id: draft.id)
                files?.removeAll(key: draft.messageId)
                report.removed += 1
            case .unchanged:
                break
            case .changedOnServer(let raw, let copy):
                let content = merged(coding.decode(raw), into: draft.content)
                try await store.replaceFromServer(id: draft.id, content: content, copy: copy, at: now)
                report.changedOnServer.append(draft.id)
                changes?.publish(.draftChangedOnServer(draftId: draft.id))
            case .deletedOnServer:
                try await store.delete(id: draft.id)
                report.deletedOnServer.append(draft.id)
            case .failed(let text):
                if case .check = request.action {
                    report.failed.append(text)
                } else {
                    try await failed(draft, text, report: &report, waitingForPerson: needsPerson)
                }
            }
        }
        if report.uploaded + report.removed + report.changedOnServer.count + report.deletedOnServer.count > 0 { changes?.publish(.draftsChanged) }
        return report
    }

    /// The bytes of the draft's current revision, with its attachments (those not local yet are left
    /// out of the server copy until they are; the local draft keeps them).
    func bytes(of draft: Draft) async throws -> [UInt8] {
        var loaded: [OutgoingAttachment] = []
        for attachment in draft.content.attachments {
            if let bytes = try? await attachments.load(attachment) { loaded.append(bytes) }
        }
        return try coding.encode(draft.content, messageId: draft.messageId, attachments: loaded, date: draft.updatedDate)
    }

    /// The server's version of the fields another client edits; the composer's own context (mode,
    /// the original replied to, the account) stays. Attachments stay only those the server's version
    /// still carries (by name).
    func merged(_ decoded: DecodedDraft, into local: ComposeDraft) -> ComposeDraft {
        var content = local
        if let from = decoded.from { content.from = from }
        content.to = decoded.to
        content.cc = decoded.cc
        content.bcc = decoded.bcc
        content.subject = decoded.subject
        content.body = decoded.body
        content.inReplyTo = decoded.inReplyTo
        content.references = decoded.references
        let names = Set(decoded.attachmentNames)
        content.attachments = local.attachments.filter { names.contains($0.filename) }
        return content
    }

    /// A refused sign-in (`waitingForPerson`) waits the longest delay rather than the next one: the
    /// draft stays local and a pass that ignores the backoff (after `tern account login`) uploads it.
    func failed(_ draft: Draft, _ text: String, report: inout DraftSyncReport, waitingForPerson: Bool = false) async throws {
        let attempts = draft.sync.attempts + 1
        let delay = waitingForPerson ? Self.retryDelays[Self.retryDelays.count - 1] : Self.retryDelays[min(attempts, Self.retryDelays.count) - 1]
        try await store.recordSyncFailure(id: draft.id, error: text, attempts: attempts, notBefore: clock.now().adding(delay))
        report.failed.append(text)
    }
}

/// When each account's synced drafts were last compared with the server, in this process.
final class LastChecks: Sendable {
    private let dates = Mutex<[Account.ID: Date]>([:])

    /// True (and recorded) when the account is due a comparison.
    func claim(_ account: Account.ID, at now: Date, every interval: Duration, force: Bool) -> Bool {
        dates.withLock { dates in
            if !force, let last = dates[account], now.timeIntervalSince(last) < interval.inSeconds { return false }
            dates[account] = now
            return true
        }
    }
}

public struct DraftSyncReport: Sendable, Hashable, Codable {
    public var uploaded = 0
    public var removed = 0
    public var changedOnServer: [Draft.ID] = []
    public var deletedOnServer: [Draft.ID] = []
    public var failed: [String] = []

    public init() {}
}
