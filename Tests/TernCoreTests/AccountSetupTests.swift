import Foundation
import Synchronization
import Testing

@testable import TernCore

/// Issue 35's "Add account": each step said as it starts and ends, a typed failure per step,
/// nothing kept unless every step passed, and the accounts' change announced.
@Suite struct AccountSetupTests {
    /// A probe whose IMAP check asks for the password (as a session does once connected) unless
    /// the connection fails first, and whose answers are scripted.
    final class ScriptedProbe: ServerProbe {
        let imapFailure: TernError?
        let failsBeforeSignIn: Bool
        let smtpFailure: TernError?
        let passwords = Mutex<[String]>([])
        /// Issue 35: what the servers present that no trusted root vouches for; a pin for it lets the check pass.
        let untrusted: ServerCertificate?

        init(imapFailure: TernError? = nil, failsBeforeSignIn: Bool = false, smtpFailure: TernError? = nil, untrusted: ServerCertificate? = nil) {
            self.imapFailure = imapFailure
            self.failsBeforeSignIn = failsBeforeSignIn
            self.smtpFailure = smtpFailure
            self.untrusted = untrusted
        }

        func certificateToJudge(of endpoint: ServerEndpoint, role: ServerRole, caFile: String?, refusal: TernError) async -> ServerCertificate? {
            guard var untrusted else { return nil }
            untrusted.host = endpoint.host
            untrusted.port = endpoint.port
            return untrusted
        }

        func refuseUnpinned(_ account: Account, _ endpoint: ServerEndpoint) throws {
            if let untrusted, account.pinnedCertificate(for: endpoint) != untrusted.fingerprint {
                throw TernError.tlsRefused("the server's certificate is not trusted")
            }
        }

        func checkIMAP(account: Account, credentials: CredentialSupply) async throws -> IMAPCheckReport {
            try refuseUnpinned(account, account.imap)
            if let imapFailure, failsBeforeSignIn { throw imapFailure }
            switch try await credentials.current() {
            case .password(let password): passwords.withLock { $0.append(password) }
            case .accessToken(let token): passwords.withLock { $0.append("token:\(token)") }
            }
            if let imapFailure { throw imapFailure }
            return IMAPCheckReport(server: account.imap.host, greeting: "", capabilities: [], folders: [])
        }

        func checkSMTP(account: Account, credentials: CredentialSupply) async throws -> SMTPCheckReport {
            try refuseUnpinned(account, account.smtp)
            if let smtpFailure { throw smtpFailure }
            return SMTPCheckReport(server: account.smtp.host, greeting: "", extensions: [], authentication: "PLAIN")
        }
    }

    final class KeptPasswords: AccountPasswordKeeper {
        let kept = Mutex<[Account.ID: String]>([:])
        func keep(_ password: String, for accountID: Account.ID) async throws -> CredentialSource {
            kept.withLock { $0[accountID] = password }
            return .passwordCommand("kept \(accountID)")
        }
        func forget(for accountID: Account.ID) async { _ = kept.withLock { $0.removeValue(forKey: accountID) } }
        var all: [Account.ID: String] { kept.withLock { $0 } }
    }

    final class Events: Sendable {
        let list = Mutex<[AccountSetupEvent]>([])
        func record(_ event: AccountSetupEvent) { list.withLock { $0.append(event) } }
        var steps: [String] {
            list.withLock { $0 }.compactMap { event in
                switch event {
                case .started(let step): "+\(step.rawValue)"
                case .finished(let step): "-\(step.rawValue)"
                default: nil
                }
            }
        }
    }

    struct FoundSource: AccountSettingsSource {
        let step = DiscoveryStep.autoconfig
        let found: Bool
        func lookUp(_ address: DiscoveryAddress, report: @escaping @Sendable (DiscoveryStepReport) -> Void) async -> DiscoveryStepOutcome {
            guard found else { return DiscoveryStepOutcome(settings: nil, failures: [.httpStatus(url: "https://\(address.domain)/", status: 404)]) }
            return DiscoveryStepOutcome(
                settings: DiscoveredAccountSettings(
                    imap: ServerEndpoint(host: "imap.\(address.domain)", port: 993, security: .implicitTLS),
                    smtp: ServerEndpoint(host: "smtp.\(address.domain)", port: 465, security: .implicitTLS), username: address.address,
                    source: .autoconfig(url: "https://\(address.domain)/config")))
        }
    }

