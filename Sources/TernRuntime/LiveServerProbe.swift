import Foundation
import IMAP
import MailTransport
import SMTP
import Sync
import TernCore

/// `ServerProbe` on Tern's IMAP and SMTP clients: connect, log in (refreshing an OAuth token the
/// server rejects), list or report, log out.
struct LiveServerProbe: ServerProbe {
    func checkIMAP(account: Account, credentials: CredentialSupply) async throws -> IMAPCheckReport {
        let server = MailServer(imapOf: account)
        return try await translatingMailFailures {
            try await IMAPClient.withSession(to: server) { session in
                try await session.authenticate(with: credentials.imapSource)
                let listings = try await session.listMailboxes()
                let capabilities = session.capabilities.sorted()
                let greeting = session.greeting?.text ?? ""
                try await session.logout()
                return IMAPCheckReport(
                    server: "\(account.imap.host):\(account.imap.port)", greeting: greeting, capabilities: capabilities,
                    folders: listings.map { .init(path: $0.name, folderType: $0.folderType, attributes: $0.attributes) })
            }
        }
    }

    func checkSMTP(account: Account, credentials: CredentialSupply) async throws -> SMTPCheckReport {
        let server = MailServer(smtpOf: account)
        func check(_ secret: AccountSecret) async throws -> SMTPCheckResult {
            try await SMTPClient.check(server: server, credential: MailCredential(secret, username: credentials.username))
        }
        return try await translatingMailFailures {
            let result: SMTPCheckResult
            do {
                result = try await check(try await credentials.current())
            } catch SMTPError.authenticationFailed {
                result = try await check(try await credentials.refreshed())
            }
            return SMTPCheckReport(
                server: "\(account.smtp.host):\(account.smtp.port)", greeting: result.greeting.text,
                extensions: result.extensions, authentication: result.authenticatedWith)
        }
    }
}

extension LiveServerProbe {
    /// Issue 35: a second connection that accepts no certificate and records the one presented
    /// (`CertificateTrust.inspect`), through the protocol's own client so STARTTLS is reached as
    /// in use. Only after a refusal of a certificate no trusted root vouches for.
    func certificateToJudge(of endpoint: ServerEndpoint, role: ServerRole, caFile: String?, refusal: TernError) async -> ServerCertificate? {
        guard case .tlsRefused(let detail) = refusal, TransportFailure.isUntrustedChain(detail) else { return nil }
        return await presentedCertificate(of: endpoint, role: role, caFile: caFile)
    }

    func presentedCertificate(of endpoint: ServerEndpoint, role: ServerRole, caFile: String?) async -> ServerCertificate? {
        var server = MailServer(endpoint, caFile: caFile)
        server.certificateTrust = .inspect
        switch role {
        case .imap: _ = try? await IMAPClient.withSession(to: server) { _ in }
        case .smtp: _ = try? await SMTPClient.check(server: server, credential: .password(username: "", password: ""))
        }
        guard let presented = server.presentedCertificate.certificate, let fingerprint = CertificateFingerprint(presented.sha256) else {
            return nil
        }
        return ServerCertificate(
            host: endpoint.host, port: endpoint.port, subject: presented.subject, issuer: presented.issuer,
            notValidBefore: presented.notValidBefore, notValidAfter: presented.notValidAfter, fingerprint: fingerprint)
    }
}

extension CredentialSupply {
    /// For the IMAP pool and sessions: a rejected credential is refreshed once (FR-SYNC-04).
    var imapSource: IMAPCredentialSource {
        let username = username
        let current = current
        let refreshed = refreshed
        return IMAPCredentialSource(
            current: { MailCredential(try await current(), username: username) },
            refresh: { MailCredential(try await refreshed(), username: username) })
    }
}
