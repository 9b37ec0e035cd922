import Foundation
import IMAP
import MailTransport
import Sync
import TernCore

/// Issue 33: the account's settings (TernCore) become the transport's types here and nowhere else.
extension MailServer {
    /// `endpoint` with the account's CA file, and the certificate the person trusted for it (issue 35).
    init(_ endpoint: ServerEndpoint, caFile: String?, pinned: CertificateFingerprint? = nil) {
        self.init(
            host: endpoint.host, port: endpoint.port, security: TransportSecurity(endpoint.security), caFile: caFile,
            certificateTrust: pinned.map { .pinned(sha256: $0.hex) } ?? .verified)
    }

    /// The account's SMTP server.
    init(smtpOf account: Account) {
        self.init(account.smtp, caFile: account.caFile, pinned: account.pinnedCertificate(for: account.smtp))
    }

    /// The account's IMAP server. `TERN_IMAP_DISABLE_CAPABILITIES` (comma-separated, e.g.
    /// `QRESYNC,COMPRESS=DEFLATE`) has Tern use the server as if it lacked those extensions: a way
    /// around a server whose extension misbehaves, and how `scripts/bench/qresync_sync.py` measures
    /// the path without one (docs/decisions.md). `TERN_IMAP_COMMAND_TIMEOUT` (seconds) is how long a
    /// command may wait with no byte from the server before the connection counts as stuck (60 s):
    /// longer for a very slow link, shorter for the fault tests that stall one.
    init(imapOf account: Account, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(account.imap, caFile: account.caFile, pinned: account.pinnedCertificate(for: account.imap))
        if let seconds = environment["TERN_IMAP_COMMAND_TIMEOUT"].flatMap(Double.init), seconds >= 0.5, seconds <= 3600 {
            commandTimeout = .milliseconds(Int(seconds * 1000))
            watchdogInterval = min(watchdogInterval, .milliseconds(Int(seconds * 250)))
        }
        ignoredCapabilities = Set(
            (environment["TERN_IMAP_DISABLE_CAPABILITIES"] ?? "")
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).uppercased() }.filter { !$0.isEmpty })
    }
}

extension TransportSecurity {
    init(_ security: ConnectionSecurity) {
        switch security {
        case .implicitTLS: self = .implicitTLS
        case .startTLS: self = .startTLS
        case .plaintext: self = .plaintext
        }
    }
}

extension MailCredential {
    /// The account's secret with its user name, as a connection logs in.
    init(_ secret: AccountSecret, username: String) {
        switch secret {
        case .password(let password): self = .password(username: username, password: password)
        case .accessToken(let token): self = .oauth2(username: username, accessToken: token)
        }
    }
}

extension BackoffSchedule {
    /// FR-SYNC-09's 5, 15 and 45 s, or `TERN_RECONNECT_BACKOFF` (seconds, comma-separated, e.g.
    /// `0.2,0.4,0.8`): fault tests that stop a server do not wait a minute for each reconnect.
    static func configured(environment: [String: String] = ProcessInfo.processInfo.environment) -> BackoffSchedule {
        let delays = ConfiguredDelays.parse(environment, "TERN_RECONNECT_BACKOFF")
        return delays.isEmpty ? .standard : BackoffSchedule(delays)
    }
}

extension AccountConnectionPools {
    /// The account's pool (FR-SYNC-09), logging in with the account's credentials.
    func pool(for account: Account, credentials: CredentialSupply) async -> IMAPConnectionPool {
        pool(
            for: account.id, server: MailServer(imapOf: account), username: credentials.username,
            credentials: credentials.imapSource)
    }
}
