import Foundation
import GRDB
import MIME
import Synchronization
import TernCore
import TernRuntime
import Testing

@testable import MailStore

/// FR-COMP-01 "Draft lifecycle" and FR-COMP-02 on the real store, with the Drafts mailbox and SMTP
/// scripted (the live ones are tested against Dovecot and Postfix in SystemTests/integration/test_drafts.py).
struct DraftTests {
    let database: TernDatabase
    let account = Fixtures.account()
    let clock = ManualClock()
    let holds = MemoryHolds()
    let mailbox = ScriptedDraftMailbox()
    let submitter = ScriptedSubmitter()
    let changes = ChangeFeed()
    let drafts: DraftsUseCase
    let pusher: LocalChangesPusher
    let store: SQLiteDraftStore

    init() throws {
        database = try TernDatabase.temporary()
        try database.writer.write { [account] db in
            try account.insert(db)
            var sent = Folder(accountId: account.id, path: "Sent", folderType: .sent)
            try sent.insert(db)
            var drafts = Folder(accountId: account.id, path: "Drafts", folderType: .drafts)
            try drafts.insert(db)
        }
        store = SQLiteDraftStore(database: database)
        let actions = SQLiteMailActionStore(database: database)
        let outboxStore = SQLiteOutboxStore(database: database)
        pusher = LocalChangesPusher(
            credentials: .unusable, operations: PendingOperationProcessor(store: actions, server: ScriptedServer(), clock: clock),
            queue: SendQueueProcessor(
                store: outboxStore, submitter: submitter, server: ScriptedServer(), folders: actions, clock: clock,
                holds: holds, drafts: store),
            drafts: DraftSyncProcessor(
                store: store, server: mailbox, coding: DraftMessageCodec(), attachments: FileAttachments(), folders: actions,
                changes: changes, clock: clock),
            lock: NoLocks())
        let accounts = SQLiteAccountRepository(database: database)
        let outbox = OutboxUseCase(
            accounts: accounts, composer: OutgoingMessageComposer(), store: outboxStore, pusher: pusher, clock: clock,
            holds: holds)
        drafts = DraftsUseCase(
            accounts: accounts, store: store, coding: DraftMessageCodec(), files: KeptInPlace(), attachments: FileAttachments(),
            validation: ComposeValidationUseCase(syntax: MIMEMailSyntax()), outbox: outbox, pusher: pusher, changes: changes,
            clock: clock)
    }

    func message(_ subject: String, body: String = "Hello.") -> ComposeDraft {
        ComposeDraft(
            mode: .new, accountId: account.id, from: EmailAddress(name: "Work", address: account.emailAddress),
            to: [EmailAddress(name: nil, address: "bob@example.org")], subject: subject, body: body)
    }

    func push() async throws -> PushReport { try await pusher.push(account: account) }

    @Test func aSaveIsLocalAndIdempotentAndAnEmptyComposerCreatesNothing() async throws {
        let empty = ComposeDraft(mode: .new, accountId: account.id, from: EmailAddress(name: nil, address: account.emailAddress))
        #expect(try await drafts.save(empty) == nil)
        let first = try #require(try await drafts.save(message("Plan")))
        #expect(first.revision == 1 && first.changed)
        let same = try #require(try await drafts.save(message("Plan"), id: first.draftId))
        #expect(same.revision == 1 && !same.changed)
        let edited = try #require(try await drafts.save(message("Plan", body: "Hello again."), id: first.draftId))
        #expect(edited.revision == 2 && edited.changed)
        let listed = try await drafts.list()
        #expect(listed.compactMap(\.localDraftId) == [first.draftId] && listed.first?.origin == .local && listed.first?.sync == .pending)
        #expect(mailbox.requests.isEmpty, "a save never waits for the server")
    }

    @Test func thePassUploadsEachRevisionReplacingTheLastAndRemovesDiscardedDrafts() async throws {
        let saved = try #require(try await drafts.save(message("Upload")))
        mailbox.answer { request in
            if case .upload = request.action { return .uploaded(DraftServerCopy(mailbox: "Drafts", uid: 7, uidValidity: 1)) }
            return .unchanged
        }
        #expect(try await push().drafts.uploaded == 1)
        var draft = try await drafts.open(saved.draftId)
        #expect(draft.sync.state == .synced && draft.serverCopy?.uid == 7)
        guard case .upload(let raw, _, nil) = mailbox.requests.last?.action else {
            Issue.record("no first upload")
            return
        }
        let decoded = DraftMessageCodec().decode(raw)
        #expect(decoded.subject == "Upload" && decoded.body.trimmingCharacters(in: .newlines) == "Hello.")

        _ = try await drafts.save(message("Upload", body: "Second version."), id: saved.draftId)
        _ = try await push()
        guard case .upload(_, _, let known) = mailbox.requests.last?.action else {
            Issue.record("no second upload")
            return
        }
        #expect(known?.uid == 7, "the new version replaces the copy the server has")
        draft = try await drafts.open(saved.draftId)
        #expect(draft.sync.state == .synced)

        try await drafts.discard(saved.draftId)
        #expect(try await drafts.list().isEmpty)
        mailbox.answer { _ in .removed }
        #expect(try await push().drafts.removed == 1)
        #expect(mailbox.requests.last?.action == .remove)
        #expect(try await store.draft(id: saved.draftId) == nil)
    }

