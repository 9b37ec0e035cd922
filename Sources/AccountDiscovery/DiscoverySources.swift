import Foundation
import TernCore

/// Step 1: the shipped provider table. Nothing leaves the machine.
public struct ProviderTableSource: AccountSettingsSource {
    public init() {}

    public var step: DiscoveryStep { .providerTable }

    public func lookUp(_ address: DiscoveryAddress, report: @escaping @Sendable (DiscoveryStepReport) -> Void) async -> DiscoveryStepOutcome {
        guard let provider = ProviderTable.provider(forDomain: address.domain) else { return .nothing }
        return DiscoveryStepOutcome(settings: provider.settings(for: address, source: .providerTable(provider: provider.name)))
    }
}

/// Step 2: the domain's own clientConfig, at `https://autoconfig.<domain>/mail/config-v1.1.xml`,
/// then `https://<domain>/.well-known/autoconfig/mail/config-v1.1.xml`. Unlike Thunderbird, Tern
/// does not add `?emailaddress=…`: the domain learns that someone looks, not who.
public struct AutoconfigSource: AccountSettingsSource {
    let fetcher: DiscoveryHTTPFetcher

    public init(fetcher: DiscoveryHTTPFetcher) { self.fetcher = fetcher }

    public var step: DiscoveryStep { .autoconfig }

    public static func urls(for domain: String) -> [URL] {
        [
            URL(string: "https://autoconfig.\(domain)/mail/config-v1.1.xml"),
            URL(string: "https://\(domain)/.well-known/autoconfig/mail/config-v1.1.xml")
        ].compactMap { $0 }
    }

    /// Both addresses are asked at once (the same domain's, so no one more learns of it; a host that
    /// does not exist costs its timeout once, not twice); the first address's document wins, as
    /// Thunderbird's order says, and the other request is cancelled once the winner is known.
    public func lookUp(_ address: DiscoveryAddress, report: @escaping @Sendable (DiscoveryStepReport) -> Void) async -> DiscoveryStepOutcome {
        let urls = Self.urls(for: address.domain)
        for url in urls { report(.asking(url.absoluteString)) }
        return await withTaskGroup(of: (Int, Result<DiscoveredAccountSettings, DiscoveryStepFailure>).self) { group in
            for (index, url) in urls.enumerated() {
                group.addTask {
                    let source = DiscoverySource.autoconfig(url: url.absoluteString)
                    return (index, await ClientConfigDocument.settings(at: url, fetcher: fetcher, address: address, source: source))
                }
            }
            var arrived: [Int: Result<DiscoveredAccountSettings, DiscoveryStepFailure>] = [:]
            var next = 0
            var failures: [DiscoveryStepFailure] = []
            for await (index, result) in group {
                arrived[index] = result
                while let result = arrived[next] {
                    switch result {
                    case .success(let settings):
                        group.cancelAll()
                        return DiscoveryStepOutcome(settings: settings, failures: failures)
                    case .failure(let failure):
                        report(.failed(failure))
                        failures.append(failure)
                    }
                    next += 1
                }
            }
            return DiscoveryStepOutcome(settings: nil, failures: failures)
        }
    }
}

/// Step 4, with consent only: an ISPDB-compatible database, `<base><domain>` (Thunderbird's
/// `mailnews.auto_config_url`; `TERN_ISPDB_URL`). Only the domain is sent.
public struct OnlineDatabaseSource: AccountSettingsSource {
    public static let defaultBaseURL = "https://autoconfig.thunderbird.net/v1.1/"

    let fetcher: DiscoveryHTTPFetcher
    let baseURL: String

    public init(fetcher: DiscoveryHTTPFetcher, baseURL: String = defaultBaseURL) {
        self.fetcher = fetcher
        self.baseURL = baseURL
    }

