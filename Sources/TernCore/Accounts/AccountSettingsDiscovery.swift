import Foundation

/// Issue 35, "Discovery, privacy first": where an account's IMAP and SMTP settings may be found,
/// in the order they are tried. Each step runs only when every earlier one found nothing, so the
/// address leaves the machine as late, and to as few parties, as possible.
public enum DiscoveryStep: String, Sendable, Hashable, Codable, CaseIterable {
    /// The providers Tern ships a table of (nothing leaves the machine).
    case providerTable = "provider-table"
    /// The domain's own clientConfig document (`autoconfig.<domain>`, then its well-known path).
    case autoconfig
    /// RFC 6186 SRV records, then the MX host (a domain whose mail Google or Microsoft receives).
    case dns
    /// A public ISPDB-compatible database, only with the person's consent (`--lookup-online`).
    case onlineDatabase = "online-database"
}

/// How a discovered server expects the person to sign in (clientConfig's `authentication`).
public enum DiscoveredAuthentication: String, Sendable, Hashable, Codable {
    /// A password (SASL PLAIN or LOGIN inside TLS): what Tern's password sources give.
    case password
    /// OAuth 2.0 (XOAUTH2 / OAUTHBEARER): the provider's sign-in in a browser.
    case oauth2
}

/// Where settings were found, to be shown to the person next to them.
public enum DiscoverySource: Sendable, Hashable {
    /// An entry of the shipped table, by the provider's name.
    case providerTable(provider: String)
    /// The clientConfig document at this address.
    case autoconfig(url: String)
    /// SRV records (RFC 6186) of the domain, by the names asked.
    case srvRecords([String])
    /// The domain's MX host, which belongs to a provider of the table.
    case mxHost(host: String, provider: String)
    /// The clientConfig document the online database gave at this address.
    case onlineDatabase(url: String)

    public var step: DiscoveryStep {
        switch self {
        case .providerTable: .providerTable
        case .autoconfig: .autoconfig
        case .srvRecords, .mxHost: .dns
        case .onlineDatabase: .onlineDatabase
        }
    }

    /// One line: where the settings came from.
    public var description: String {
        switch self {
        case .providerTable(let provider): "Tern's provider table (\(provider))"
        case .autoconfig(let url): "the domain's autoconfig document \(url)"
        case .srvRecords(let names): "DNS SRV records (\(names.joined(separator: ", ")))"
        case .mxHost(let host, let provider): "the domain's mail exchanger \(host) (\(provider))"
        case .onlineDatabase(let url): "the online database \(url)"
        }
    }
}

/// Settings found for an address: both servers over TLS (discovery never proposes plaintext,
/// NFR-SYNC-05), the login name with clientConfig's placeholders already replaced.
public struct DiscoveredAccountSettings: Sendable, Hashable {
    public var imap: ServerEndpoint
    public var smtp: ServerEndpoint
    public var username: String
    /// `.gmail` when the servers are Google's, so the account gets the Gmail preset's behaviour.
    public var provider: MailProvider
    /// The provider's name when the source gives one ("Fastmail", "Example Mail").
    public var providerName: String?
    /// What the servers accept, in the source's order of preference; empty when the source does not say.
    public var authentication: [DiscoveredAuthentication]
    public var source: DiscoverySource

    public init(
        imap: ServerEndpoint, smtp: ServerEndpoint, username: String, provider: MailProvider = .imap, providerName: String? = nil,
        authentication: [DiscoveredAuthentication] = [], source: DiscoverySource
    ) {
        self.imap = imap
        self.smtp = smtp
        self.username = username
        self.provider = provider
        self.providerName = providerName
        self.authentication = authentication
        self.source = source
    }

    /// The servers accept OAuth 2.0 only: a password will not sign in.
    public var needsOAuth: Bool { !authentication.isEmpty && !authentication.contains(.password) }
}

/// Why one step found nothing usable. Not fatal: discovery goes on to the next step, and the
/// front end may show each reason next to its step.
public enum DiscoveryStepFailure: Error, Sendable, Hashable {
    /// The host could not be reached (no such name, refused, TLS refused, timed out).
    case unreachable(host: String, reason: String)
    /// The server answered with an HTTP status other than 200 (404: the domain publishes nothing).
    case httpStatus(url: String, status: Int)
    /// A document or DNS answer Tern could not read.
    case malformed(what: String, reason: String)
    /// The source offers only servers without TLS, which discovery never chooses.
    case plaintextOnly(what: String)
    /// The source names an IMAP server but no usable SMTP server, or the reverse.
    case incomplete(what: String, missing: ServerRole)

    public var message: String {
        switch self {
        case .unreachable(let host, let reason): "\(host) could not be reached: \(reason)"
        case .httpStatus(let url, let status): "\(url) answered HTTP \(status)"
        case .malformed(let what, let reason): "\(what) could not be read: \(reason)"
        case .plaintextOnly(let what): "\(what) offers only servers without TLS, which Tern does not use"
        case .incomplete(let what, let missing): "\(what) names no usable \(missing.rawValue) server"
        }
    }
}