    @Test func aFailedUploadIsRetriedWithoutLosingTheDraft() async throws {
        let saved = try #require(try await drafts.save(message("Offline")))
        mailbox.answer { _ in .failed("connection refused") }
        #expect(try await push().drafts.failed == ["connection refused"])
        let draft = try await drafts.open(saved.draftId)
        #expect(draft.sync.state == .pending && draft.sync.attempts == 1 && draft.sync.lastError == "connection refused")
        let before = mailbox.requests.count
        _ = try await push()
        #expect(mailbox.requests.count == before, "not before its backoff")
        clock.advance(seconds: 6)
        mailbox.answer { _ in .uploaded(DraftServerCopy(mailbox: "Drafts", uid: 3, uidValidity: 1)) }
        _ = try await push()
        #expect(try await drafts.open(saved.draftId).sync.state == .synced)
    }

    /// Issue 33: a login the server refused is not retried on the connection's schedule (each retry
    /// another failed login); the draft stays local and is uploaded once a pass can sign in.
    @Test func aRefusedSignInIsNotRetriedLikeADroppedConnection() async throws {
        let saved = try #require(try await drafts.save(message("Revoked")))
        mailbox.fail(with: .authenticationRefused("[AUTHENTICATIONFAILED] Authentication failed."))
        let failed = try await push().drafts.failed
        #expect(failed.count == 1 && failed.first?.contains("authentication failed") == true)
        var draft = try await drafts.open(saved.draftId)
        #expect(draft.sync.state == .pending && draft.content.subject == "Revoked")
        let before = mailbox.requests.count
        for seconds in [6.0, 15, 45, 120] {
            clock.advance(seconds: seconds)
            _ = try await push()
        }
        #expect(mailbox.requests.count == before, "no login tried again on the 5/15/45 s schedule")

        mailbox.fail(with: nil)
        mailbox.answer { _ in .uploaded(DraftServerCopy(mailbox: "Drafts", uid: 4, uidValidity: 1)) }
        _ = try await pusher.push(account: account, ignoreBackoff: true)
        draft = try await drafts.open(saved.draftId)
        #expect(draft.sync.state == .synced, "uploaded by the pass the person asks for after signing in again")
    }

    @Test func anotherClientsVersionReplacesTheLocalOneAndTheFrontEndIsTold() async throws {
        let saved = try #require(try await drafts.save(message("Mine")))
        mailbox.answer { _ in .uploaded(DraftServerCopy(mailbox: "Drafts", uid: 4, uidValidity: 1)) }
        _ = try await push()
        var theirs = message("Theirs", body: "Rewritten on the phone.")
        theirs.cc = [EmailAddress(name: "Dave", address: "dave@example.org")]
        let raw = try DraftMessageCodec().encode(theirs, messageId: "<x@example.org>", attachments: [], date: clock.now())
        mailbox.answer { _ in .changedOnServer(raw: raw, copy: DraftServerCopy(mailbox: "Drafts", uid: 9, uidValidity: 1)) }
        let events = changes.changes()
        #expect(try await push().drafts.changedOnServer.isEmpty, "synced drafts are compared at most once a minute")
        clock.advance(seconds: 61)
        #expect(try await push().drafts.changedOnServer == [saved.draftId])
        let draft = try await drafts.open(saved.draftId)
        #expect(draft.content.subject == "Theirs" && draft.content.body.trimmingCharacters(in: .newlines) == "Rewritten on the phone.")
        #expect(draft.content.cc.map(\.address) == ["dave@example.org"] && draft.changedOnServer && draft.serverCopy?.uid == 9)
        var told = false
        for await change in events {
            if case .draftChangedOnServer(let id) = change, id == saved.draftId {
                told = true
                break
            }
        }
        #expect(told)
        try await drafts.acknowledgeServerChange(saved.draftId)
        #expect(try await drafts.open(saved.draftId).changedOnServer == false)
    }

