/// How TLS begins on a connection. NFR-SYNC-05: always, except `plaintext`, which the application
/// uses only for a server the person chose to reach without encryption after a warning (issue 35).
public enum TransportSecurity: String, Sendable, Hashable, CaseIterable {
    /// TLS from the first byte (IMAP 993, SMTP 465).
    case implicitTLS
    /// Plain connect, then STARTTLS before anything else is sent (IMAP 143, SMTP 587).
    case startTLS
    /// Plain TCP throughout: no TLS, no STARTTLS (IMAP 143, SMTP 25 or 587).
    case plaintext
}

/// Where and how to reach a mail server, IMAP or SMTP (issue 33: one type for both). Certificate
/// and host name verification are always on (`TLSPolicy`); `caFile` adds one trusted CA to the
/// system's roots. The application's account settings are turned into one of these once, in the
/// runtime.
public struct MailServer: Sendable, Hashable {
    public var host: String
    public var port: Int
    public var security: TransportSecurity
    public var caFile: String?
    /// FR-SYNC-09: a connection not established in 30 s has failed.
    public var connectTimeout: Duration
    /// A command that waits this long with no byte from the server has a stuck connection (an idle
    /// connection, with no command outstanding, may be silent for as long as it likes). Nil: the
    /// protocol's own (IMAP 60 s; SMTP 120 s, as RFC 5321 section 4.5.3.2 allows minutes per step).
    public var commandTimeout: Duration?
    /// How often the watchdog looks at the silence while the session waits.
    public var watchdogInterval: Duration
    /// Capabilities (IMAP) or EHLO keywords (SMTP) treated as not offered (upper case): a server
    /// whose extension is broken is used without it, and benchmarks compare a path with and without
    /// one (issue 22, QRESYNC).
    public var ignoredCapabilities: Set<String>
    /// SMTP: the wait for the reply to the end of the content, 10 minutes (RFC 5321 section
    /// 4.5.3.2.6), since the server may scan the message first. Giving up sooner leaves a message
    /// it may still accept (the queue then treats it as possibly delivered, never sends it again).
    public var dataTerminationTimeout: Duration
    /// Issue 35: the system's verification, or the one certificate a person trusted for this host
    /// and port (`CertificateTrust`).
    public var certificateTrust: CertificateTrust
    /// What the server presented on a connection with a custom check: what a refusal names.
    public let presentedCertificate = PresentedCertificateRecord()

    public init(
        host: String, port: Int, security: TransportSecurity, caFile: String? = nil, connectTimeout: Duration = .seconds(30),
        commandTimeout: Duration? = nil, watchdogInterval: Duration = .seconds(1), ignoredCapabilities: Set<String> = [],
        dataTerminationTimeout: Duration = .seconds(600), certificateTrust: CertificateTrust = .verified
    ) {
        self.host = host
        self.port = port
        self.security = security
        self.caFile = caFile
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        self.watchdogInterval = watchdogInterval
        self.ignoredCapabilities = ignoredCapabilities
        self.dataTerminationTimeout = dataTerminationTimeout
        self.certificateTrust = certificateTrust
    }

    /// `host:port`, as errors name the server.
    public var place: String { "\(host):\(port)" }
}

/// What a connection logs in with, IMAP or SMTP (issue 33: one type for both).
public enum MailCredential: Sendable, Hashable {
    case password(username: String, password: String)
    /// XOAUTH2 with an OAuth 2.0 access token (the Gmail preset).
    case oauth2(username: String, accessToken: String)
}
