import Foundation
import Synchronization

/// Issue 35, "Add account" as a person does it in the web app: an address and a password, the
/// servers found (or typed), both servers tried with that password, and only then the account kept.
/// The steps in the order they run, so a front end can say what is being done and which step failed.
public enum AccountSetupStep: String, Sendable, Hashable, Codable, CaseIterable {
    /// Discovery (`DiscoverAccountSettingsUseCase`), skipped when the servers were typed.
    case lookingUp = "looking-up"
    /// The IMAP server reached and its TLS accepted.
    case connecting
    /// The IMAP server accepted the user name and password.
    case signingIn = "signing-in"
    /// The SMTP server reached, its TLS accepted, and the same sign-in accepted there.
    case checkingSending = "checking-sending"
    /// The password kept (`AccountPasswordKeeper`) and the account stored.
    case saving
}

/// What the setup says while it runs.
public enum AccountSetupEvent: Sendable, Hashable {
    case started(AccountSetupStep)
    /// Discovery's own events, inside `.lookingUp`.
    case discovery(DiscoveryEvent)
    /// The servers the next steps use: what was found, or what was typed.
    case servers(AccountServerSettings)
    case finished(AccountSetupStep)
}

/// An account's servers as the "Edit server settings" form shows and takes them.
public struct AccountServerSettings: Sendable, Hashable {
    public var imap: ServerEndpoint
    public var smtp: ServerEndpoint
    public var username: String
    public var provider: MailProvider
    /// Where they were found; nil when the person typed them.
    public var source: DiscoverySource?
    /// Issue 35: the provider whose OAuth 2.0 sign-in these servers take (Google's, Microsoft's);
    /// nil when they take a password only.
    public var oauth: OAuthProvider?
    /// Whether a password signs in at all (Gmail's app passwords do; Microsoft's servers take OAuth only).
    public var passwordAccepted: Bool

    public init(
        imap: ServerEndpoint, smtp: ServerEndpoint, username: String, provider: MailProvider = .imap, source: DiscoverySource? = nil,
        oauth: OAuthProvider? = nil, passwordAccepted: Bool = true
    ) {
        self.imap = imap
        self.smtp = smtp
        self.username = username
        self.provider = provider
        self.source = source
        self.oauth = oauth
        self.passwordAccepted = passwordAccepted
    }

    /// What discovery found, with the sign-in its provider offers.
    public init(found: DiscoveredAccountSettings) {
        let oauth = found.authentication.contains(.oauth2) ? OAuthProvider(offeredBy: found.provider) : nil
        self.init(
            imap: found.imap, smtp: found.smtp, username: found.username, provider: found.provider, source: found.source, oauth: oauth,
            passwordAccepted: oauth == nil || !found.needsOAuth)
    }
}

/// Issue 35: the tokens of a browser sign-in the front end ran before the setup (authorization code
/// with PKCE), with the provider and client id they were issued to.
public struct OAuthSignedIn: Sendable, Hashable {
    public var provider: OAuthProvider
    public var clientID: String
    public var tokens: OAuthTokens

    public init(provider: OAuthProvider, clientID: String, tokens: OAuthTokens) {
        self.provider = provider
        self.clientID = clientID
        self.tokens = tokens
    }
}

/// Why the setup stopped, typed so that a front end words each step's failure itself.
public enum AccountSetupFailure: Error, Sendable, Equatable {
    /// What was typed cannot be used (a name taken or not allowed, no address, no password); no step ran.
    case invalid(TernError)
    /// Discovery found nothing (or the address has no domain): the person types the servers.
    case noSettings(DiscoveryError)
    /// The step failed with the server's (or the store's) error. `.connecting` with `.tlsRefused` is
    /// where a certificate a person can judge will be offered (issue 35's "Trust this certificate").
    case step(AccountSetupStep, TernError)
    /// The server at that step presented a certificate that does not chain to a trusted root: the
    /// person may judge it and trust it by its fingerprint (`AccountSetupRequest.trustedCertificates`).
    case untrustedCertificate(AccountSetupStep, ServerCertificate)
    /// Issue 35: these servers sign in with the provider's OAuth in a browser, and no password
    /// was given (or they take none): the front end offers "Sign in with …", then runs the setup
    /// again with `AccountSetupRequest.oauth`.
    case signInWithProvider(OAuthProvider, AccountServerSettings)

