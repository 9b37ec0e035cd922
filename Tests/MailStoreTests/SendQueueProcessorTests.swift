import Foundation
import GRDB
import Synchronization
import TernCore
import Testing

@testable import MailStore

/// FR-SYNC-07 and NFR-SYNC-03 on the real store, with the clock injected: retry schedule, 24-hour
/// limit, permanent refusals, FIFO order, the undo hold, and recovery of an interrupted send.
struct SendQueueProcessorTests {
    let database: TernDatabase
    let account = Fixtures.account()
    let clock = ManualClock()
    let store: SQLiteOutboxStore

    init() throws {
        database = try TernDatabase.temporary()
        try database.writer.write { [account] db in
            try account.insert(db)
            var sent = Folder(accountId: account.id, path: "Sent", folderType: .sent)
            try sent.insert(db)
        }
        store = SQLiteOutboxStore(database: database)
    }

    func queue(_ submitter: ScriptedSubmitter, server: ScriptedServer = ScriptedServer(), holds: (any SendHoldOwnership)? = nil) -> SendQueueProcessor
    {
        SendQueueProcessor(
            store: store, submitter: submitter, server: server, folders: SQLiteMailActionStore(database: database), clock: clock,
            holds: holds)
    }

    @discardableResult
    func enqueue(_ subject: String, holdUntil: Date? = nil, scheduledAt: Date? = nil) async throws -> EmailID {
        let id = "<\(UUID().uuidString)@example.org>"
        var email = Fixtures.email(accountId: account.id, messageId: id)
        email.subject = subject
        let raw = Array("Message-ID: \(id)\r\nSubject: \(subject)\r\n\r\nHello.\r\n".utf8)
        return try await store.enqueue(
            ComposedMessage(raw: raw, email: email, envelope: MessageEnvelope(sender: "a@example.org", recipients: ["b@example.org"])),
            holdUntil: holdUntil, scheduledAt: scheduledAt, at: clock.now())
    }