/// What happened at a step, as a front end shows it while discovery runs.
public enum DiscoveryEvent: Sendable, Hashable {
    /// The step starts (the web screen's "Looking up settings…" with the step's name).
    case lookingUp(DiscoveryStep)
    /// A place the step asks (a URL, a DNS name): said before any request leaves the machine.
    case asking(DiscoveryStep, String)
    /// A place the step asked gave nothing usable; the step goes on with its next place, if any.
    case failed(DiscoveryStep, DiscoveryStepFailure)
    /// The step found nothing and says why, one reason per place it asked.
    case nothingFound(DiscoveryStep, [DiscoveryStepFailure])
    /// The step is not run: the online database without the person's consent.
    case skipped(DiscoveryStep)
    case found(DiscoveredAccountSettings)
}

/// What one step reports back to the use case.
public struct DiscoveryStepOutcome: Sendable {
    public var settings: DiscoveredAccountSettings?
    /// Why each place asked gave nothing usable (kept even when a later place succeeded).
    public var failures: [DiscoveryStepFailure]

    public init(settings: DiscoveredAccountSettings?, failures: [DiscoveryStepFailure] = []) {
        self.settings = settings
        self.failures = failures
    }

    public static let nothing = DiscoveryStepOutcome(settings: nil)
}

/// The address a step looks up, split once: the ASCII (IDNA) domain is what DNS and HTTP use.
public struct DiscoveryAddress: Sendable, Hashable {
    public var address: String
    public var localPart: String
    /// Lowercased, internationalized labels in their ASCII (Punycode) form.
    public var domain: String

    public init(address: String, localPart: String, domain: String) {
        self.address = address
        self.localPart = localPart
        self.domain = domain
    }
}

/// What a step says while it runs.
public enum DiscoveryStepReport: Sendable, Hashable {
    /// Said before any request leaves the machine: a URL, or a DNS name and type.
    case asking(String)
    case failed(DiscoveryStepFailure)
}

/// One discovery step. Implemented outside the core (the `AccountDiscovery` module); a step
/// reports each place it is about to ask before asking it, and each place's failure as it happens.
public protocol AccountSettingsSource: Sendable {
    var step: DiscoveryStep { get }
    func lookUp(_ address: DiscoveryAddress, report: @escaping @Sendable (DiscoveryStepReport) -> Void) async -> DiscoveryStepOutcome
}

/// Why discovery gave no settings.
public enum DiscoveryError: Error, Sendable, Hashable {
    case invalidAddress(String)
    /// Every step ran (the online database only with consent) and found nothing; each step's reasons.
    case nothingFound(steps: [DiscoveryStep: [DiscoveryStepFailure]], askedOnline: Bool)

    public var message: String {
        switch self {
        case .invalidAddress(let text): "'\(text)' is not an email address"
        case .nothingFound: "no settings were found for this address"
        }
    }
}

/// Issue 35: finds an address's IMAP and SMTP settings, step by step, each step only when the
/// earlier ones found nothing; the online database only when `lookupOnline` (the person's consent).
/// Every step's start, the places it asks and its result go to `progress`, so a front end can show
/// what is being done and why a step failed.
public struct DiscoverAccountSettingsUseCase: Sendable {
    let sources: [any AccountSettingsSource]
    let encodeDomain: @Sendable (String) -> String?

    /// `sources` in any order (they run in `DiscoveryStep`'s); `encodeDomain` gives an internationalized
    /// domain's ASCII form (IDNA), nil when it has none.
    public init(sources: [any AccountSettingsSource], encodeDomain: @escaping @Sendable (String) -> String?) {
        self.sources = sources.sorted { Self.order($0.step) < Self.order($1.step) }
        self.encodeDomain = encodeDomain
    }

    public func callAsFunction(
        email: String, lookupOnline: Bool, progress: @escaping @Sendable (DiscoveryEvent) -> Void = { _ in }
    ) async throws(DiscoveryError) -> DiscoveredAccountSettings {
        let address = try split(email)
        var failures: [DiscoveryStep: [DiscoveryStepFailure]] = [:]
        for source in sources {
            if source.step == .onlineDatabase && !lookupOnline {
                progress(.skipped(.onlineDatabase))
                continue
            }
            progress(.lookingUp(source.step))
            let step = source.step
            let outcome = await source.lookUp(address) { report in
                switch report {
                case .asking(let place): progress(.asking(step, place))
                case .failed(let failure): progress(.failed(step, failure))
                }
            }
            if let settings = outcome.settings {
                progress(.found(settings))
                return settings
            }
            failures[step, default: []] += outcome.failures
            progress(.nothingFound(step, outcome.failures))
        }
        throw .nothingFound(steps: failures, askedOnline: lookupOnline)
    }

    func split(_ email: String) throws(DiscoveryError) -> DiscoveryAddress {
        let trimmed = email.trimmingCharacters(in: .whitespaces)
        guard AddAccountUseCase.looksLikeAddress(trimmed), let at = trimmed.lastIndex(of: "@") else { throw .invalidAddress(email) }
        let domain = trimmed[trimmed.index(after: at)...].lowercased()
        guard let ascii = encodeDomain(domain.hasSuffix(".") ? String(domain.dropLast()) : domain), !ascii.isEmpty else {
            throw .invalidAddress(email)
        }
        return DiscoveryAddress(address: trimmed, localPart: String(trimmed[..<at]), domain: ascii)
    }

    static func order(_ step: DiscoveryStep) -> Int { DiscoveryStep.allCases.firstIndex(of: step) ?? 0 }
}
