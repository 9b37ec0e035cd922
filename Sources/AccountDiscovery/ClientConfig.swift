import TernCore

/// Thunderbird's clientConfig document (format 1.1), which a domain's autoconfig and an ISPDB
/// answer with: `clientConfig/emailProvider` with `incomingServer` and `outgoingServer` elements,
/// each naming `hostname`, `port`, `socketType` (SSL, STARTTLS, plain), `username` (with the
/// %EMAILADDRESS%, %EMAILLOCALPART% and %EMAILDOMAIN% placeholders) and `authentication`.
public struct ClientConfig: Sendable, Hashable {
    public struct Server: Sendable, Hashable {
        /// `imap`, `pop3`, `smtp`, … lowercased.
        public var type: String
        public var hostname: String
        public var port: Int?
        /// `ssl`, `starttls`, `plain`, lowercased; empty when absent.
        public var socketType: String
        public var username: String?
        /// Lowercased, in the document's order.
        public var authentication: [String]

        public init(type: String, hostname: String, port: Int?, socketType: String, username: String?, authentication: [String]) {
            self.type = type
            self.hostname = hostname
            self.port = port
            self.socketType = socketType
            self.username = username
            self.authentication = authentication
        }
    }

    public var displayName: String?
    public var domains: [String]
    public var incoming: [Server]
    public var outgoing: [Server]

    /// Caps on what a document may list, so a hostile one costs nothing more.
    public static let maxServers = 32

    public static func parse(_ bytes: [UInt8]) throws(XMLReadError) -> ClientConfig {
        let root = try XMLReader.parse(bytes)
        guard root.name == "clientConfig" else { throw .malformed("the root element is <\(root.name)>, not <clientConfig>") }
        guard let provider = root.child(named: "emailProvider") else { throw .malformed("no <emailProvider>") }
        func servers(_ name: String) -> [Server] {
            provider.children(named: name).prefix(maxServers).map { element in
                Server(
                    type: (element.attributes["type"] ?? "").lowercased(), hostname: element.value(of: "hostname") ?? "",
                    port: element.value(of: "port").flatMap { Int($0) },
                    socketType: (element.value(of: "socketType") ?? "").lowercased(), username: element.value(of: "username"),
                    authentication: element.children(named: "authentication").prefix(maxServers).map { $0.text.trimmingWhitespace.lowercased() })
            }
        }
        return ClientConfig(
            displayName: provider.value(of: "displayName").flatMap { $0.isEmpty ? nil : String($0.prefix(200)) },
            domains: provider.children(named: "domain").prefix(maxServers).map { $0.text.trimmingWhitespace.lowercased() },
            incoming: servers("incomingServer"), outgoing: servers("outgoingServer"))
    }

    /// The settings Tern would use: the first IMAP and the first SMTP server over TLS whose sign-in
    /// Tern supports (else the first over TLS), in the document's order, which is the provider's
    /// preference. `what` names the document in the reasons given when there is none.
    public func settings(for address: DiscoveryAddress, source: DiscoverySource, what: String) throws(DiscoveryStepFailure)
        -> DiscoveredAccountSettings
    {
        let imap = try choose(incoming.filter { $0.type == "imap" }, role: .imap, address: address, what: what)
        let smtp = try choose(outgoing.filter { $0.type == "smtp" }, role: .smtp, address: address, what: what)
        let username = imap.server.username.map { Self.substitute($0, address) }.flatMap { $0.isEmpty ? nil : $0 } ?? address.address
        return DiscoveredAccountSettings(
            imap: imap.endpoint, smtp: smtp.endpoint, username: username, provider: .imap, providerName: displayName,
            authentication: Self.supported(imap.server.authentication), source: source)
    }

    func choose(_ servers: [Server], role: ServerRole, address: DiscoveryAddress, what: String) throws(DiscoveryStepFailure)
        -> (server: Server, endpoint: ServerEndpoint)
    {
        let secured = servers.compactMap { server in endpoint(server, role: role, address: address).map { (server: server, endpoint: $0) } }
        guard !secured.isEmpty else {
            let named = servers.contains { server in
                server.socketType == "plain" && DomainName.isHostName(Self.substitute(server.hostname, address))
            }
            throw named ? DiscoveryStepFailure.plaintextOnly(what: what) : DiscoveryStepFailure.incomplete(what: what, missing: role)
        }
        return secured.first { $0.server.authentication.isEmpty || !Self.supported($0.server.authentication).isEmpty } ?? secured[0]
    }

    /// The server as an endpoint Tern connects to; nil without TLS or without a usable host or port.
    func endpoint(_ server: Server, role: ServerRole, address: DiscoveryAddress) -> ServerEndpoint? {
        let security: ConnectionSecurity
        switch server.socketType {
        case "ssl", "tls": security = .implicitTLS
        case "starttls": security = .startTLS
        default: return nil
        }
        let host = Self.substitute(server.hostname, address).lowercased()
        guard DomainName.isHostName(host) else { return nil }
        let port = server.port ?? Self.defaultPort(role, security)
        guard (1...65535).contains(port) else { return nil }
        return ServerEndpoint(host: host, port: port, security: security)
    }

    static func defaultPort(_ role: ServerRole, _ security: ConnectionSecurity) -> Int {
        switch (role, security) {
        case (.imap, .implicitTLS): 993
        case (.imap, .startTLS): 143
        case (.smtp, .implicitTLS): 465
        case (.smtp, .startTLS): 587
        case (.imap, .plaintext): 143
        case (.smtp, .plaintext): 587
        }
    }

    static func supported(_ methods: [String]) -> [DiscoveredAuthentication] {
        var found: [DiscoveredAuthentication] = []
        for method in methods {
            let kind: DiscoveredAuthentication? =
                switch method {
                case "password-cleartext", "plain": .password
                case "oauth2": .oauth2
                default: nil
                }
            if let kind, !found.contains(kind) { found.append(kind) }
        }
        return found
    }

    /// clientConfig's placeholders filled in from the address.
    static func substitute(_ template: String, _ address: DiscoveryAddress) -> String {
        template.replacing("%EMAILADDRESS%", with: address.address).replacing("%EMAILLOCALPART%", with: address.localPart)
            .replacing("%EMAILDOMAIN%", with: address.domain)
    }
}