    func state(_ id: EmailID) async throws -> OutboxEntry { try #require(try await store.entry(emailId: id)) }

    @Test func transientFailuresAreRetriedAfter30Seconds2And8MinutesThenFail() async throws {
        let submitter = ScriptedSubmitter(otherwise: .transient("421 4.3.2 try later"))
        let queue = queue(submitter)
        let id = try await enqueue("Retried")
        for (delay, attempts) in [(0.0, 1), (29, 1), (1, 2), (119, 2), (1, 3), (479, 3)] {
            clock.advance(seconds: delay)
            _ = try await queue.process(account: account, credentials: .unused)
            #expect(submitter.submitted.count == attempts, "after \(delay) s")
            #expect(try await state(id).state == .queued)
        }
        clock.advance(seconds: 1)
        let report = try await queue.process(account: account, credentials: .unused)
        #expect(submitter.submitted.count == 4)
        #expect(try await state(id).state == .failed)
        #expect(try await state(id).error == "421 4.3.2 try later")
        #expect(report.failed.map(\.emailId) == [id])
    }

    /// issue 34 (FR-SYNC-07, NFR-SYNC-03): while the server cannot be reached, no attempt is
    /// counted; the messages wait in order and go out once, each exactly once, when it answers,
    /// however much longer than the retry schedule the outage lasted.
    @Test func anUnreachableServerUsesUpNoRetryAndTheQueueGoesOutInOrderWhenItAnswers() async throws {
        let submitter = ScriptedSubmitter()
        submitter.serverUnreachable.withLock { $0 = true }
        let queue = queue(submitter)
        let first = try await enqueue("First")
        let second = try await enqueue("Second")
        for _ in 0..<(6 * 60) { // six hours, a look every minute
            let report = try await queue.process(account: account, credentials: .unused)
            #expect(report.serverUnreachable)
            #expect(report.failed.isEmpty)
            clock.advance(seconds: 60)
        }
        #expect(try await state(first).state == .queued)
        #expect(try await state(first).retryCount == 0)
        #expect(try await state(first).error == "connection refused (127.0.0.1:587)")
        #expect(try await state(second).state == .queued)
        submitter.serverUnreachable.withLock { $0 = false }
        let report = try await queue.process(account: account, credentials: .unused)
        #expect(report.sent == [first, second])
        #expect(submitter.submitted == [first, second])
        #expect(try await state(first).state == .sent)
    }

    @Test func afterAnOutageTheServersOwnRefusalsStillCountAndThe24HoursStillEndIt() async throws {
        let submitter = ScriptedSubmitter(otherwise: .transient("451 4.3.0 try later"))
        submitter.serverUnreachable.withLock { $0 = true }
        let queue = queue(submitter)
        let deferred = try await enqueue("Deferred")
        _ = try await queue.process(account: account, credentials: .unused)
        clock.advance(seconds: 30)
        submitter.serverUnreachable.withLock { $0 = false }
        for delay in [0.0, 30, 120, 480] {
            clock.advance(seconds: delay)
            _ = try await queue.process(account: account, credentials: .unused)
        }
        #expect(submitter.submitted.count == 4)
        #expect(try await state(deferred).state == .failed)

        let stuck = try await enqueue("Never reachable")
        submitter.serverUnreachable.withLock { $0 = true }
        for _ in 0..<25 {
            clock.advance(seconds: 3600)
            _ = try await queue.process(account: account, credentials: .unused)
        }
        #expect(try await state(stuck).state == .failed)
        #expect(try await state(stuck).error == SendQueueProcessor.timeoutError)
    }

    /// Issue 36, Send later: a scheduled message never goes a second before its time, goes once at it,
    /// and holds up none of the messages queued after it.
    @Test func aScheduledMessageGoesAtItsTimeOnceAndHoldsUpNothing() async throws {
        let submitter = ScriptedSubmitter()
        let queue = queue(submitter)
        let time = clock.now().addingTimeInterval(3600)
        let later = try await enqueue("Later", scheduledAt: time)
        let now = try await enqueue("Now")
        var report = try await queue.process(account: account, credentials: .unused)
        #expect(report.sent == [now] && report.scheduled == 1 && report.nextDue == time)
        #expect(try await state(later).scheduledAt == time)
        #expect(try await state(later).isScheduled(after: clock.now()))
        clock.advance(seconds: 3599)
        report = try await queue.process(account: account, credentials: .unused)
        #expect(report.sent.isEmpty && report.scheduled == 1)
        clock.advance(seconds: 0.5)
        report = try await queue.process(account: account, credentials: .unused)
        #expect(report.sent.isEmpty, "never a moment before its time")
        clock.advance(seconds: 0.5)
        report = try await queue.process(account: account, credentials: .unused)
        #expect(report.sent == [later] && report.sentLate.isEmpty)
        report = try await queue.process(account: account, credentials: .unused)
        #expect(report.sent.isEmpty)
        #expect(submitter.submitted == [now, later])
    }

    /// Issue 36: a time that passed while no Tern process ran: sent at the next pass, and said so,
    /// in the report and on the sent message; the 24 hours count from the scheduled time.
    @Test func aScheduledTimeMissedWhileNothingRanIsSentLateAndSaysSo() async throws {
        let submitter = ScriptedSubmitter()
        let queue = queue(submitter)
        let time = clock.now().addingTimeInterval(2 * 86_400)
        let missed = try await enqueue("Missed", scheduledAt: time)
        clock.advance(seconds: 2 * 86_400 + 3 * 3600)
        let report = try await queue.process(account: account, credentials: .unused)
        #expect(report.sent == [missed])
        #expect(report.sentLate.map(\.emailId) == [missed] && report.sentLate.first?.scheduledAt == time)
        let note = try await database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT sendError FROM email WHERE id = ?", arguments: [missed])
        }
        #expect(note?.contains("sent late") == true)
    }

    @Test func aShortenedScheduleIsUsed() async throws {
        let submitter = ScriptedSubmitter(otherwise: .transient("421 4.3.2 try later"))
        let queue = SendQueueProcessor(
            store: store, submitter: submitter, server: ScriptedServer(), folders: SQLiteMailActionStore(database: database),
            clock: clock, retryDelays: [.seconds(1), .seconds(1), .seconds(1)])
        let id = try await enqueue("Quick")
        for _ in 0..<4 {
            _ = try await queue.process(account: account, credentials: .unused)
            clock.advance(seconds: 1)
        }
        #expect(submitter.submitted.count == 4)
        #expect(try await state(id).state == .failed)
    }

