import Foundation

/// Errors a front end shows to a person. Each `message` is one neutral line that says what went
/// wrong; what to do about it is the front end's to word (the CLI names its commands and flags, the
/// web app its buttons), which is why the cases that call for an action carry typed data.
public enum TernError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The user typed something Tern cannot use.
    case invalidInput(String)
    /// No account, thread, message… with that name or id.
    case notFound(String)
    /// Something with that name exists already.
    case alreadyExists(String)
    /// `TERN_HOME` (or a file in it) cannot be created or written.
    case storageUnavailable(String)
    /// The database is not a Tern database Tern can open (corrupt, or written by a newer Tern).
    case databaseUnusable(String)
    /// Another process has held the store for writing longer than Tern waits (issue 20): nothing
    /// was changed, and trying again once it is done works.
    case storeBusy(String)
    /// A secret could not be obtained from its source.
    case secretUnavailable(String)
    /// A mail server refused what was asked of it, lacks what Tern needs, or broke its protocol.
    case serverFailure(String)
    /// A mail server refused the login (a wrong password, a revoked or expired token): only the
    /// person can change that, so it is never retried as a dropped connection would be (issue 33).
    case authenticationRefused(String)
    /// TLS was refused (NFR-SYNC-05): an untrusted certificate, TLS below 1.2, a host name mismatch.
    case tlsRefused(String)
    /// The OAuth refresh token was refused: the user must sign in again (FR-SYNC-04).
    case authenticationExpired(String)
    /// The connection dropped or timed out: worth trying again (FR-SYNC-08's retries, the send queue's).
    case connectionLost(String)
    /// The account has no usable sign-in (no OAuth token yet, or it was revoked): sign in again.
    case signInRequired(account: AccountName)
    /// An action needs one account and there are none, or several (`available`).
    case accountNeeded(available: [AccountName])
    /// An action on `target` needs the folder it applies to: it is in none of the implied ones
    /// (`inInbox` false: not in the Inbox) or in several.
    case folderNeeded(target: String, folders: [String])
    /// A new account needs its IMAP or SMTP server.
    case serverMissing(ServerRole)
    /// A setting was given a value it does not take.
    case invalidSetting(SettingError)
    /// Undo found no archive or delete still inside its window.
    case nothingToUndo
    /// Issue 37: a read receipt that must not be sent (or asked for) for this message.
    case readReceiptRefused(ReadReceiptRefusal)
    /// Issue 36: the message offers no unsubscribe Tern carries out (RFC 2369, RFC 8058).
    case unsubscribeUnavailable(UnsubscribeUnavailable)

    public var message: String {
        switch self {
        case .invalidInput(let text): "invalid input: \(text)"
        case .notFound(let text): "not found: \(text)"
        case .alreadyExists(let text): "already exists: \(text)"
        case .storageUnavailable(let text): "storage unavailable: \(text)"
        case .databaseUnusable(let text): "database unusable: \(text)"
        case .storeBusy(let text): "store busy: \(text)"
        case .secretUnavailable(let text): "secret unavailable: \(text)"
        case .serverFailure(let text): "server: \(text)"
        case .authenticationRefused(let text): "authentication failed: \(text)"
        case .tlsRefused(let text): "TLS refused: \(text)"
        case .authenticationExpired(let text): "sign-in expired: \(text)"
        case .connectionLost(let text): "connection lost: \(text)"
        case .signInRequired(let account): "account '\(account)' must sign in again"
        case .accountNeeded(let available):
            available.isEmpty ? "there is no account" : "several accounts (\(available.map(\.rawValue).joined(separator: ", "))): which one?"
        case .folderNeeded(let target, let folders):
            "\(target) is in \(folders.isEmpty ? "no synced folder" : folders.joined(separator: ", ")): which folder?"
        case .serverMissing(let role): "the \(role.rawValue) server is missing"
        case .invalidSetting(let error):
            "invalid value '\(error.value)' for \(error.key.rawValue) (one of: \(error.choices.joined(separator: ", ")))"
        case .nothingToUndo: "nothing to undo: no archive or delete is still inside its undo window"
        case .readReceiptRefused(let refusal): "no read receipt: \(refusal.sentence)"
        case .unsubscribeUnavailable(let reason): "cannot unsubscribe: \(reason.sentence)"
        }
    }

    /// Trying again later may succeed.
    public var isRetryable: Bool {
        if case .connectionLost = self { true } else { false }
    }

    /// The server refused the account's sign-in or its TLS, or the sign-in is gone: trying again
    /// changes nothing until the person acts, and repeated failed logins can lock the account, so
    /// the queues never retry these on their schedules (issue 33).
    public var needsPerson: Bool {
        switch self {
        case .authenticationRefused, .tlsRefused, .authenticationExpired, .signInRequired: true
        default: false
        }
    }

    public var description: String { message }
}

/// Which of an account's servers.
public enum ServerRole: String, Sendable, Hashable, Codable {
    case imap = "IMAP"
    case smtp = "SMTP"
}