    public static func baseURL(environment: [String: String]) -> String {
        environment["TERN_ISPDB_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultBaseURL
    }

    public var step: DiscoveryStep { .onlineDatabase }

    public func lookUp(_ address: DiscoveryAddress, report: @escaping @Sendable (DiscoveryStepReport) -> Void) async -> DiscoveryStepOutcome {
        guard let url = URL(string: baseURL + address.domain) else {
            return DiscoveryStepOutcome(settings: nil, failures: [.unreachable(host: baseURL, reason: "not an address")])
        }
        report(.asking(url.absoluteString))
        switch await ClientConfigDocument.settings(at: url, fetcher: fetcher, address: address, source: .onlineDatabase(url: url.absoluteString)) {
        case .success(let settings): return DiscoveryStepOutcome(settings: settings)
        case .failure(let failure):
            report(.failed(failure))
            return DiscoveryStepOutcome(settings: nil, failures: [failure])
        }
    }
}

enum ClientConfigDocument {
    static func settings(at url: URL, fetcher: DiscoveryHTTPFetcher, address: DiscoveryAddress, source: DiscoverySource) async
        -> Result<DiscoveredAccountSettings, DiscoveryStepFailure>
    {
        let bytes: [UInt8]
        switch await fetcher.get(url) {
        case .success(let body): bytes = body
        case .failure(let failure): return .failure(failure)
        }
        do {
            let config = try ClientConfig.parse(bytes)
            return .success(try config.settings(for: address, source: source, what: url.absoluteString))
        } catch let failure as DiscoveryStepFailure {
            return .failure(failure)
        } catch let error as XMLReadError {
            switch error {
            case .malformed(let reason), .tooLarge(let reason): return .failure(.malformed(what: url.absoluteString, reason: reason))
            }
        } catch {
            return .failure(.malformed(what: url.absoluteString, reason: String(describing: error)))
        }
    }
}

/// Step 3: DNS. RFC 6186's SRV records (`_imaps._tcp`, then `_imap._tcp` with STARTTLS;
/// `_submissions._tcp`, then `_submission._tcp` with STARTTLS; a target of "." says there is no
/// such service), then the MX host: a domain whose mail a provider of the table receives (Google
/// Workspace, Microsoft 365, …) gets that provider's settings. DNS is unauthenticated here, so
/// what it names is only ever connected to over TLS checked against the named host.
public struct DNSSource: AccountSettingsSource {
    let resolver: DNSResolver

    public init(resolver: DNSResolver) { self.resolver = resolver }

    public var step: DiscoveryStep { .dns }

    static let imapServices: [(prefix: String, security: ConnectionSecurity)] = [("_imaps._tcp", .implicitTLS), ("_imap._tcp", .startTLS)]
    static let submissionServices: [(prefix: String, security: ConnectionSecurity)] = [
        ("_submissions._tcp", .implicitTLS), ("_submission._tcp", .startTLS)
    ]

    /// What the step asked and what failed, each said to the use case as it happens.
    struct StepLog {
        let report: @Sendable (DiscoveryStepReport) -> Void
        var asked: [String] = []
        var failures: [DiscoveryStepFailure] = []
        /// No resolver answered: the step's other questions would only wait as long again.
        var resolverDown = false

        mutating func ask(_ name: String, type: String) {
            report(.asking("\(name) \(type)"))
            asked.append(name)
        }

        mutating func fail(_ failure: DiscoveryStepFailure) {
            report(.failed(failure))
            failures.append(failure)
        }
    }