    @Test func aMessageQueuedOver24HoursFailsWithSendTimeout() async throws {
        let submitter = ScriptedSubmitter()
        let id = try await enqueue("Old")
        clock.advance(seconds: 24 * 3600 + 1)
        _ = try await queue(submitter).process(account: account, credentials: .unused)
        #expect(submitter.submitted.isEmpty)
        #expect(try await state(id).state == .failed)
        #expect(try await state(id).error == "send timeout")
    }

    @Test func aPermanentRefusalFailsAtOnceAndIsNeverRetried() async throws {
        let submitter = ScriptedSubmitter([.permanent("550 5.1.1 <nobody@example.org>: User unknown")])
        let queue = queue(submitter)
        let id = try await enqueue("Refused")
        _ = try await queue.process(account: account, credentials: .unused)
        clock.advance(seconds: 3600)
        _ = try await queue.process(account: account, credentials: .unused)
        #expect(submitter.submitted == [id])
        #expect(try await state(id).error == "550 5.1.1 <nobody@example.org>: User unknown")
        #expect(try await state(id).retryCount == 0)
    }

    @Test func nothingOvertakesAMessageWaitingForItsRetry() async throws {
        let submitter = ScriptedSubmitter([.transient("connection refused")])
        let queue = queue(submitter)
        let first = try await enqueue("First")
        let second = try await enqueue("Second")
        _ = try await queue.process(account: account, credentials: .unused)
        #expect(submitter.submitted == [first])
        clock.advance(seconds: 30)
        let report = try await queue.process(account: account, credentials: .unused)
        #expect(submitter.submitted == [first, first, second])
        #expect(report.sent == [first, second])
        #expect(submitter.sessionCount == 2, "one connection per pass, not per message")
    }

    @Test func aHeldMessageIsPassedOverWithoutHoldingUpTheOthers() async throws {
        let submitter = ScriptedSubmitter()
        let queue = queue(submitter)
        let held = try await enqueue("Undo window", holdUntil: clock.now().addingTimeInterval(5))
        let other = try await enqueue("Plain")
        let report = try await queue.process(account: account, credentials: .unused)
        #expect(report.sent == [other] && report.held == 1)
        clock.advance(seconds: 5)
        #expect(try await queue.process(account: account, credentials: .unused).sent == [held])
    }

    /// FR-COMP-02, PLATFORM.md: with owned holds, the clock never lifts a hold; the owner does, and a hold whose
    /// owner is gone is never sent.
    @Test func anOwnedHoldIsSentOnlyWhenItsOwnerLetsGoAndAnOrphanNever() async throws {
        let submitter = ScriptedSubmitter()
        let holds = MemoryHolds()
        let queue = queue(submitter, holds: holds)
        let owned = try await enqueue("Owned", holdUntil: clock.now().addingTimeInterval(5))
        let orphan = try await enqueue("Orphan", holdUntil: clock.now().addingTimeInterval(5))
        let ownedId = try #require(try await store.entry(emailId: owned)?.messageId)
        _ = holds.owned.withLock { $0.insert(ownedId) }
        clock.advance(seconds: 60)
        let report = try await queue.process(account: account, credentials: .unused)
        #expect(report.sent == [] && report.held == 1)
        #expect(report.failed.map(\.emailId) == [orphan])
        #expect(try await state(orphan).state == .failed)
        #expect(try await state(orphan).error == SendQueueProcessor.orphanedHoldError)
        // The owner lets it go: the hold is lifted in the store first, then the claim.
        try await store.setHold(owned, until: nil)
        _ = holds.owned.withLock { $0.remove(ownedId) }
        #expect(try await queue.process(account: account, credentials: .unused).sent == [owned])
        #expect(submitter.submitted.count == 1, "the orphan never reached SMTP")
    }