    let accounts = InMemoryAccounts()
    let passwords = KeptPasswords()
    let changes = ChangeFeed()

    func setUp(_ probe: ScriptedProbe, found: Bool = true) -> SetUpAccountUseCase {
        SetUpAccountUseCase(
            discover: { _ in DiscoverAccountSettingsUseCase(sources: [FoundSource(found: found)], encodeDomain: { $0 }) }, probe: probe,
            accounts: accounts, addAccount: AddAccountUseCase(accounts: accounts, secrets: FixedSecrets()), passwords: passwords,
            changes: changes)
    }

    func request(servers: AccountServerSettings? = nil) -> AccountSetupRequest {
        AccountSetupRequest(name: "work", emailAddress: "jane@example.org", password: "pw", servers: servers)
    }

    @Test func everyStepInTurnThenTheAccountWithItsPasswordKept() async throws {
        let probe = ScriptedProbe()
        let events = Events()
        var heard = changes.changes().makeAsyncIterator()
        let account = try await setUp(probe)(request(), progress: events.record)
        #expect(
            events.steps == [
                "+looking-up", "-looking-up", "+connecting", "-connecting", "+signing-in", "-signing-in", "+checking-sending",
                "-checking-sending", "+saving", "-saving"
            ])
        #expect(account.imap.host == "imap.example.org" && account.username == "jane@example.org")
        #expect(account.credential == .passwordCommand("kept \(account.id)"))
        #expect(passwords.all == [account.id: "pw"])
        #expect(probe.passwords.withLock { $0 } == ["pw"])
        #expect(try await accounts.allAccounts().map(\.name) == ["work"])
        #expect(await heard.next() == .accountsChanged)
    }

    @Test func typedServersSkipTheLookUp() async throws {
        let events = Events()
        let typed = AccountServerSettings(
            imap: ServerEndpoint(host: "mail.example.org", port: 143, security: .startTLS),
            smtp: ServerEndpoint(host: "mail.example.org", port: 587, security: .startTLS), username: "")
        let account = try await setUp(ScriptedProbe(), found: false)(request(servers: typed), progress: events.record)
        #expect(!events.steps.contains("+looking-up"))
        #expect(account.imap == typed.imap && account.username == "jane@example.org")
    }

    @Test func eachStepFailsWithItsOwnTypedError() async throws {
        await #expect(throws: AccountSetupFailure.self) { try await setUp(ScriptedProbe(), found: false)(request()) }
        do {
            _ = try await setUp(ScriptedProbe(), found: false)(request())
        } catch {
            #expect(error.step == .lookingUp)
        }
        let cases: [(ScriptedProbe, AccountSetupFailure)] = [
            (ScriptedProbe(imapFailure: .connectionLost("refused"), failsBeforeSignIn: true), .step(.connecting, .connectionLost("refused"))),
            (ScriptedProbe(imapFailure: .tlsRefused("untrusted"), failsBeforeSignIn: true), .step(.connecting, .tlsRefused("untrusted"))),
            (ScriptedProbe(imapFailure: .authenticationRefused("no")), .step(.signingIn, .authenticationRefused("no"))),
            (ScriptedProbe(smtpFailure: .authenticationRefused("no")), .step(.checkingSending, .authenticationRefused("no")))
        ]
        for (probe, expected) in cases {
            do {
                _ = try await setUp(probe)(request())
                Issue.record("\(expected) expected")
            } catch {
                #expect(error == expected)
            }
        }
        #expect(try await accounts.allAccounts().isEmpty, "a failed setup keeps nothing")
        #expect(passwords.all.isEmpty)
    }

    /// Issue 35: a certificate no trusted root vouches for is offered at the step that met it, with
    /// its details; trusted for the IMAP server, it is offered again for the SMTP server; trusted
    /// for both, the account keeps the two pins; an expired one is refused as before.
    @Test func anUntrustedCertificateIsOfferedPerServerAndKeptOncePinned() async throws {
        let fingerprint = try #require(CertificateFingerprint("SHA256:" + String(repeating: "ab", count: 32)))
        let now = Date()
        let certificate = ServerCertificate(
            host: "", port: 0, subject: "CN=localhost", issuer: "CN=Private CA", notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(3600), fingerprint: fingerprint)
        let probe = ScriptedProbe(untrusted: certificate)
        var setup = request()
        do {
            _ = try await setUp(probe)(setup)
            Issue.record("the certificate should be offered")
        } catch {
            guard case .untrustedCertificate(.connecting, let offered) = error else { throw error }
            #expect(offered.host == "imap.example.org" && offered.port == 993 && offered.issuer == "CN=Private CA")
            setup.trustedCertificates.append(offered.pin)
        }
        do {
            _ = try await setUp(probe)(setup)
            Issue.record("the SMTP server's certificate should be offered")
        } catch {
            guard case .untrustedCertificate(.checkingSending, let offered) = error else { throw error }
            #expect(offered.host == "smtp.example.org" && offered.port == 465)
            setup.trustedCertificates.append(offered.pin)
        }
        setup.trustedCertificates.append(PinnedCertificate(host: "elsewhere.example.org", port: 993, fingerprint: fingerprint))
        let account = try await setUp(probe)(setup)
        #expect(account.pinnedCertificates.map { "\($0.host):\($0.port)" } == ["imap.example.org:993", "smtp.example.org:465"])
        #expect(try await accounts.allAccounts().first?.pinnedCertificates.count == 2)

        var expired = certificate
        expired.notValidAfter = now.addingTimeInterval(-60)
        do {
            _ = try await setUp(ScriptedProbe(untrusted: expired))(AccountSetupRequest(name: "old", emailAddress: "o@example.org", password: "pw"))
            Issue.record("an expired certificate is refused")
        } catch {
            #expect(error == .step(.connecting, .tlsRefused("the server's certificate is not trusted")))
        }
    }

    @Test func aFingerprintIsReadWithOrWithoutColonsAndShownWithThem() throws {
        let hex = String(repeating: "0f", count: 32)
        let plain = try #require(CertificateFingerprint("SHA256:" + hex.uppercased()))
        let pairs = Array(repeating: "0f", count: 32).joined(separator: ":")
        let colons = try #require(CertificateFingerprint("sha256:" + pairs))
        #expect(plain == colons && plain.hex == hex)
        #expect(plain.description.hasPrefix("SHA256:0F:0F:") && plain.description.count == 7 + 64 + 31)
        #expect(CertificateFingerprint("SHA256:abc") == nil && CertificateFingerprint("SHA256:" + String(repeating: "zz", count: 32)) == nil)
        let pins = [PinnedCertificate(host: "mail.example.org", port: 993, fingerprint: plain)]
        #expect(PinnedCertificate.decodeList(PinnedCertificate.encodeList(pins)) == pins)
    }

    @Test func whatWasTypedIsCheckedBeforeAnyStep() async throws {
        let events = Events()
        _ = try await setUp(ScriptedProbe())(request())
        for bad in [
            AccountSetupRequest(name: "work", emailAddress: "jane@example.org", password: "pw"),
            AccountSetupRequest(name: "-x", emailAddress: "jane@example.org", password: "pw"),
            AccountSetupRequest(name: "home", emailAddress: "jane", password: "pw"),
            AccountSetupRequest(name: "home", emailAddress: "jane@example.org", password: "")
        ] {
            do {
                _ = try await setUp(ScriptedProbe())(bad, progress: events.record)
                Issue.record("\(bad.name) \(bad.emailAddress) should be refused")
            } catch {
                guard case .invalid = error else {
                    Issue.record("\(error)")
                    continue
                }
            }
        }
        #expect(events.steps.isEmpty)
    }

    @Test func removalForgetsTheKeptPasswordAndAnnouncesIt() async throws {
        let account = try await setUp(ScriptedProbe())(request())
        var heard = changes.changes().makeAsyncIterator()
        try await RemoveAccountUseCase(accounts: accounts, files: RecordingFiles(), passwords: passwords, changes: changes)(name: "work")
        #expect(passwords.all[account.id] == nil)
        #expect(await heard.next() == .accountsChanged)
    }
}