    public var step: AccountSetupStep? {
        switch self {
        case .invalid: nil
        case .noSettings: .lookingUp
        case .step(let step, _), .untrustedCertificate(let step, _): step
        case .signInWithProvider: .signingIn
        }
    }
}

/// What the person typed on the "Add account" screen.
public struct AccountSetupRequest: Sendable {
    public var name: AccountName
    public var emailAddress: String
    public var password: String
    public var displayName: String?
    /// The online database may be asked (the person's consent, off by default).
    public var lookupOnline: Bool
    /// "Edit server settings": used as they are, and discovery is not run.
    public var servers: AccountServerSettings?
    /// An extra CA to trust (a PEM file), as `tern account add --ca-file`: for the autoconfig
    /// documents and the mail servers.
    public var caFile: String?
    /// Certificates the person trusted ("Trust this certificate"), each for its host and port.
    public var trustedCertificates: [PinnedCertificate] = []
    /// Issue 35: the password may be left empty, for servers that sign in with a provider: the
    /// setup then stops after looking up with `.signInWithProvider` (the web form, which shows the
    /// password field and the sign-in button only once it knows which one the servers take).
    public var passwordOptional = false
    /// Issue 35: the browser sign-in already done; the servers are tried with its access token and
    /// the account keeps its tokens, not a password.
    public var oauth: OAuthSignedIn?

    public init(
        name: AccountName, emailAddress: String, password: String, displayName: String? = nil, lookupOnline: Bool = false,
        servers: AccountServerSettings? = nil, caFile: String? = nil
    ) {
        self.name = name
        self.emailAddress = emailAddress
        self.password = password
        self.displayName = displayName
        self.lookupOnline = lookupOnline
        self.servers = servers
        self.caFile = caFile
    }
}

/// Keeps a password a person typed (the web app has no password manager to point at) and answers
/// the credential source that gives it back, the same kind `tern account add --password-command`
/// stores: the runtime keeps it in the Secret Service when there is one, else in a 0600 file under
/// `$TERN_HOME/secrets/`, and the account reads it through a password command.
public protocol AccountPasswordKeeper: Sendable {
    func keep(_ password: String, for accountID: Account.ID) async throws -> CredentialSource
    /// Forgets the kept password of the account, if any (removal, or a setup that failed after keeping it).
    func forget(for accountID: Account.ID) async
}

/// Issue 35: sets up an account from what a person typed, step by step (`AccountSetupStep`), each
/// step said on `progress` as it starts and ends; nothing is stored unless every step passed, so a
/// failed setup leaves no half account. The account is then added by `AddAccountUseCase`, as
/// `tern account add` adds one, and the change feed says the accounts changed (the sync engine of
/// `tern serve` starts on it at once).
public struct SetUpAccountUseCase: Sendable {
    let discover: @Sendable (_ caFile: String?) -> DiscoverAccountSettingsUseCase
    let probe: any ServerProbe
    let accounts: any AccountRepository
    let addAccount: AddAccountUseCase
    let passwords: any AccountPasswordKeeper
    let changes: ChangeFeed?
    let tokens: (any OAuthTokenStore)?

    public init(
        discover: @escaping @Sendable (_ caFile: String?) -> DiscoverAccountSettingsUseCase, probe: any ServerProbe,
        accounts: any AccountRepository, addAccount: AddAccountUseCase, passwords: any AccountPasswordKeeper, changes: ChangeFeed?,
        tokens: (any OAuthTokenStore)? = nil
    ) {
        self.discover = discover
        self.probe = probe
        self.accounts = accounts
        self.addAccount = addAccount
        self.passwords = passwords
        self.changes = changes
        self.tokens = tokens
    }