    @Test func aSentMessageGetsItsSentCopyScheduled() async throws {
        let id = try await enqueue("Filed")
        _ = try await queue(ScriptedSubmitter()).process(account: account, credentials: .unused)
        #expect(try await state(id).state == .sent)
        let operations = try await SQLiteMailActionStore(database: database).pendingOperations(accountId: account.id)
        #expect(operations.map(\.kind) == [.fileSentCopy] && operations.first?.emailId == id)
    }

    /// Issue 33: a sent copy whose append meets a refused login fails at once, listed to retry
    /// after signing in again, instead of logging in again at 5, 15 and 45 s as a dropped connection is.
    @Test func aRefusedSignInDuringTheSentCopyIsNotRetried() async throws {
        let id = try await enqueue("Filed")
        _ = try await queue(ScriptedSubmitter()).process(account: account, credentials: .unused)
        let actions = SQLiteMailActionStore(database: database)
        let server = ScriptedServer()
        server.fail(with: .authenticationRefused("535 5.7.8 Authentication credentials invalid"))
        let operations = PendingOperationProcessor(store: actions, server: server, clock: clock)
        let report = try await operations.process(account: account, credentials: .unused)
        #expect(server.performed.count == 1 && report.waiting == 0 && report.failed.count == 1)
        #expect(report.failed.first?.contains("authentication failed") == true)
        for seconds in [5.0, 15, 45] {
            clock.advance(seconds: seconds)
            _ = try await operations.process(account: account, credentials: .unused)
        }
        #expect(server.performed.count == 1, "never retried as a dropped connection")
        let change = try #require(try await actions.summaries(accountId: account.id).first)
        #expect(change.state == .failed && change.attempts == 1 && change.emailId == id)

        // A dropped connection is still retried on the schedule.
        server.fail(with: .connectionLost("connection reset"))
        _ = try await actions.retry(change.id)
        let retried = try await operations.process(account: account, credentials: .unused)
        #expect(retried.waiting == 1 && retried.failed.isEmpty)
    }

    /// Exactly once: a send interrupted after its content started is never simply sent again.
    @Test func anInterruptedSendIsSentOnlyWhenItIsProvablyNotDelivered() async throws {
        func interrupted(_ subject: String) async throws -> EmailID {
            let id = try await enqueue(subject)
            try await store.markSending(id)
            try await store.markAttemptStarted(id, at: clock.now())
            return id
        }
        // Found in Sent: it was delivered.
        let found = try await interrupted("In Sent")
        let submitter = ScriptedSubmitter()
        _ = try await queue(submitter, server: ScriptedServer(sentHolds: true)).process(account: account, credentials: .unused)
        #expect(try await state(found).state == .sent && submitter.submitted.isEmpty)
        // Not in Sent on an IMAP server: unknown, so failed with an explanation, not sent.
        let unknown = try await interrupted("Unknown")
        _ = try await queue(submitter).process(account: account, credentials: .unused)
        #expect(try await state(unknown).state == .failed && submitter.submitted.isEmpty)
        #expect(try await state(unknown).error == SendQueueProcessor.uncertainDeliveryError)
        // Not in Sent on Gmail (which files all it relays): not delivered, so sent.
        var gmail = account
        gmail.provider = .gmail
        let notDelivered = try await interrupted("Gmail")
        _ = try await queue(submitter).process(account: gmail, credentials: .unused)
        #expect(try await state(notDelivered).state == .sent && submitter.submitted == [notDelivered])
        // Interrupted before its content went out: simply sent.
        let early = try await enqueue("Early")
        try await store.markSending(early)
        _ = try await queue(submitter).process(account: account, credentials: .unused)
        #expect(try await state(early).state == .sent && submitter.submitted == [notDelivered, early])
    }

