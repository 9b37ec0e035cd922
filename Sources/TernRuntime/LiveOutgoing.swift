import Foundation
import IMAP
import MIME
import MailTransport
import SMTP
import Sync
import TernCore

/// `MessageSubmitting` on the SMTP client. A rejected login is retried once with a refreshed
/// credential (FR-SYNC-07: token refresh); failures are sorted into permanent (never retried, the
/// server's words kept) and transient (the queue's schedule).
struct LiveMessageSubmitter: MessageSubmitting {
    /// Fault injection for the exactly-once test: `TERN_FAULT=kill-after-smtp-accept` SIGKILLs the
    /// process right after the server accepted the content, before Tern records it. Debug builds
    /// only (SwiftPM defines DEBUG for them; the integration tests run `.build/debug/tern`): a
    /// shipped binary has no variable that makes it kill itself mid-send.
    let killAfterAccept: Bool
    /// Sending is the person's work: catch-up gives way to it (issue 20).
    let userWork: UserWorkTracker

    init(environment: [String: String], userWork: UserWorkTracker = UserWorkTracker()) {
        self.userWork = userWork
        #if DEBUG
            killAfterAccept = environment["TERN_FAULT"] == "kill-after-smtp-accept"
        #else
            killAfterAccept = false
        #endif
    }

    func withSession<Result: Sendable>(
        account: Account, credentials: CredentialSupply,
        _ body: (any SubmissionSession) async throws -> Result
    ) async throws -> Result {
        let server = MailServer(smtpOf: account)
        let kill = killAfterAccept
        func attempt(_ secret: AccountSecret) async throws -> Result {
            try await SMTPClient.withSession(server: server, credential: MailCredential(secret, username: credentials.username)) { session in
                try await body(LiveSubmissionSession(session: session, killAfterAccept: kill))
            }
        }
        do {
            return try await userWork.during(account.id) {
                do {
                    return try await attempt(try await credentials.current())
                } catch SMTPError.authenticationFailed {
                    return try await attempt(try await credentials.refreshed())
                }
            }
        } catch let error as SMTPError {
            throw Self.classify(error)
        } catch let error as TernError {
            throw error.isRetryable ? SubmissionError.transient(error.message) : SubmissionError.permanent(error.message)
        }
    }

    static func classify(_ error: SMTPError) -> SubmissionError {
        switch error {
        case .permanent(let reply): .permanent(reply.description)
        case .recipientsRefused(let refusals) where !error.isTransient: .permanent(refusals.map(\.description).joined(separator: "; "))
        case .tlsRefused, .unsupported, .invalidArgument: .permanent(error.description)
        case .deliveryUncertain: .deliveryUncertain(error.description)
        case .unreachable(let failure): .unreachable(failure.description)
        // A login refused after a fresh credential: the user must fix it, but the message keeps its chance.
        case .authenticationFailed: .transient(error.description)
        default: error.isTransient ? .transient(error.description) : .permanent(error.description)
        }
    }
}

/// One message on a live SMTP session, its failure sorted for the queue.
struct LiveSubmissionSession: SubmissionSession {
    let session: SMTPSession
    let killAfterAccept: Bool

    func submit(_ submission: OutgoingSubmission, beforeContent: @escaping @Sendable () async throws -> Void) async throws -> SubmissionReceipt {
        let envelope = SMTPEnvelope(sender: submission.envelope.sender, recipients: submission.envelope.recipients)
        do {
            let delivery = try await session.send(submission.raw, envelope: envelope, beforeContent: beforeContent)
            if killAfterAccept { kill(getpid(), SIGKILL) }
            return SubmissionReceipt(reply: delivery.reply.description, refusedRecipients: delivery.refused.map(\.description))
        } catch let error as SMTPError {
            throw LiveMessageSubmitter.classify(error)
        }
    }
}

/// `ServerMailActions` on the Sync module's IMAP actions.
struct LiveServerMailActions: ServerMailActions {
    let connections: AccountConnectionPools

    func perform(_ operations: [ServerOperation], account: Account, credentials: CredentialSupply) async throws
        -> [PendingChangeID: ServerOperationOutcome]
    {
        try await translatingMailFailures { try await actions(account, credentials).perform(operations) }
    }

    func mailbox(_ mailbox: String?, containsMessageId messageId: String, account: Account, credentials: CredentialSupply) async throws -> Bool {
        try await translatingMailFailures { try await actions(account, credentials).mailbox(mailbox, containsMessageId: messageId) }
    }

    func actions(_ account: Account, _ credentials: CredentialSupply) async -> IMAPMailActions {
        IMAPMailActions(connections: await connections.pool(for: account, credentials: credentials))
    }
}

/// Issue 36: `ServerFolderChanges` on the Sync module's IMAP folder commands.
struct LiveServerFolderChanges: ServerFolderChanges {
    let connections: AccountConnectionPools

    func apply(_ change: FolderChange, account: Account, credentials: CredentialSupply) async throws -> [DiscoveredFolder] {
        try await translatingMailFailures {
            try await IMAPFolderChanges(connections: await connections.pool(for: account, credentials: credentials)).apply(change)
        }
    }
}
