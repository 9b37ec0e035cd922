import Foundation
import TernCore
import Testing

@testable import TernRuntime

/// Issue 35 against the test servers, whose certificate a private CA signed (`TERN_TEST_CA`):
/// without that CA the certificate is refused and offered with its details; pinned by its
/// fingerprint, IMAP and SMTP connect, over implicit TLS and STARTTLS alike; a pin of another
/// fingerprint (the certificate "changed") is refused with both fingerprints.
@Suite(.enabled(if: PinnedServers.available, "needs the test mail servers (make test)"), .serialized, .timeLimit(.minutes(1)))
struct CertificatePinningTests {
    let probe = LiveServerProbe()

    @Test func anUntrustedCertificateIsShownThenPinnedForIMAPAndSMTP() async throws {
        var account = PinnedServers.account(imap: PinnedServers.imapsPort, security: .implicitTLS)
        let refusal: TernError
        do {
            _ = try await probe.checkIMAP(account: account, credentials: PinnedServers.credentials)
            Issue.record("the private CA's certificate should not be trusted without it")
            return
        } catch let error as TernError {
            refusal = error
        }
        guard case .tlsRefused(let text) = refusal else { throw refusal }
        #expect(text.contains("not trusted"))
        let certificate = try #require(await probe.certificateToJudge(of: account.imap, role: .imap, caFile: nil, refusal: refusal))
        #expect(certificate.issuer == "CN=Tern Test CA")
        #expect(certificate.host == "127.0.0.1" && certificate.port == PinnedServers.imapsPort)
        #expect(certificate.isValid(at: Date()))
        #expect(await probe.certificateToJudge(of: account.imap, role: .imap, caFile: nil, refusal: .tlsRefused("older TLS")) == nil)

        for (port, security) in [(PinnedServers.imapsPort, ConnectionSecurity.implicitTLS), (PinnedServers.imapPort, .startTLS)] {
            account.imap = ServerEndpoint(host: "127.0.0.1", port: port, security: security)
            account.pinnedCertificates = [PinnedCertificate(account.imap, fingerprint: certificate.fingerprint)]
            let report = try await probe.checkIMAP(account: account, credentials: PinnedServers.credentials)
            #expect(!report.folders.isEmpty)
        }
        for (port, security) in [(PinnedServers.smtpsPort, ConnectionSecurity.implicitTLS), (PinnedServers.submissionPort, .startTLS)] {
            account.smtp = ServerEndpoint(host: "127.0.0.1", port: port, security: security)
            let smtpCertificate = try #require(await probe.presentedCertificate(of: account.smtp, role: .smtp, caFile: nil))
            #expect(smtpCertificate.fingerprint == certificate.fingerprint)
            account.pinnedCertificates = [PinnedCertificate(account.smtp, fingerprint: certificate.fingerprint)]
            _ = try await probe.checkSMTP(account: account, credentials: PinnedServers.credentials)
        }
    }

    @Test func aChangedCertificateIsRefusedWithBothFingerprints() async throws {
        for security in [ConnectionSecurity.implicitTLS, .startTLS] {
            var account = PinnedServers.account(
                imap: security == .implicitTLS ? PinnedServers.imapsPort : PinnedServers.imapPort, security: security)
            let presented = try #require(await probe.presentedCertificate(of: account.imap, role: .imap, caFile: nil))
            let pinned = try #require(CertificateFingerprint("SHA256:" + String(repeating: "5a", count: 32)))
            account.pinnedCertificates = [PinnedCertificate(account.imap, fingerprint: pinned)]
            await #expect {
                _ = try await probe.checkIMAP(account: account, credentials: PinnedServers.credentials)
            } throws: { error in
                guard case .tlsRefused(let text) = error as? TernError else { return false }
                return text.contains("changed") && text.contains(pinned.description) && text.contains(presented.fingerprint.description)
            }
            // Nothing is offered for a pinned server: the person removes the pin in Settings first.
            #expect(await probe.certificateToJudge(of: account.imap, role: .imap, caFile: nil, refusal: .tlsRefused("changed")) == nil)
        }
        var account = PinnedServers.account(imap: PinnedServers.imapsPort, security: .implicitTLS)
        account.smtp = ServerEndpoint(host: "127.0.0.1", port: PinnedServers.submissionPort, security: .startTLS)
        let pinned = try #require(CertificateFingerprint("SHA256:" + String(repeating: "a5", count: 32)))
        account.pinnedCertificates = [PinnedCertificate(account.smtp, fingerprint: pinned)]
        await #expect {
            _ = try await probe.checkSMTP(account: account, credentials: PinnedServers.credentials)
        } throws: { error in
            guard case .tlsRefused(let text) = error as? TernError else { return false }
            return text.contains("changed") && text.contains(pinned.description)
        }
    }
}

enum PinnedServers {
    static let environment = ProcessInfo.processInfo.environment
    static var available: Bool {
        guard let directory = environment["TERN_MAILSERVERS_DIR"] else { return false }
        return FileManager.default.fileExists(atPath: directory + "/tls/ca.crt")
    }
    static func port(_ name: String, _ fallback: Int) -> Int { Int(environment[name] ?? "") ?? fallback }
    static var imapsPort: Int { port("TERN_IMAPS_PORT", 10993) }
    static var imapPort: Int { port("TERN_IMAP_PORT", 10143) }
    static var smtpsPort: Int { port("TERN_SMTPS_PORT", 10465) }
    static var submissionPort: Int { port("TERN_SUBMISSION_PORT", 10587) }
    static var password: String { environment["TERN_TEST_PASSWORD"] ?? "tern-test-password" }
    static var credentials: CredentialSupply {
        let password = password
        return CredentialSupply(username: "bob@tern.test", current: { .password(password) }, refreshed: { .password(password) })
    }

    static func account(imap port: Int, security: ConnectionSecurity) -> Account {
        Account(
            name: "pinned", emailAddress: "bob@tern.test", provider: .imap,
            imap: ServerEndpoint(host: "127.0.0.1", port: port, security: security),
            smtp: ServerEndpoint(host: "127.0.0.1", port: smtpsPort, security: .implicitTLS), username: "bob@tern.test",
            credential: .passwordEnvironment("X"))
    }
}