/// Issue 35: servers that sign in with Google or Microsoft stop the setup after looking up, so the
/// front end offers the provider's sign-in; with its tokens the setup tries both servers with the
/// access token and keeps the tokens, never a password.
extension AccountSetupTests {
    actor SavedTokens: OAuthTokenStore {
        var saved: [Account.ID: OAuthTokens] = [:]
        func tokens(for accountID: Account.ID) async throws -> OAuthTokens? { saved[accountID] }
        func save(_ tokens: OAuthTokens, for accountID: Account.ID) async throws { saved[accountID] = tokens }
        func delete(for accountID: Account.ID) async throws { saved[accountID] = nil }
    }

    func setUp(_ probe: ScriptedProbe, tokens: SavedTokens) -> SetUpAccountUseCase {
        SetUpAccountUseCase(
            discover: { _ in DiscoverAccountSettingsUseCase(sources: [FoundSource(found: false)], encodeDomain: { $0 }) }, probe: probe,
            accounts: accounts, addAccount: AddAccountUseCase(accounts: accounts, secrets: FixedSecrets()), passwords: passwords,
            changes: changes, tokens: tokens)
    }

    static let microsoftServers = AccountServerSettings(
        imap: AddAccountUseCase.microsoftIMAP, smtp: AddAccountUseCase.microsoftSMTP, username: "", provider: .microsoft, oauth: .microsoft,
        passwordAccepted: false)

