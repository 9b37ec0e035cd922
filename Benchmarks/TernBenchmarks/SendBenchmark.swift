import Foundation
import MailStore
import Synchronization
import TernCore
@_spi(Tooling) import TernRuntime

/// `tern-bench send` (NFR-SYNC-03): queue pickup to the server's acceptance, per message, and the
/// throughput of draining a queue of `count` messages, through the real send queue on a scratch
/// store (the account's own store is left alone) against the account's SMTP server.
public struct SendBenchmarkReport: Sendable, Encodable {
    public var tool = "tern"
    public var messages: Int
    public var sent: Int
    public var failed: Int
    public var enqueueSeconds: Double
    public var sendSeconds: Double
    public var messagesPerSecond: Double
    /// A message sent alone (connect, TLS, login, transaction): pickup to the server's acceptance.
    public var medianMilliseconds: Double
    public var p95Milliseconds: Double
    /// Filing the Sent copies (search by Message-ID, then APPEND), when asked for.
    public var sentCopySeconds: Double?
    /// FR-COMP-02: the end of a message's undo window (`OutboxUseCase.commit`: the hold lifted in the
    /// store, the claim let go, the queue run) to the server's acceptance.
    public var undoExpiryMedianMilliseconds: Double?
    public var undoExpiryP95Milliseconds: Double?
}

extension TernServices {
    public func benchmarkSending(
        account name: AccountName, recipient: String, count: Int, latencySamples: Int = 20,
        sentCopies: Bool
    ) async throws -> SendBenchmarkReport {
        guard let account = try await accountRepository.account(named: name) else { throw TernError.notFound("account '\(name)'") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-bench-send-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let scratch = try TernDatabase(home: TernHome(url: directory))
        try await SQLiteAccountRepository(database: scratch).insert(account)
        let outbox = SQLiteOutboxStore(database: scratch)
        let actions = SQLiteMailActionStore(database: scratch)
        let live = liveSendPath(holdsDirectory: directory.appendingPathComponent("locks"))
        let submitter = TimingSubmitter(inner: live.submitter)
        let queue = SendQueueProcessor(store: outbox, submitter: submitter, server: live.server, folders: actions)
        let supply = credentials.supply(for: account)
        let clock = ContinuousClock()

        let body = String(repeating: "Tern send benchmark: a line of ordinary text, like a short reply.\n", count: 16)
        func enqueue(_ index: Int, of total: Int) async throws {
            let message = OutgoingMessage(
                from: EmailAddress(name: account.displayName, address: account.emailAddress),
                to: [EmailAddress(address: recipient)], subject: "Tern bench \(index)/\(total)", bodyPlain: body)
            _ = try await outbox.enqueue(try live.composer.compose(message, accountId: account.id, at: Date()), holdUntil: nil, at: Date())
        }
        // NFR-SYNC-03: one message alone, as after "Send": a new connection each time.
        for index in 1...max(1, latencySamples) {
            try await enqueue(index, of: latencySamples)
            _ = try await queue.process(account: account, credentials: supply)
        }
        let single = submitter.milliseconds.sorted()
        submitter.times.withLock { $0.removeAll() }

        // FR-COMP-02: held by this process for its window, then committed, as `tern send` and the web app do.
        let holds = live.holds
        let heldPusher = LocalChangesPusher(
            credentials: credentials, operations: PendingOperationProcessor(store: actions, server: live.server),
            queue: SendQueueProcessor(store: outbox, submitter: submitter, server: live.server, folders: actions, holds: holds),
            lock: NoLocks())
        let held = OutboxUseCase(
            accounts: SQLiteAccountRepository(database: scratch), composer: live.composer, store: outbox,
            pusher: heldPusher, holds: holds)
        var expiry: [Double] = []
        for index in 1...max(1, latencySamples) {
            let message = OutgoingMessage(
                from: EmailAddress(name: account.displayName, address: account.emailAddress),
                to: [EmailAddress(address: recipient)], subject: "Tern bench held \(index)/\(latencySamples)", bodyPlain: body)
            let hold = try await held.sendHeld(message, from: account, window: .milliseconds(1))
            try await Task.sleep(for: .milliseconds(2))
            let start = clock.now
            _ = try await held.commit(hold)
            if let accepted = submitter.accepted.withLock({ $0.popLast() }) { expiry.append((accepted - start).inSeconds * 1000) }
        }
        expiry.sort()
        submitter.times.withLock { $0.removeAll() }

        let enqueueStart = clock.now
        for index in 1...max(1, count) { try await enqueue(index, of: count) }
        let enqueueSeconds = (clock.now - enqueueStart).inSeconds
        let sendStart = clock.now
        var sent = 0
        var failed = 0
        for _ in 0..<4 {
            let report = try await queue.process(account: account, credentials: supply, ignoreBackoff: true)
            sent += report.sent.count
            failed += report.failed.count
            if try await outbox.pending(accountId: account.id).isEmpty { break }
        }
        let sendSeconds = (clock.now - sendStart).inSeconds

        var sentCopySeconds: Double?
        if sentCopies {
            let start = clock.now
            _ = try await PendingOperationProcessor(store: actions, server: live.server).process(account: account, credentials: supply)
            sentCopySeconds = (clock.now - start).inSeconds
        }
        return SendBenchmarkReport(
            messages: count, sent: sent, failed: failed, enqueueSeconds: enqueueSeconds, sendSeconds: sendSeconds,
            messagesPerSecond: Double(sent) / sendSeconds, medianMilliseconds: single[single.count / 2],
            p95Milliseconds: single[min(single.count - 1, Int(Double(single.count) * 0.95))], sentCopySeconds: sentCopySeconds,
            undoExpiryMedianMilliseconds: expiry.isEmpty ? nil : expiry[expiry.count / 2],
            undoExpiryP95Milliseconds: expiry.isEmpty ? nil : expiry[min(expiry.count - 1, Int(Double(expiry.count) * 0.95))])
    }
}

/// Times each submission: from the queue handing it over to the server's acceptance; the first
/// message of a session includes connecting, TLS and login.
final class TimingSubmitter: MessageSubmitting {
    let inner: any MessageSubmitting
    let times = Mutex<[Double]>([])
    /// When each message was accepted (the end of DATA answered).
    let accepted = Mutex<[ContinuousClock.Instant]>([])

