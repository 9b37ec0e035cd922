import Foundation
import Synchronization
import TernCore

/// The clock the queue and the pending-change processor read, moved by the test (FR-SYNC-05/07
/// schedules in milliseconds).
final class ManualClock: WallClock {
    private let time: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { time = Mutex(start) }

    func now() -> Date { time.withLock { $0 } }
    func advance(seconds: Double) { time.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// SMTP outcomes scripted per attempt, for the queue's schedule (the real submission is tested
/// against Postfix in SystemTests/integration/test_send_and_actions.py).
final class ScriptedSubmitter: MessageSubmitting {
    /// `failAfterContent`: the content starts going out, then the connection fails (a timeout or a
    /// drop before the server's reply), reported as the transient failure it looks like.
    enum Step: Sendable {
        case accept
        case transient(String)
        case permanent(String)
        case failAfterContent(String)
    }

    fileprivate let state: Mutex<(steps: [Step], submitted: [EmailID])>
    /// The step used once the script has run out.
    let otherwise: Step

    init(_ steps: [Step] = [], otherwise: Step = .accept) {
        state = Mutex((steps, []))
        self.otherwise = otherwise
    }

    var submitted: [EmailID] { state.withLock { $0.submitted } }

    private let sessions = Mutex(0)
    /// Connections opened: one per pass of the queue that sends anything.
    var sessionCount: Int { sessions.withLock { $0 } }

    /// While true, no server can be reached: every session fails before anything is submitted.
    let serverUnreachable = Mutex(false)

    func withSession<Result: Sendable>(
        account: Account, credentials: CredentialSupply,
        _ body: (any SubmissionSession) async throws -> Result
    ) async throws -> Result {
        if serverUnreachable.withLock({ $0 }) { throw SubmissionError.unreachable("connection refused (127.0.0.1:587)") }
        sessions.withLock { $0 += 1 }
        return try await body(Session(submitter: self))
    }

    struct Session: SubmissionSession {
        let submitter: ScriptedSubmitter

        func submit(_ submission: OutgoingSubmission, beforeContent: @escaping @Sendable () async throws -> Void) async throws -> SubmissionReceipt {
            let step = submitter.state.withLock { state -> Step in
                state.submitted.append(submission.emailId)
                return state.steps.isEmpty ? submitter.otherwise : state.steps.removeFirst()
            }
            switch step {
            case .accept:
                try await beforeContent()
                return SubmissionReceipt(reply: "250 2.0.0 Ok: queued")
            case .transient(let text): throw SubmissionError.transient(text)
            case .permanent(let text): throw SubmissionError.permanent(text)
            case .failAfterContent(let text):
                try await beforeContent()
                throw SubmissionError.transient(text)
            }
        }
    }
}

/// IMAP outcomes scripted per operation kind, for the pending-change schedule and reverts.
final class ScriptedServer: ServerMailActions {
    private let state: Mutex<(outcome: ServerOperationOutcome?, performed: [ServerOperation], sentHolds: Bool)>
    /// What a pass without an outcome throws: by default a connection that could not be made.
    private let failure = Mutex(TernError.connectionLost("connection refused"))

    init(outcome: ServerOperationOutcome? = .done(newUID: nil), sentHolds: Bool = false) {
        state = Mutex((outcome, [], sentHolds))
    }

    var performed: [ServerOperation] { state.withLock { $0.performed } }
    func answer(_ outcome: ServerOperationOutcome?) { state.withLock { $0.outcome = outcome } }
    /// Every pass fails with `error` (the adapters' translation of the protocol's failure).
    func fail(with error: TernError) {
        failure.withLock { $0 = error }
        answer(nil)
    }

    func perform(_ operations: [ServerOperation], account: Account, credentials: CredentialSupply) async throws
        -> [PendingChangeID: ServerOperationOutcome]
    {
        let outcome = state.withLock { state in
            state.performed += operations
            return state.outcome
        }
        guard let outcome else { throw failure.withLock { $0 } }
        return Dictionary(uniqueKeysWithValues: operations.map { ($0.id, outcome) })
    }

    func mailbox(_ mailbox: String?, containsMessageId messageId: String, account: Account, credentials: CredentialSupply) async throws -> Bool {
        state.withLock { $0.sentHolds }
    }
}

extension CredentialSupply {
    static let unused = CredentialSupply(username: "test", current: { .password("x") }, refreshed: { .password("x") })
}