    @Test func serversThatTakeAProvidersSignInAskForIt() async throws {
        let probe = ScriptedProbe()
        for password in ["", "a password Microsoft refuses"] {
            var request = AccountSetupRequest(name: "office", emailAddress: "jane@outlook.com", password: password, servers: Self.microsoftServers)
            request.passwordOptional = true
            do {
                _ = try await setUp(probe, tokens: SavedTokens())(request)
                Issue.record("the setup should ask for Microsoft's sign-in")
            } catch {
                var servers = Self.microsoftServers
                servers.username = "jane@outlook.com"
                #expect(error == .signInWithProvider(.microsoft, servers))
                #expect(error.step == .signingIn)
            }
        }
        // Gmail takes an app password too: only an empty one asks for Google's sign-in.
        let gmail = AccountServerSettings(
            imap: AddAccountUseCase.gmailIMAP, smtp: AddAccountUseCase.gmailSMTP, username: "", provider: .gmail, oauth: .google)
        var empty = AccountSetupRequest(name: "gm", emailAddress: "jane@gmail.com", password: "", servers: gmail)
        empty.passwordOptional = true
        var gmailFilled = gmail
        gmailFilled.username = "jane@gmail.com"
        await #expect(throws: AccountSetupFailure.signInWithProvider(.google, gmailFilled)) { try await setUp(probe, tokens: SavedTokens())(empty) }
        let withAppPassword = AccountSetupRequest(name: "gm", emailAddress: "jane@gmail.com", password: "app-password", servers: gmail)
        #expect(try await setUp(probe, tokens: SavedTokens())(withAppPassword).provider == .gmail)
        #expect(probe.passwords.withLock { $0 } == ["app-password"], "nothing was tried before the sign-in")
        // A password server with no password is still refused, after looking up when allowed to be empty.
        var plain = request(servers: AccountServerSettings(imap: Self.microsoftServers.imap, smtp: Self.microsoftServers.smtp, username: ""))
        plain.password = ""
        plain.passwordOptional = true
        await #expect(throws: AccountSetupFailure.invalid(.invalidInput("the password is empty"))) {
            try await setUp(probe, tokens: SavedTokens())(plain)
        }
    }

    @Test func aSignedInSetupTriesTheTokenAndKeepsTheTokens() async throws {
        let probe = ScriptedProbe()
        let tokens = SavedTokens()
        let signedIn = OAuthTokens(accessToken: "access", refreshToken: "refresh", expiresAt: nil)
        var request = AccountSetupRequest(name: "office", emailAddress: "jane@outlook.com", password: "", servers: Self.microsoftServers)
        request.oauth = OAuthSignedIn(provider: .microsoft, clientID: "client", tokens: signedIn)
        let account = try await setUp(probe, tokens: tokens)(request)
        #expect(probe.passwords.withLock { $0 } == ["token:access"])
        #expect(account.credential == .oauth2(clientID: "client") && account.provider == .microsoft)
        #expect(await tokens.saved == [account.id: signedIn])
        #expect(passwords.all.isEmpty, "no password is kept")
        #expect(try await accounts.account(named: "office")?.provider == .microsoft)

        // A setup that fails after the sign-in keeps neither the account nor the tokens.
        var second = request
        second.name = "office2"
        let refused = ScriptedProbe(smtpFailure: .authenticationRefused("no"))
        await #expect(throws: AccountSetupFailure.self) { try await setUp(refused, tokens: tokens)(second) }
        #expect(await tokens.saved.count == 1)
    }
}