    init(inner: any MessageSubmitting) { self.inner = inner }

    var milliseconds: [Double] { times.withLock { $0 } }

    func withSession<Result: Sendable>(
        account: Account, credentials: CredentialSupply,
        _ body: (any SubmissionSession) async throws -> Result
    ) async throws -> Result {
        let clock = ContinuousClock()
        let opened = clock.now
        return try await inner.withSession(account: account, credentials: credentials) { session in
            try await body(TimedSession(inner: session, times: self, sessionStart: opened))
        }
    }
}

final class TimedSession: SubmissionSession {
    let inner: any SubmissionSession
    let times: TimingSubmitter
    var sessionStart: ContinuousClock.Instant?

    init(inner: any SubmissionSession, times: TimingSubmitter, sessionStart: ContinuousClock.Instant) {
        self.inner = inner
        self.times = times
        self.sessionStart = sessionStart
    }

    func submit(_ submission: OutgoingSubmission, beforeContent: @escaping @Sendable () async throws -> Void) async throws -> SubmissionReceipt {
        let clock = ContinuousClock()
        let start = sessionStart ?? clock.now
        sessionStart = nil
        let receipt = try await inner.submit(submission, beforeContent: beforeContent)
        let now = clock.now
        times.accepted.withLock { $0.append(now) }
        let elapsed = (now - start).inSeconds * 1000
        times.times.withLock { $0.append(elapsed) }
        return receipt
    }
}
