import Foundation

/// What the user asks for with `tern account add`.
public struct NewAccountRequest: Sendable {
    public var name: AccountName
    public var emailAddress: String
    public var displayName: String?
    /// With `gmailPreset`, missing endpoints default to Gmail's (imap.gmail.com:993, smtp.gmail.com:465).
    public var imap: ServerEndpoint?
    public var smtp: ServerEndpoint?
    public var username: String?
    public var credential: CredentialSource
    public var caFile: String?
    public var gmailPreset: Bool
    /// For OAuth accounts: receives the authorization URL the user must open.
    public var announceSignIn: (@Sendable (URL) -> Void)?
    /// How far back sync goes (FR-SYNC-01 stage D); nil keeps the default, 90 days.
    public var syncWindowDays: Int?
    /// Which bodies sync downloads in the background (FR-SYNC-01 step 7); nil keeps the default.
    public var bodyHydration: BodyHydrationPolicy?
    /// FR-COMP-01: the account's other addresses (Reply All leaves them out, replies may come from them).
    public var aliases: [String] = []
    /// Issue 35: certificates the person trusted by fingerprint; those for the account's IMAP or
    /// SMTP host and port are kept with it.
    public var pinnedCertificates: [PinnedCertificate] = []
    /// The id the account gets; nil makes a new one. The web app's setup keeps the password under
    /// the account's id before the account is stored (issue 35).
    public var accountID: Account.ID?
    /// The account's kind when it is not the Gmail preset's or a generic server's (issue 35:
    /// `.microsoft`); nil follows `gmailPreset`.
    public var provider: MailProvider?
    /// Issue 35: the OAuth tokens are already stored under `accountID` (the web app's sign-in ran
    /// before the setup): no browser sign-in is started.
    public var signedIn = false

    public init(
        name: AccountName, emailAddress: String, displayName: String? = nil, imap: ServerEndpoint?, smtp: ServerEndpoint?,
        username: String? = nil, credential: CredentialSource, caFile: String? = nil, gmailPreset: Bool = false,
        announceSignIn: (@Sendable (URL) -> Void)? = nil
    ) {
        self.name = name
        self.emailAddress = emailAddress
        self.displayName = displayName
        self.imap = imap
        self.smtp = smtp
        self.username = username
        self.credential = credential
        self.caFile = caFile
        self.gmailPreset = gmailPreset
        self.announceSignIn = announceSignIn
    }
}

/// Adds an account after checking everything that can be checked offline: the name, the address,
/// the CA file, and that the secret source yields a secret (which is then forgotten).
public struct AddAccountUseCase: Sendable {
    public static let gmailIMAP = ServerEndpoint(host: "imap.gmail.com", port: 993, security: .implicitTLS)
    public static let gmailSMTP = ServerEndpoint(host: "smtp.gmail.com", port: 465, security: .implicitTLS)
    /// Issue 35: Outlook.com and Microsoft 365, as Microsoft publishes them (SMTP AUTH on 587 with STARTTLS).
    public static let microsoftIMAP = ServerEndpoint(host: "outlook.office365.com", port: 993, security: .implicitTLS)
    public static let microsoftSMTP = ServerEndpoint(host: "smtp.office365.com", port: 587, security: .startTLS)

    let accounts: any AccountRepository
    let secrets: any SecretResolver
    let signIn: SignInUseCase?

    public init(accounts: any AccountRepository, secrets: any SecretResolver, signIn: SignInUseCase? = nil) {
        self.accounts = accounts
        self.secrets = secrets
        self.signIn = signIn
    }

