import Foundation

/// A mail account: where its servers are and how Tern authenticates to them.
///
/// Secrets are never part of an `Account`: only a `CredentialSource` that says where the
/// secret comes from at the moment it is needed (PLATFORM.md, "Keychain / OAuth token storage").
public struct Account: Sendable, Hashable, Codable, Identifiable {
    public typealias ID = AccountID

    public var id: ID
    /// The short name the user types on the command line (`tern sync work`).
    public var name: AccountName
    public var emailAddress: String
    /// Other addresses that deliver to this account (FR-COMP-01: Reply All leaves out every address
    /// of the user, not only the primary one). Lowercased.
    public var aliases: [String]
    public var displayName: String?
    public var provider: MailProvider
    public var imap: ServerEndpoint
    public var smtp: ServerEndpoint
    /// The login name; defaults to the email address.
    public var username: String
    public var credential: CredentialSource
    /// Path of an extra PEM CA bundle trusted for this account's servers (NFR-SYNC-05 keeps
    /// verification on; this is how a private or test CA is trusted).
    public var caFile: String?
    /// FR-SYNC-04: cleared when a token refresh fails for good.
    public var isActive: Bool
    /// FR-SYNC-01 stage D: history older than this many days is fetched only on demand.
    public var syncWindowDays: Int
    /// FR-SYNC-01 step 7: which bodies the background hydration fetches.
    public var bodyHydration: BodyHydrationPolicy
    public var createdDate: Date
    public var lastSyncDate: Date?
    /// Issue 32: the authserv-id the account's provider writes in the `Authentication-Results` it
    /// adds to delivered mail (RFC 8601 section 2.5), set by the user for a provider Tern has no
    /// entry for; nil uses `MailProvider.authservId`. Lowercased.
    public var authservId: String?
    /// Issue 35: certificates the person trusted by their fingerprint, each for one host and port
    /// (a server whose certificate does not chain to the system's roots or `caFile`).
    public var pinnedCertificates: [PinnedCertificate] = []

    public init(
        id: ID = .make(), name: AccountName, emailAddress: String, displayName: String? = nil,
        provider: MailProvider, imap: ServerEndpoint, smtp: ServerEndpoint, username: String,
        credential: CredentialSource, caFile: String? = nil, isActive: Bool = true, syncWindowDays: Int = 90,
        bodyHydration: BodyHydrationPolicy = .recent(days: 30), createdDate: Date = Date(), lastSyncDate: Date? = nil,
        aliases: [String] = [], authservId: String? = nil
    ) {
        self.id = id
        self.name = name
        self.emailAddress = emailAddress
        self.displayName = displayName
        self.provider = provider
        self.imap = imap
        self.smtp = smtp
        self.username = username
        self.credential = credential
        self.caFile = caFile
        self.isActive = isActive
        self.syncWindowDays = syncWindowDays
        self.bodyHydration = bodyHydration
        self.createdDate = createdDate
        self.lastSyncDate = lastSyncDate
        self.aliases = aliases.map { $0.lowercased() }
        self.authservId = authservId?.lowercased()
    }

    /// Issue 32: whose `Authentication-Results` tell whether a sender is who its From says: the
    /// account's setting, else the provider's known authserv-id; nil when Tern knows none.
    public var verifyingAuthservId: String? {
        authservId ?? provider.authservId
    }

    /// The fingerprint trusted for `endpoint`, if the person trusted one.
    public func pinnedCertificate(for endpoint: ServerEndpoint) -> CertificateFingerprint? {
        pinnedCertificates.first { $0.host.lowercased() == endpoint.host.lowercased() && $0.port == endpoint.port }?.fingerprint
    }

    /// The primary address and the aliases, lowercased: every address that is the user's own.
    public var ownAddresses: Set<String> {
        Set([emailAddress.lowercased()] + aliases)
    }
}

public enum MailProvider: String, Sendable, Hashable, Codable, CaseIterable {
    /// Gmail preset: imap.gmail.com:993, smtp.gmail.com:465, OAuth 2.0 (XOAUTH2) or an app password.
    case gmail
    /// Any IMAP/SMTP server.
    case imap
    /// Issue 35: Outlook.com and Microsoft 365 (outlook.office365.com:993, smtp.office365.com:587
    /// STARTTLS), which sign in with OAuth 2.0 only; refreshed at Microsoft's token endpoint.
    case microsoft