    /// Issue 21: a timeout or drop once the content started is not a transient failure to retry in
    /// 30 s (the recipient got it twice): the message goes to the interrupted-send recovery.
    @Test func aFailureAfterTheContentStartedIsNeverSentAgain() async throws {
        let submitter = ScriptedSubmitter([.failAfterContent("timed out: no reply to the content")])
        let queue = queue(submitter)
        let id = try await enqueue("Slow scanner")
        let behind = try await enqueue("Behind it")
        let first = try await queue.process(account: account, credentials: .unused)
        #expect(submitter.submitted == [id] && first.sent.isEmpty)
        #expect(try await state(id).state == .sending && first.nextDue == clock.now().addingTimeInterval(30))
        for delay in [30.0, 120, 480, 3600] {
            clock.advance(seconds: delay)
            _ = try await queue.process(account: account, credentials: .unused)
        }
        #expect(submitter.submitted == [id, behind], "never submitted again")
        #expect(try await state(id).state == .failed)
        #expect(try await state(id).error == SendQueueProcessor.uncertainDeliveryError)
    }

    @Test func aFailureAfterTheContentIsSentWhenSentHoldsIt() async throws {
        let submitter = ScriptedSubmitter([.failAfterContent("the server closed the connection")])
        let id = try await enqueue("Dropped")
        _ = try await queue(submitter, server: ScriptedServer(sentHolds: true)).process(account: account, credentials: .unused)
        clock.advance(seconds: 30)
        _ = try await queue(submitter, server: ScriptedServer(sentHolds: true)).process(account: account, credentials: .unused)
        #expect(submitter.submitted == [id])
        #expect(try await state(id).state == .sent)
    }

    /// On Gmail, not in Sent means not accepted, so it is sent again, but only as often as the
    /// transient schedule allows when the failure repeats.
    @Test func onGmailAFailureAfterTheContentIsRetriedOnlyOnTheSchedule() async throws {
        var gmail = account
        gmail.provider = .gmail
        let submitter = ScriptedSubmitter(otherwise: .failAfterContent("timed out"))
        let queue = queue(submitter)
        let id = try await enqueue("Gmail")
        for delay in [0.0, 29, 1, 120, 480, 480, 3600] {
            clock.advance(seconds: delay)
            _ = try await queue.process(account: gmail, credentials: .unused)
        }
        #expect(submitter.submitted == [id, id, id, id])
        #expect(try await state(id).state == .failed)
    }

    @Test func retryRequeuesAndDiscardDeletesEntirely() async throws {
        let id = try await enqueue("Again")
        try await store.markFailed(id, error: "send timeout")
        try await store.requeue(id, at: clock.now())
        let requeued = try await state(id)
        #expect(requeued.state == .queued && requeued.error == nil)
        try await store.discard(id)
        #expect(try await store.entry(emailId: id) == nil)
        #expect(try await database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outgoingMessage") } == 0)
    }
}

/// Holds as a set of owned Message-IDs.
final class MemoryHolds: SendHoldOwnership {
    let owned = Mutex(Set<String>())

    struct Claim: SendHoldClaim {
        func release() {}
    }

    func claim(messageId: String) throws -> any SendHoldClaim {
        owned.withLock { _ = $0.insert(messageId) }
        return Claim()
    }

    func isOrphaned(messageId: String) -> Bool { !owned.withLock { $0.contains(messageId) } }
}

/// Issue 34: `tern outbox flush` and the network's return skip only the rechecks of a server that
/// could not be reached; a forward queued offline (CO01-15) downloads its attachments first.
extension SendQueueProcessorTests {
    /// Completes a queued forward from a script: a failure to throw, or the bytes to write.
    final class ScriptedCompletion: QueuedAttachmentCompleting {
        let store: SQLiteOutboxStore
        let failure = Mutex<TernError?>(nil)
        let calls = Mutex(0)

        init(store: SQLiteOutboxStore) { self.store = store }

        func complete(_ entry: OutboxEntry, account: Account) async throws {
            calls.withLock { $0 += 1 }
            if let failure = failure.withLock({ $0 }) { throw failure }
            var email = Fixtures.email(accountId: account.id, messageId: entry.messageId ?? "")
            email.subject = entry.subject
            let raw = Array("Message-ID: \(entry.messageId ?? "")\r\nSubject: \(entry.subject)\r\n\r\nWith the attachment.\r\n".utf8)
            try await store.completeAttachments(
                entry.emailId,
                with: ComposedMessage(raw: raw, email: email, envelope: MessageEnvelope(sender: "a@example.org", recipients: ["b@example.org"])))
        }
    }

