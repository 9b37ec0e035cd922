import TernCore

/// Issue 35's first discovery step: the providers whose settings Tern ships, so the most common
/// addresses need no lookup at all (nothing leaves the machine). Each entry's settings are the
/// provider's published ones; `mxSuffixes` name the hosts that receive mail for the provider's
/// hosted domains (Google Workspace, Microsoft 365, …), used by the DNS step's MX check.
public struct KnownProvider: Sendable, Hashable {
    /// How the provider spells the login name.
    public enum LoginName: Sendable, Hashable {
        case address
        case localPart
    }

    public var name: String
    public var domains: Set<String>
    /// A host ends in one of these (on a label boundary) when it belongs to the provider.
    public var mxSuffixes: [String]
    public var imap: ServerEndpoint
    public var smtp: ServerEndpoint
    public var loginName: LoginName
    public var authentication: [DiscoveredAuthentication]
    /// `.gmail` for Google's servers, so an account found here behaves as the Gmail preset;
    /// `.microsoft` for Microsoft's, which sign in at Microsoft's OAuth endpoints.
    public var provider: MailProvider

    public init(
        name: String, domains: Set<String>, mxSuffixes: [String] = [], imap: ServerEndpoint, smtp: ServerEndpoint,
        loginName: LoginName = .address, authentication: [DiscoveredAuthentication] = [.password], provider: MailProvider = .imap
    ) {
        self.name = name
        self.domains = domains
        self.mxSuffixes = mxSuffixes
        self.imap = imap
        self.smtp = smtp
        self.loginName = loginName
        self.authentication = authentication
        self.provider = provider
    }

    func settings(for address: DiscoveryAddress, source: DiscoverySource) -> DiscoveredAccountSettings {
        DiscoveredAccountSettings(
            imap: imap, smtp: smtp, username: loginName == .address ? address.address : address.localPart, provider: provider,
            providerName: name, authentication: authentication, source: source)
    }

    func receivesMail(at host: String) -> Bool {
        let host = host.lowercased().hasSuffix(".") ? String(host.lowercased().dropLast()) : host.lowercased()
        return mxSuffixes.contains { host == $0 || host.hasSuffix("." + $0) }
    }
}

public enum ProviderTable {
    static func tls(_ host: String, _ port: Int) -> ServerEndpoint { ServerEndpoint(host: host, port: port, security: .implicitTLS) }
    static func startTLS(_ host: String, _ port: Int) -> ServerEndpoint { ServerEndpoint(host: host, port: port, security: .startTLS) }