    public func callAsFunction(_ request: NewAccountRequest) async throws -> Account {
        try Self.validateName(request.name)
        let email = request.emailAddress.trimmingCharacters(in: .whitespaces)
        guard Self.looksLikeAddress(email) else {
            throw TernError.invalidInput("'\(request.emailAddress)' is not an email address")
        }
        let imap = request.imap ?? (request.provider == .microsoft ? Self.microsoftIMAP : request.gmailPreset ? Self.gmailIMAP : nil)
        let smtp = request.smtp ?? (request.provider == .microsoft ? Self.microsoftSMTP : request.gmailPreset ? Self.gmailSMTP : nil)
        guard let imap else { throw TernError.serverMissing(.imap) }
        guard let smtp else { throw TernError.serverMissing(.smtp) }
        if let caFile = request.caFile {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: caFile, isDirectory: &isDirectory), !isDirectory.boolValue else {
                throw TernError.invalidInput("CA file '\(caFile)' does not exist")
            }
        }
        if try await accounts.account(named: request.name) != nil {
            throw TernError.alreadyExists("an account named '\(request.name)'")
        }
        var account = Account(
            id: request.accountID ?? .make(), name: request.name, emailAddress: email, displayName: request.displayName,
            provider: request.provider ?? (request.gmailPreset ? .gmail : .imap), imap: imap, smtp: smtp,
            username: request.username ?? email, credential: request.credential,
            caFile: request.caFile.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
        if let days = request.syncWindowDays {
            guard (1...36_500).contains(days) else { throw TernError.invalidInput("the sync window is 1 to 36500 days, not \(days)") }
            account.syncWindowDays = days
        }
        if let bodies = request.bodyHydration { account.bodyHydration = bodies }
        account.aliases = try Self.validatedAliases(request.aliases, primary: email)
        account.pinnedCertificates = Self.pins(request.pinnedCertificates, for: imap, smtp)
        // The secret is fetched once to prove the source works; it is not kept.
        if case .oauth2 = request.credential, request.signedIn {
            try await accounts.insert(account)
            return account
        }
        if case .oauth2 = request.credential {
            guard let signIn else { throw TernError.invalidInput("OAuth sign-in is not available here") }
            try await accounts.insert(account)
            do {
                try await signIn.run(account, announce: request.announceSignIn ?? { _ in })
            } catch {
                // No half-added account: without tokens it could never sync.
                _ = try? await accounts.delete(id: account.id)
                throw error
            }
            return account
        }
        _ = try await secrets.secret(for: account)
        try await accounts.insert(account)
        return account
    }

    /// The pins for `imap` or `smtp`, one per host and port (the last given wins).
    static func pins(_ pins: [PinnedCertificate], for imap: ServerEndpoint, _ smtp: ServerEndpoint) -> [PinnedCertificate] {
        var kept: [PinnedCertificate] = []
        for pin in pins where pin.isFor(imap) || pin.isFor(smtp) {
            kept.removeAll { $0.host.lowercased() == pin.host.lowercased() && $0.port == pin.port }
            kept.append(pin)
        }
        return kept
    }

    /// Names are typed on command lines and used in paths: keep them plain.
    static func validateName(_ name: AccountName) throws {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_."))
        let name = name.rawValue
        guard !name.isEmpty, name.count <= 64, name.unicodeScalars.allSatisfy(allowed.contains),
            !name.hasPrefix("."), !name.hasPrefix("-")
        else {
            throw TernError.invalidInput("account name '\(name)' must be 1-64 letters, digits, '-', '_' or '.'")
        }
    }

    static func looksLikeAddress(_ text: String) -> Bool {
        guard let at = text.lastIndex(of: "@") else { return false }
        let local = text[..<at]
        let domain = text[text.index(after: at)...]
        return !local.isEmpty && !domain.isEmpty && !text.contains(where: { $0.isWhitespace || $0 == "<" || $0 == ">" })
    }

    /// Aliases lowercased and deduplicated, the primary address left out; each must be an address.
    static func validatedAliases(_ aliases: [String], primary: String) throws -> [String] {
        var seen: Set<String> = [primary.lowercased()]
        return try aliases.compactMap { alias in
            let trimmed = alias.trimmingCharacters(in: .whitespaces)
            guard looksLikeAddress(trimmed) else { throw TernError.invalidInput("alias '\(alias)' is not an email address") }
            return seen.insert(trimmed.lowercased()).inserted ? trimmed.lowercased() : nil
        }
    }
}

public struct ListAccountsUseCase: Sendable {
    let accounts: any AccountRepository

    public init(accounts: any AccountRepository) { self.accounts = accounts }

    public func callAsFunction() async throws -> [Account] { try await accounts.allAccounts() }
}

/// `tern account set`: settings of an account that exists.
public struct AccountSettingsUseCase: Sendable {
    let accounts: any AccountRepository

    public init(accounts: any AccountRepository) { self.accounts = accounts }