    @Test func aFlushTriesAnUnreachableServerAtOnceButKeepsARefusalsBackoff() async throws {
        let submitter = ScriptedSubmitter()
        submitter.serverUnreachable.withLock { $0 = true }
        let queue = queue(submitter)
        let waiting = try await enqueue("Waiting for the server")
        _ = try await queue.process(account: account, credentials: .unused)
        #expect(try await state(waiting).waitingForServer)
        let sessionsBefore = submitter.sessionCount
        clock.advance(seconds: 1)
        _ = try await queue.process(account: account, credentials: .unused)
        #expect(submitter.sessionCount == sessionsBefore, "the recheck's 30 s are kept by a plain pass")
        submitter.serverUnreachable.withLock { $0 = false }
        let report = try await queue.process(account: account, credentials: .unused, retryUnreachableNow: true)
        #expect(report.sent == [waiting])

        let refusing = ScriptedSubmitter(otherwise: .transient("451 4.3.0 try later"))
        let deferredQueue = self.queue(refusing)
        let deferred = try await enqueue("Deferred")
        _ = try await deferredQueue.process(account: account, credentials: .unused)
        #expect(try await state(deferred).retryCount == 1)
        #expect(try await !state(deferred).waitingForServer)
        clock.advance(seconds: 1)
        _ = try await deferredQueue.process(account: account, credentials: .unused, retryUnreachableNow: true)
        #expect(refusing.submitted == [deferred], "a refusal's backoff is not skipped")
    }

    @Test func aForwardQueuedOfflineWaitsForItsAttachmentsThenGoesWithThem() async throws {
        let submitter = ScriptedSubmitter()
        let completion = ScriptedCompletion(store: store)
        completion.failure.withLock { $0 = .connectionLost("127.0.0.1:993: connection refused") }
        let queue = SendQueueProcessor(
            store: store, submitter: submitter, server: ScriptedServer(), folders: SQLiteMailActionStore(database: database), clock: clock,
            attachments: completion)
        let id = "<\(UUID().uuidString)@example.org>"
        let email = Fixtures.email(accountId: account.id, messageId: id)
        let forward = try await store.enqueue(
            ComposedMessage(
                raw: Array("Message-ID: \(id)\r\n\r\nStand-in.\r\n".utf8), email: email,
                envelope: MessageEnvelope(sender: "a@example.org", recipients: ["b@example.org"])),
            holdUntil: nil, awaitingAttachments: true, at: clock.now())
        let later = try await enqueue("Queued after the forward")
        for _ in 0..<3 {
            let report = try await queue.process(account: account, credentials: .unused, retryUnreachableNow: true)
            #expect(report.serverUnreachable)
            #expect(submitter.submitted.isEmpty, "no SMTP transaction before every attachment is local, nothing overtakes it")
            clock.advance(seconds: 60)
        }
        #expect(try await state(forward).awaitingAttachments)
        #expect(try await state(forward).retryCount == 0)
        completion.failure.withLock { $0 = nil }
        var sent: [UInt8] = []
        let report = try await queue.process(account: account, credentials: .unused)
        #expect(report.sent == [forward, later])
        sent = try #require(try await store.submission(emailId: forward)).raw
        #expect(String(decoding: sent, as: UTF8.self).contains("With the attachment."))
        #expect(String(decoding: sent, as: UTF8.self).hasPrefix("Message-ID: \(id)"))

        completion.failure.withLock { $0 = .notFound("attachment 7") }
        let gone = try await store.enqueue(
            ComposedMessage(
                raw: Array("Message-ID: <gone@example.org>\r\n\r\nStand-in.\r\n".utf8),
                email: Fixtures.email(accountId: account.id, messageId: "<gone@example.org>"),
                envelope: MessageEnvelope(sender: "a@example.org", recipients: ["b@example.org"])),
            holdUntil: nil, awaitingAttachments: true, at: clock.now())
        let failed = try await queue.process(account: account, credentials: .unused)
        #expect(failed.failed.map(\.emailId) == [gone])
        #expect(try await state(gone).error?.contains("attachment 7") == true)
    }
}