    public func lookUp(_ address: DiscoveryAddress, report: @escaping @Sendable (DiscoveryStepReport) -> Void) async -> DiscoveryStepOutcome {
        var log = StepLog(report: report)
        let imap = await firstService(Self.imapServices, domain: address.domain, log: &log)
        let smtp = await firstService(Self.submissionServices, domain: address.domain, log: &log)
        if let imap, let smtp {
            return DiscoveryStepOutcome(
                settings: DiscoveredAccountSettings(imap: imap, smtp: smtp, username: address.address, source: .srvRecords(log.asked)),
                failures: log.failures)
        }
        if imap != nil || smtp != nil {
            log.fail(.incomplete(what: "the SRV records of \(address.domain)", missing: imap == nil ? .imap : .smtp))
        }
        guard !log.resolverDown else { return DiscoveryStepOutcome(settings: nil, failures: log.failures) }
        log.ask(address.domain, type: "MX")
        do throws(DNSLookupError) {
            let exchanges = try await resolver.lookUp(address.domain, type: .mx).compactMap { record -> (UInt16, String)? in
                if case .mx(let preference, let exchange) = record.data { return (preference, exchange) }
                return nil
            }
            for (_, host) in exchanges.sorted(by: { $0.0 < $1.0 }) {
                if let provider = ProviderTable.provider(receivingAt: host) {
                    let host = host.hasSuffix(".") ? String(host.dropLast()) : host
                    return DiscoveryStepOutcome(
                        settings: provider.settings(for: address, source: .mxHost(host: host.lowercased(), provider: provider.name)),
                        failures: log.failures)
                }
            }
        } catch {
            log.fail(Self.failure(error, name: "\(address.domain) MX"))
        }
        return DiscoveryStepOutcome(settings: nil, failures: log.failures)
    }

    /// The first service of `services` the domain offers, by RFC 2782's choice: lowest priority,
    /// then highest weight (one client connects to one server; no weighted lottery is needed).
    func firstService(_ services: [(prefix: String, security: ConnectionSecurity)], domain: String, log: inout StepLog) async -> ServerEndpoint? {
        for service in services where !log.resolverDown {
            let name = "\(service.prefix).\(domain)"
            log.ask(name, type: "SRV")
            let records: [DNSMessage.Record]
            do throws(DNSLookupError) { records = try await resolver.lookUp(name, type: .srv) } catch {
                log.fail(Self.failure(error, name: "\(name) SRV"))
                log.resolverDown = error.noResolverAnswers
                continue
            }
            let targets = records.compactMap { record -> (priority: UInt16, weight: UInt16, port: Int, host: String)? in
                guard case .srv(let priority, let weight, let port, let target) = record.data, port != 0, target != "." else { return nil }
                let host = (target.hasSuffix(".") ? String(target.dropLast()) : target).lowercased()
                guard DomainName.isHostName(host) else { return nil }
                return (priority, weight, Int(port), host)
            }
            if let best = targets.min(by: { ($0.priority, UInt16.max - $0.weight) < ($1.priority, UInt16.max - $1.weight) }) {
                return ServerEndpoint(host: best.host, port: best.port, security: service.security)
            }
        }
        return nil
    }

    static func failure(_ error: DNSLookupError, name: String) -> DiscoveryStepFailure {
        switch error {
        case .noServer: .unreachable(host: "DNS", reason: "no DNS server is configured")
        case .unreachable(let reason): .unreachable(host: "DNS", reason: reason)
        case .timedOut: .unreachable(host: "DNS", reason: "no answer for \(name)")
        case .serverError(let code): .unreachable(host: "DNS", reason: "the server answered error \(code) for \(name)")
        case .malformedAnswer(let reason): .malformed(what: "the DNS answer for \(name)", reason: reason)
        }
    }
}

/// The four steps, configured from the environment: `TERN_DNS_SERVER`, `TERN_ISPDB_URL` and the
/// test-only `TERN_DISCOVERY_RESOLVE`; `caFile` is trusted besides the system's CAs for HTTPS.
public enum LiveDiscoverySources {
    public static func sources(environment: [String: String], caFile: String?) -> [any AccountSettingsSource] {
        let fetcher = DiscoveryHTTPFetcher(caFile: caFile, loopbackOverrides: DiscoveryHTTPFetcher.loopbackOverrides(environment: environment))
        return [
            ProviderTableSource(), AutoconfigSource(fetcher: fetcher),
            DNSSource(resolver: DNSResolver(configuration: .system(environment: environment))),
            OnlineDatabaseSource(fetcher: fetcher, baseURL: OnlineDatabaseSource.baseURL(environment: environment))
        ]
    }

    /// The ASCII form of an address's domain, for the use case.
    public static func encodeDomain(_ domain: String) -> String? { DomainName.ascii(domain) }
}