    /// Issue 32: the authserv-id the provider's mail servers write in the `Authentication-Results`
    /// field they add to every message they deliver. Gmail: `mx.google.com` (its field reads
    /// `Authentication-Results: mx.google.com; dkim=pass header.i=@…`). A generic server may add
    /// none or any name: the account's `authservId` setting says.
    public var authservId: String? {
        switch self {
        case .gmail: "mx.google.com"
        case .imap, .microsoft: nil
        }
    }
}

/// How a connection is secured. NFR-SYNC-05 secures every connection; `plaintext` is the one
/// exception, only for a server the person typed and only after they confirmed the warning (issue
/// 35: `--insecure-plaintext`, the web form's checkbox). Discovery never yields it.
public enum ConnectionSecurity: String, Sendable, Hashable, Codable, CaseIterable {
    /// TLS from the first byte (IMAP 993, SMTP 465).
    case implicitTLS = "tls"
    /// Plain connect, then STARTTLS before anything else is sent (IMAP 143, SMTP 587).
    case startTLS = "starttls"
    /// No encryption at all: the password and the mail cross the network readable by anyone on the
    /// way (IMAP 143, SMTP 25 or 587 without STARTTLS).
    case plaintext = "none"

    /// The warning a person confirms before `plaintext` is used.
    public static let plaintextWarning =
        "Without encryption, your password and your mail cross the network readable by anyone on the way. "
        + "Use it only for a server on this computer or a network you control."
}

public struct ServerEndpoint: Sendable, Hashable, Codable {
    public var host: String
    public var port: Int
    public var security: ConnectionSecurity

    public init(host: String, port: Int, security: ConnectionSecurity) {
        self.host = host
        self.port = port
        self.security = security
    }

    /// Parses `HOST:PORT` (or `[v6]:PORT`), as typed on the command line.
    public static func parse(_ text: String, security: ConnectionSecurity) throws -> ServerEndpoint {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let colon = trimmed.lastIndex(of: ":") else {
            throw TernError.invalidInput("'\(text)' is not HOST:PORT")
        }
        var host = String(trimmed[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, host.allSatisfy({ !$0.isWhitespace && $0 != "/" }) else {
            throw TernError.invalidInput("'\(text)' has no valid host name")
        }
        guard let port = Int(trimmed[trimmed.index(after: colon)...]), (1...65535).contains(port) else {
            throw TernError.invalidInput("'\(text)' has no valid port (1-65535)")
        }
        return ServerEndpoint(host: host, port: port, security: security)
    }

    public var description: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        let mode =
            switch security {
            case .implicitTLS: "TLS"
            case .startTLS: "STARTTLS"
            case .plaintext: "no encryption"
            }
        return "\(hostPart):\(port) (\(mode))"
    }
}

/// Where an account's secret comes from. Only the reference is stored, never the secret.
public enum CredentialSource: Sendable, Hashable, Codable {
    /// A shell command whose standard output is the password (`pass show mail/work`).
    case passwordCommand(String)
    /// The name of an environment variable that holds the password.
    case passwordEnvironment(String)
    /// OAuth 2.0 tokens kept in the account's 0600 token file under `$TERN_HOME/secrets/`.
    case oauth2(clientID: String)

    public var kind: String {
        switch self {
        case .passwordCommand: "password-command"
        case .passwordEnvironment: "password-env"
        case .oauth2: "oauth2"
        }
    }

    /// The non-secret part of the source, as stored and shown.
    public var reference: String {
        switch self {
        case .passwordCommand(let command): command
        case .passwordEnvironment(let variable): variable
        case .oauth2(let clientID): clientID
        }
    }

    public init(kind: String, reference: String) throws {
        switch kind {
        case "password-command": self = .passwordCommand(reference)
        case "password-env": self = .passwordEnvironment(reference)
        case "oauth2": self = .oauth2(clientID: reference)
        default: throw TernError.invalidInput("unknown credential kind '\(kind)'")
        }
    }
}

/// FR-SYNC-01 step 7: which message bodies are fetched in the background, before anyone opens them.
public enum BodyHydrationPolicy: Sendable, Hashable, Codable {
    /// Bodies are fetched only when a thread is opened or explicitly prefetched.
    case none
    /// Bodies of messages received in the last N days.
    case recent(days: Int)
    /// Every body: a complete offline copy.
    case all

    public var storedValue: String {
        switch self {
        case .none: "none"
        case .recent(let days): "recent:\(days)"
        case .all: "all"
        }
    }

    public init(storedValue: String) {
        if storedValue == "all" {
            self = .all
        } else if storedValue.hasPrefix("recent:"), let days = Int(storedValue.dropFirst("recent:".count)) {
            self = .recent(days: days)
        } else {
            self = .none
        }
    }
}