    public func callAsFunction(
        _ request: AccountSetupRequest, progress: @escaping @Sendable (AccountSetupEvent) -> Void = { _ in }
    ) async throws(AccountSetupFailure) -> Account {
        let email = request.emailAddress.trimmingCharacters(in: .whitespaces)
        try await validate(request, email: email)
        let servers = try await settings(for: request, email: email, progress: progress)
        progress(.servers(servers))
        let secret = try Self.secret(request, servers: servers)
        let caFile = request.caFile.flatMap { $0.isEmpty ? nil : $0 }
        var probing = Account(
            name: request.name, emailAddress: email, provider: request.oauth?.provider.mailProvider ?? servers.provider, imap: servers.imap,
            smtp: servers.smtp, username: servers.username, credential: .passwordEnvironment(""), caFile: caFile)
        probing.pinnedCertificates = AddAccountUseCase.pins(request.trustedCertificates, for: servers.imap, servers.smtp)
        try await checkIMAP(probing, secret: secret, progress: progress)
        progress(.started(.checkingSending))
        do {
            _ = try await probe.checkSMTP(account: probing, credentials: Self.supply(probing, secret: secret))
        } catch {
            throw await judgeable(.checkingSending, Self.ternError(error), endpoint: probing.smtp, role: .smtp, caFile: caFile)
        }
        progress(.finished(.checkingSending))
        progress(.started(.saving))
        let account = try await save(request, email: email, servers: servers, caFile: caFile, id: probing.id)
        progress(.finished(.saving))
        changes?.publish(.accountsChanged)
        return account
    }

    func validate(_ request: AccountSetupRequest, email: String) async throws(AccountSetupFailure) {
        do {
            try AddAccountUseCase.validateName(request.name)
            guard AddAccountUseCase.looksLikeAddress(email) else {
                throw TernError.invalidInput("'\(request.emailAddress)' is not an email address")
            }
            if request.password.isEmpty && request.oauth == nil && !request.passwordOptional {
                throw TernError.invalidInput("the password is empty")
            }
            if try await accounts.account(named: request.name) != nil { throw TernError.alreadyExists("an account named '\(request.name)'") }
        } catch {
            throw .invalid(Self.ternError(error))
        }
    }

    func settings(
        for request: AccountSetupRequest, email: String, progress: @escaping @Sendable (AccountSetupEvent) -> Void
    ) async throws(AccountSetupFailure) -> AccountServerSettings {
        if let typed = request.servers {
            guard !typed.imap.host.isEmpty else { throw .invalid(.serverMissing(.imap)) }
            guard !typed.smtp.host.isEmpty else { throw .invalid(.serverMissing(.smtp)) }
            var servers = typed
            if servers.username.trimmingCharacters(in: .whitespaces).isEmpty { servers.username = email }
            return servers
        }
        progress(.started(.lookingUp))
        let found: DiscoveredAccountSettings
        let discovery = discover(request.caFile)
        do throws(DiscoveryError) {
            found = try await discovery(email: email, lookupOnline: request.lookupOnline) { progress(.discovery($0)) }
        } catch {
            throw .noSettings(error)
        }
        progress(.finished(.lookingUp))
        return AccountServerSettings(found: found)
    }

    /// What the servers are tried with: the browser sign-in's access token, else the password,
    /// unless these servers want their provider's sign-in first.
    static func secret(_ request: AccountSetupRequest, servers: AccountServerSettings) throws(AccountSetupFailure) -> AccountSecret {
        if let oauth = request.oauth { return .accessToken(oauth.tokens.accessToken) }
        if let provider = servers.oauth, request.password.isEmpty || !servers.passwordAccepted {
            throw .signInWithProvider(provider, servers)
        }
        guard !request.password.isEmpty else { throw .invalid(.invalidInput("the password is empty")) }
        return .password(request.password)
    }