    @Test func undoInTheWindowLeavesTheDraftAndTheEndOfTheWindowSendsItOnce() async throws {
        let saved = try #require(try await drafts.save(message("Undo me")))
        let feed = changes.changes()
        guard case .held(let held) = try await drafts.send(saved.draftId, undoWindow: .seconds(5)) else {
            Issue.record("not held")
            return
        }
        #expect(try await drafts.list().isEmpty, "a draft in its window is being sent, not listed")
        clock.advance(seconds: 60)
        _ = try await push()
        #expect(submitter.submitted.isEmpty, "nothing reaches SMTP in the window, whatever the clock says")
        let back = try await drafts.undo(held)
        #expect(back.content.subject == "Undo me" && back.heldEmailId == nil)
        #expect(try await drafts.list().compactMap(\.localDraftId) == [saved.draftId])

        guard case .held(let again) = try await drafts.send(saved.draftId, undoWindow: .seconds(5)) else {
            Issue.record("not held")
            return
        }
        mailbox.answer { _ in .removed }
        let outcome = try await drafts.commit(again)
        #expect(outcome.state == .sent && submitter.submitted.count == 1)
        #expect(try await store.draft(id: saved.draftId) == nil, "sent: the draft is gone here and on the server")
        // FR-COMP-02's composer states, on the change feed as they happened.
        var states: [ComposerSendUpdate.State] = []
        for await change in feed {
            if case .composerSend(let update) = change { states.append(update.state) }
            if states.last == .sent { break }
        }
        #expect(states == [.undoWindow, .undoCancelled, .undoWindow, .sending, .sent])
    }

    /// CO01-16 (issue 34): a pasted image is a draft file with a Content-ID. It survives a save and reopening,
    /// goes to the server's Drafts as a related part with the Markdown source kept as the text, survives an
    /// undone send, and the message queued carries it in `multipart/related` with the HTML's `cid:` resolving to it.
    @Test func anInlineImageSurvivesTheDraftItsServerCopyAndAnUndoneSend() async throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<500).map { UInt8($0 % 256) })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("inline-\(UUID().uuidString).png")
        try png.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let contentId = InlineImage.newContentId()
        var content = message("Picture", body: "Here: \(MarkdownSubset.imageReference(name: "shot.png", contentId: contentId))")
        content.attachments = [
            ComposedAttachment(
                source: .file(path: file.path), filename: "shot.png", mimeType: "image/png", sizeBytes: Int64(png.count),
                availability: .local, contentId: contentId)
        ]
        let saved = try #require(try await drafts.save(content))
        #expect(try await drafts.open(saved.draftId).content.attachments.map(\.contentId) == [contentId])

        mailbox.answer { request in
            if case .upload = request.action { return .uploaded(DraftServerCopy(mailbox: "Drafts", uid: 9, uidValidity: 1)) }
            return .unchanged
        }
        _ = try await push()
        guard case .upload(let raw, _, _) = mailbox.requests.last?.action else {
            Issue.record("no upload")
            return
        }
        let copy = MessageParser().parse(raw)
        #expect(copy.attachments.first { $0.contentId == contentId }?.isInline == true)
        #expect(copy.bodyHTML?.contains("<img src=\"cid:\(contentId)\" alt=\"shot.png\">") == true)
        let decoded = DraftMessageCodec().decode(raw)
        #expect(decoded.body.contains("](cid:\(contentId))") && decoded.attachmentNames == ["shot.png"])

        guard case .held(let held) = try await drafts.send(saved.draftId, undoWindow: .seconds(5)) else {
            Issue.record("not held")
            return
        }
        let back = try await drafts.undo(held)
        #expect(back.content.attachments.map(\.contentId) == [contentId], "an undone send gives the image back")
        guard case .held(let again) = try await drafts.send(saved.draftId, undoWindow: .seconds(5)) else {
            Issue.record("not held")
            return
        }
        let queued = try #require(try await SQLiteOutboxStore(database: database).submission(emailId: again.send.emailId))
        let sent = MessageParser().parse(queued.raw)
        let related = try #require(sent.structure.flattened().first { $0.contentType == "multipart/related" })
        #expect(related.children.map(\.contentType) == ["text/html", "image/png"])
        #expect(related.children[1].contentId == contentId && related.children[1].disposition == "inline")
        #expect(sent.content(ofPart: related.children[1].partId) == [UInt8](png))
        #expect(sent.bodyPlain == "Here: [image: shot.png]")
        mailbox.answer { _ in .removed }
        #expect(try await drafts.commit(again).state == .sent)
    }

    /// Issue 36, Send later: the draft waits in the Outbox for its time; Edit gives it back whole and
    /// unscheduled; scheduled again it goes once at its time, and its draft goes with it.
    @Test func aScheduledDraftWaitsForItsTimeGoesBackToEditAndIsSentOnce() async throws {
        let saved = try #require(try await drafts.save(message("Later")))
        await #expect(throws: TernError.self) { try await drafts.schedule(saved.draftId, at: clock.now().addingTimeInterval(-1)) }
        let time = clock.now().addingTimeInterval(600.4)
        let scheduled = try await drafts.schedule(saved.draftId, at: time)
        #expect(scheduled.state == .queued && scheduled.scheduledAt == clock.now().addingTimeInterval(601), "rounded up to the second")
        #expect(try await drafts.list().isEmpty, "a scheduled draft is in the Outbox, not in Drafts")
        _ = try await push()
        #expect(submitter.submitted.isEmpty)

        let back = try await drafts.reopenFailed(scheduled.emailId)
        #expect(back.content.subject == "Later" && back.heldEmailId == nil)
        #expect(try await SQLiteOutboxStore(database: database).outbox(accountId: nil).isEmpty, "edited: unscheduled")

        let again = try await drafts.schedule(saved.draftId, at: clock.now().addingTimeInterval(60))
        clock.advance(seconds: 59)
        _ = try await push()
        #expect(submitter.submitted.isEmpty, "not a second before its time")
        clock.advance(seconds: 1)
        mailbox.answer { _ in .removed }
        let report = try await push()
        #expect(report.queue.sent == [again.emailId] && report.queue.sentLate.isEmpty)
        _ = try await push()
        #expect(submitter.submitted == [again.emailId], "exactly once")
        await #expect(throws: TernError.self) { try await drafts.reopenFailed(again.emailId) }
    }

    @Test func aHeldMessageWhoseOwnerDiedReturnsToItsDraftAndIsNeverSent() async throws {
        let saved = try #require(try await drafts.save(message("Killed")))
        guard case .held(let held) = try await drafts.send(saved.draftId, undoWindow: .seconds(5)) else {
            Issue.record("not held")
            return
        }
        holds.owned.withLock { _ = $0.remove(held.send.messageId) } // the owner died
        mailbox.answer { _ in .uploaded(DraftServerCopy(mailbox: "Drafts", uid: 5, uidValidity: 1)) }
        let report = try await push()
        #expect(report.queue.returnedToDrafts == 1 && submitter.submitted.isEmpty)
        #expect(try await SQLiteOutboxStore(database: database).outbox(accountId: nil).isEmpty)
        let draft = try await drafts.open(saved.draftId)
        #expect(draft.heldEmailId == nil && draft.sync.state == .synced, "the draft is on the server again in the same pass")
    }
}