    /// Issue 32: whose `Authentication-Results` say a sender is verified (`Account.authservId`); nil
    /// or empty goes back to the provider's known one (`MailProvider.authservId`). Applies to mail
    /// already synced: the results are stored, the verdict is made when a thread is read.
    public func setAuthservId(_ authservId: String?, accountName: AccountName) async throws -> Account {
        guard var account = try await accounts.account(named: accountName) else { throw TernError.notFound("account '\(accountName)'") }
        let trimmed = authservId?.trimmingCharacters(in: .whitespaces) ?? ""
        // RFC 8601 authserv-id is a `value` (a token or quoted string); in practice a host name.
        guard trimmed.count <= 255, !trimmed.contains(where: { $0.isWhitespace || ";()\"=/\\".contains($0) }) else {
            throw TernError.invalidInput(
                "'\(trimmed)' is not an authserv-id: give the host name your provider writes first in Authentication-Results")
        }
        account.authservId = trimmed.isEmpty ? nil : trimmed.lowercased()
        try await accounts.update(account)
        return account
    }

    /// Issue 35: forgets the certificate trusted for `host` and `port`; the server must then chain
    /// to a trusted root again (or be trusted anew).
    public func removePinnedCertificate(host: String, port: Int, accountName: AccountName) async throws -> Account {
        guard var account = try await accounts.account(named: accountName) else { throw TernError.notFound("account '\(accountName)'") }
        let place = ServerEndpoint(host: host, port: port, security: .implicitTLS)
        guard account.pinnedCertificates.contains(where: { $0.isFor(place) }) else {
            throw TernError.notFound("a trusted certificate for \(host):\(port) in account '\(accountName)'")
        }
        account.pinnedCertificates.removeAll { $0.isFor(place) }
        try await accounts.update(account)
        return account
    }
}

/// Removes an account with everything Tern holds for it: synced mail, threads, search entries,
/// queued mail and drafts, contact cache (FR-COMP-04 cascade), attachment files, the drafts' own
/// files, tokens and a password the web app kept (issue 35).
public struct RemoveAccountUseCase: Sendable {
    let accounts: any AccountRepository
    let files: any AccountFileStore
    let drafts: (any DraftStore)?
    let draftFiles: (any DraftFiles)?
    let passwords: (any AccountPasswordKeeper)?
    let changes: ChangeFeed?

    public init(
        accounts: any AccountRepository, files: any AccountFileStore, drafts: (any DraftStore)? = nil, draftFiles: (any DraftFiles)? = nil,
        passwords: (any AccountPasswordKeeper)? = nil, changes: ChangeFeed? = nil
    ) {
        self.accounts = accounts
        self.files = files
        self.drafts = drafts
        self.draftFiles = draftFiles
        self.passwords = passwords
        self.changes = changes
    }

    public func callAsFunction(name: AccountName) async throws {
        guard let account = try await accounts.account(named: name) else {
            throw TernError.notFound("no account named '\(name)'")
        }
        // The drafts' files are named by their Message-IDs, which go with the rows.
        let draftKeys = try await drafts?.drafts(accountId: account.id).map(\.messageId) ?? []
        try await accounts.delete(id: account.id)
        for key in draftKeys { draftFiles?.removeAll(key: key) }
        await passwords?.forget(for: account.id)
        try files.removeFiles(of: account.id)
        changes?.publish(.accountsChanged)
    }
}

/// OAuth 2.0 sign-in (the Gmail preset): runs the browser consent, stores the tokens, and
/// reactivates an account whose refresh had failed (FR-SYNC-04).
public struct SignInUseCase: Sendable {
    let accounts: any AccountRepository
    let tokens: any OAuthTokenStore
    let authorizer: any OAuthAuthorizer

    public init(accounts: any AccountRepository, tokens: any OAuthTokenStore, authorizer: any OAuthAuthorizer) {
        self.accounts = accounts
        self.tokens = tokens
        self.authorizer = authorizer
    }

    public func callAsFunction(accountName: AccountName, announce: @escaping @Sendable (URL) -> Void) async throws -> Account {
        guard let account = try await accounts.account(named: accountName) else {
            throw TernError.notFound("no account named '\(accountName)'")
        }
        try await run(account, announce: announce)
        return account
    }

    func run(_ account: Account, announce: @escaping @Sendable (URL) -> Void) async throws {
        guard case .oauth2(let clientID) = account.credential else {
            throw TernError.invalidInput("account '\(account.name)' signs in with a password, not OAuth")
        }
        let fresh = try await authorizer.authorize(account: account, clientID: clientID, announce: announce)
        try await tokens.save(fresh, for: account.id)
        if !account.isActive {
            var active = account
            active.isActive = true
            try await accounts.update(active)
        }
    }
}