    /// Connecting and signing in are one IMAP session: the step moves to signing in when the session
    /// asks for the password, which it does once the connection and its TLS stand.
    func checkIMAP(_ account: Account, secret: AccountSecret, progress: @escaping @Sendable (AccountSetupEvent) -> Void)
        async throws(AccountSetupFailure)
    {
        let signingIn = SignInReached()
        progress(.started(.connecting))
        let supply = CredentialSupply(
            username: account.username,
            current: {
                let first = signingIn.reached.withLock { started in
                    defer { started = true }
                    return !started
                }
                if first {
                    progress(.finished(.connecting))
                    progress(.started(.signingIn))
                }
                return secret
            },
            refreshed: { secret })
        do {
            _ = try await probe.checkIMAP(account: account, credentials: supply)
        } catch {
            let failure = Self.ternError(error)
            let reachedSignIn = signingIn.reached.withLock { $0 }
            if case .authenticationRefused = failure { throw .step(.signingIn, failure) }
            if reachedSignIn { throw .step(.signingIn, failure) }
            throw await judgeable(.connecting, failure, endpoint: account.imap, role: .imap, caFile: account.caFile)
        }
        if !signingIn.reached.withLock({ $0 }) { progress(.finished(.connecting)) }
        progress(.finished(.signingIn))
    }

    /// A refused certificate the person may judge becomes `.untrustedCertificate`; any other
    /// failure, an expired certificate included, stays the step's error.
    func judgeable(_ step: AccountSetupStep, _ failure: TernError, endpoint: ServerEndpoint, role: ServerRole, caFile: String?) async
        -> AccountSetupFailure
    {
        guard case .tlsRefused = failure,
            let certificate = await probe.certificateToJudge(of: endpoint, role: role, caFile: caFile, refusal: failure),
            certificate.isValid(at: Date())
        else { return .step(step, failure) }
        return .untrustedCertificate(step, certificate)
    }

    func save(
        _ request: AccountSetupRequest, email: String, servers: AccountServerSettings, caFile: String?, id: Account.ID
    ) async throws(AccountSetupFailure) -> Account {
        do {
            if let oauth = request.oauth {
                return try await saveSignedIn(oauth, request, email: email, servers: servers, caFile: caFile, id: id)
            }
            let credential = try await passwords.keep(request.password, for: id)
            var new = NewAccountRequest(
                name: request.name, emailAddress: email, displayName: request.displayName, imap: servers.imap, smtp: servers.smtp,
                username: servers.username, credential: credential, caFile: caFile, gmailPreset: servers.provider == .gmail)
            new.accountID = id
            new.pinnedCertificates = request.trustedCertificates
            new.provider = servers.provider
            do {
                return try await addAccount(new)
            } catch {
                await passwords.forget(for: id)
                throw error
            }
        } catch {
            throw .step(.saving, Self.ternError(error))
        }
    }

    /// The tokens are kept under the account's id before the account is stored, as `tern account
    /// add --oauth` keeps them, and dropped again if storing fails: no half account, no orphan tokens.
    func saveSignedIn(
        _ oauth: OAuthSignedIn, _ request: AccountSetupRequest, email: String, servers: AccountServerSettings, caFile: String?, id: Account.ID
    ) async throws -> Account {
        guard let tokens else { throw TernError.invalidInput("OAuth sign-in is not available here") }
        try await tokens.save(oauth.tokens, for: id)
        var new = NewAccountRequest(
            name: request.name, emailAddress: email, displayName: request.displayName, imap: servers.imap, smtp: servers.smtp,
            username: servers.username, credential: .oauth2(clientID: oauth.clientID), caFile: caFile)
        new.accountID = id
        new.pinnedCertificates = request.trustedCertificates
        new.provider = oauth.provider.mailProvider
        new.signedIn = true
        do {
            return try await addAccount(new)
        } catch {
            try? await tokens.delete(for: id)
            throw error
        }
    }

    static func supply(_ account: Account, secret: AccountSecret) -> CredentialSupply {
        CredentialSupply(username: account.username, current: { secret }, refreshed: { secret })
    }

    static func ternError(_ error: any Error) -> TernError {
        (error as? TernError) ?? .serverFailure(String(describing: error))
    }
}

/// Whether the IMAP session asked for the password: the connection and its TLS stood by then.
final class SignInReached: Sendable {
    let reached = Mutex(false)
}