/// The Drafts mailbox, scripted: records every request, answers with the closure.
final class ScriptedDraftMailbox: DraftMailboxServer {
    private let state = Mutex<(requests: [DraftServerRequest], answer: @Sendable (DraftServerRequest) -> DraftServerOutcome, failure: TernError?)>(
        ([], { _ in .failed("not scripted") }, nil))

    var requests: [DraftServerRequest] { state.withLock { $0.requests } }
    func answer(_ answer: @escaping @Sendable (DraftServerRequest) -> DraftServerOutcome) { state.withLock { $0.answer = answer } }
    /// While set, every pass throws it before any request is answered (a login the server refused).
    func fail(with error: TernError?) { state.withLock { $0.failure = error } }

    func perform(_ requests: [DraftServerRequest], draftsMailbox: String?, account: Account, credentials: CredentialSupply) async throws
        -> [Draft.ID: DraftServerOutcome]
    {
        try state.withLock { state in
            state.requests += requests
            if let failure = state.failure { throw failure }
            return Dictionary(uniqueKeysWithValues: requests.map { ($0.draftId, state.answer($0)) })
        }
    }
}

struct KeptInPlace: DraftFiles {
    func keep(_ path: String, key: String) throws -> String { path }
    func removeAll(key: String) {}
}

struct FileAttachments: ComposeAttachmentLoading {
    func load(_ attachment: ComposedAttachment) async throws -> OutgoingAttachment {
        guard case .file(let path) = attachment.source else { throw TernError.notFound(attachment.filename) }
        return OutgoingAttachment(
            filename: attachment.filename, mimeType: attachment.mimeType, data: try Data(contentsOf: URL(fileURLWithPath: path)),
            contentId: attachment.contentId)
    }
}