    /// The table, in the order the MX check tries it.
    public static let providers: [KnownProvider] = [
        // The Gmail preset's own endpoints (`AddAccountUseCase`), so the two never disagree.
        KnownProvider(
            name: "Gmail", domains: ["gmail.com", "googlemail.com"], mxSuffixes: ["google.com", "googlemail.com"],
            imap: AddAccountUseCase.gmailIMAP, smtp: AddAccountUseCase.gmailSMTP, authentication: [.oauth2, .password], provider: .gmail),
        // Outlook.com and Microsoft 365: OAuth only since Microsoft turned basic authentication off;
        // the endpoints are the Microsoft preset's (`tern account add --microsoft`).
        KnownProvider(
            name: "Microsoft 365 / Outlook.com",
            domains: [
                "outlook.com", "hotmail.com", "live.com", "msn.com", "passport.com", "hotmail.co.uk", "hotmail.fr", "hotmail.de",
                "hotmail.it", "hotmail.es", "live.co.uk", "live.fr", "live.de", "live.nl", "outlook.de", "outlook.fr", "outlook.es",
                "outlook.it", "outlook.co.uk"
            ],
            mxSuffixes: ["protection.outlook.com", "outlook.com"],
            imap: AddAccountUseCase.microsoftIMAP, smtp: AddAccountUseCase.microsoftSMTP, authentication: [.oauth2],
            provider: .microsoft),
        KnownProvider(
            name: "Yahoo Mail",
            domains: [
                "yahoo.com", "ymail.com", "rocketmail.com", "yahoo.co.uk", "yahoo.fr", "yahoo.de", "yahoo.it", "yahoo.es", "yahoo.ca",
                "yahoo.com.au", "yahoo.co.jp", "yahoo.co.in"
            ],
            mxSuffixes: ["yahoodns.net"],
            imap: tls("imap.mail.yahoo.com", 993), smtp: tls("smtp.mail.yahoo.com", 465), authentication: [.password, .oauth2]),
        KnownProvider(
            name: "AOL Mail", domains: ["aol.com", "aim.com"], imap: tls("imap.aol.com", 993), smtp: tls("smtp.aol.com", 465)),
        // Apple's instructions give the name part of the address as the login.
        KnownProvider(
            name: "iCloud Mail", domains: ["icloud.com", "me.com", "mac.com"], imap: tls("imap.mail.me.com", 993),
            smtp: startTLS("smtp.mail.me.com", 587), loginName: .localPart),
        KnownProvider(
            name: "Fastmail",
            domains: ["fastmail.com", "fastmail.fm", "fastmail.net", "fastmail.org", "fastmail.to", "fastmail.us", "messagingengine.com"],
            mxSuffixes: ["messagingengine.com"], imap: tls("imap.fastmail.com", 993), smtp: tls("smtp.fastmail.com", 465)),
        // Proton Mail is read through Proton Mail Bridge on this machine: its default ports, STARTTLS
        // with the Bridge's own certificate (which the person trusts), the Bridge's password.
        KnownProvider(
            name: "Proton Mail Bridge", domains: ["proton.me", "protonmail.com", "protonmail.ch", "pm.me"],
            imap: startTLS("127.0.0.1", 1143), smtp: startTLS("127.0.0.1", 1025)),
        KnownProvider(
            name: "Posteo", domains: ["posteo.de", "posteo.net", "posteo.at", "posteo.ch", "posteo.eu", "posteo.org", "posteo.be"],
            imap: tls("posteo.de", 993), smtp: tls("posteo.de", 465)),
        KnownProvider(
            name: "mailbox.org", domains: ["mailbox.org"], mxSuffixes: ["mailbox.org"], imap: tls("imap.mailbox.org", 993),
            smtp: tls("smtp.mailbox.org", 465)),
        KnownProvider(
            name: "GMX", domains: ["gmx.net", "gmx.de", "gmx.at", "gmx.ch"], imap: tls("imap.gmx.net", 993), smtp: tls("mail.gmx.net", 465)),
        KnownProvider(
            name: "GMX", domains: ["gmx.com", "gmx.us", "gmx.co.uk", "gmx.fr", "gmx.es"], imap: tls("imap.gmx.com", 993),
            smtp: tls("mail.gmx.com", 465)),
        KnownProvider(name: "WEB.DE", domains: ["web.de"], imap: tls("imap.web.de", 993), smtp: startTLS("smtp.web.de", 587)),
        KnownProvider(
            name: "Zoho Mail", domains: ["zoho.com", "zohomail.com"], mxSuffixes: ["zoho.com"], imap: tls("imap.zoho.com", 993),
            smtp: tls("smtp.zoho.com", 465)),
        KnownProvider(
            name: "Zoho Mail (EU)", domains: ["zoho.eu", "zohomail.eu"], mxSuffixes: ["zoho.eu"], imap: tls("imap.zoho.eu", 993),
            smtp: tls("smtp.zoho.eu", 465)),
        KnownProvider(
            name: "Yandex Mail", domains: ["yandex.com", "yandex.ru", "ya.ru"], imap: tls("imap.yandex.com", 993),
            smtp: tls("smtp.yandex.com", 465)),
        KnownProvider(name: "Disroot", domains: ["disroot.org"], imap: tls("disroot.org", 993), smtp: tls("disroot.org", 465)),
        KnownProvider(name: "Runbox", domains: ["runbox.com"], imap: tls("mail.runbox.com", 993), smtp: tls("mail.runbox.com", 465))
    ]

    /// The provider whose own domain this is.
    public static func provider(forDomain domain: String) -> KnownProvider? {
        providers.first { $0.domains.contains(domain.lowercased()) }
    }

    /// The provider whose servers receive mail for a domain with this MX host.
    public static func provider(receivingAt mxHost: String) -> KnownProvider? {
        providers.first { $0.receivesMail(at: mxHost) }
    }
}
