import Foundation
import NIOCore
import TernCore
import Testing

@testable import AccountDiscovery

/// Issue 35's provider table, MX matching, domain names and the resolver's configuration.
@Suite struct ProviderTableTests {
    let address = DiscoveryAddress(address: "jane@gmail.com", localPart: "jane", domain: "gmail.com")

    @Test func gmailIsTheGmailPreset() async throws {
        let outcome = await ProviderTableSource().lookUp(address) { _ in Issue.record("the table asks no one") }
        let settings = try #require(outcome.settings)
        #expect(settings.imap == AddAccountUseCase.gmailIMAP && settings.smtp == AddAccountUseCase.gmailSMTP)
        #expect(settings.provider == .gmail && settings.username == "jane@gmail.com")
        #expect(settings.source == .providerTable(provider: "Gmail"))
    }

    @Test func everyEntryUsesTLSAndOwnsItsDomainsAlone() {
        var seen: Set<String> = []
        for provider in ProviderTable.providers {
            #expect(!provider.domains.isEmpty)
            for domain in provider.domains { #expect(seen.insert(domain).inserted, "\(domain) is in two entries") }
            #expect(DomainName.isHostName(provider.imap.host) && DomainName.isHostName(provider.smtp.host))
        }
    }

    @Test func iCloudLogsInWithTheNamePart() {
        let settings = ProviderTable.provider(forDomain: "ICLOUD.com")?.settings(
            for: DiscoveryAddress(address: "jane@icloud.com", localPart: "jane", domain: "icloud.com"), source: .providerTable(provider: "x"))
        #expect(settings?.username == "jane")
        #expect(settings?.smtp == ServerEndpoint(host: "smtp.mail.me.com", port: 587, security: .startTLS))
    }

    @Test func mxHostsOnALabelBoundary() {
        #expect(ProviderTable.provider(receivingAt: "aspmx.l.google.com.")?.provider == .gmail)
        #expect(ProviderTable.provider(receivingAt: "example-org.mail.protection.outlook.com")?.name == "Microsoft 365 / Outlook.com")
        #expect(ProviderTable.provider(receivingAt: "notgoogle.com") == nil)
        #expect(ProviderTable.provider(receivingAt: "google.com.evil.example") == nil)
        #expect(ProviderTable.provider(receivingAt: "mx.example.org") == nil)
    }

    @Test func domainsInTheirASCIIForm() {
        #expect(DomainName.ascii("Bücher.Example") == "xn--bcher-kva.example")
        #expect(DomainName.ascii("example.org") == "example.org")
        #expect(DomainName.ascii("exa mple.org") == nil)
        #expect(DomainName.ascii("a..org") == nil)
        #expect(DomainName.ascii("-a.org") == nil)
        #expect(DomainName.ascii("127.0.0.1") == nil)
        #expect(DomainName.isHostName("127.0.0.1") && DomainName.isHostName("::1") && DomainName.isHostName("mail.example.org."))
        #expect(!DomainName.isHostName("mail/example") && !DomainName.isHostName(""))
    }

    @Test func resolversFromResolvConfOrTheOverride() throws {
        let servers = DNSResolverConfiguration.nameservers(
            resolvConf: "# comment\nsearch example.org\nnameserver 192.0.2.53\nnameserver\tfe80::1%eth0\nnameserver bogus\n")
        #expect(servers == [try SocketAddress(ipAddress: "192.0.2.53", port: 53), try SocketAddress(ipAddress: "fe80::1", port: 53)])
        let override = DNSResolverConfiguration.system(environment: ["TERN_DNS_SERVER": "127.0.0.1:15153"], resolvConf: "/nonexistent")
        #expect(override.servers == [try SocketAddress(ipAddress: "127.0.0.1", port: 15153)])
        #expect(DNSResolverConfiguration.system(environment: [:], resolvConf: "/nonexistent").servers.isEmpty)
    }

    @Test func theTestsResolveOverride() {
        let overrides = DiscoveryHTTPFetcher.loopbackOverrides(environment: [
            "TERN_DISCOVERY_RESOLVE": "Autoconfig.Example.test:15101,bad,x:0,example.test:15102"
        ])
        #expect(overrides == ["autoconfig.example.test": 15101, "example.test": 15102])
    }

    @Test func autoconfigAddressesInOrder() {
        #expect(
            AutoconfigSource.urls(for: "example.org").map(\.absoluteString) == [
                "https://autoconfig.example.org/mail/config-v1.1.xml", "https://example.org/.well-known/autoconfig/mail/config-v1.1.xml"
            ])
        #expect(OnlineDatabaseSource.baseURL(environment: [:]) == "https://autoconfig.thunderbird.net/v1.1/")
        #expect(OnlineDatabaseSource.baseURL(environment: ["TERN_ISPDB_URL": "https://localhost:15103/v1.1/"]) == "https://localhost:15103/v1.1/")
    }

    @Test func noDNSServerIsAReasonNotACrash() async {
        let source = DNSSource(resolver: DNSResolver(configuration: DNSResolverConfiguration(servers: [])))
        let outcome = await source.lookUp(DiscoveryAddress(address: "a@example.org", localPart: "a", domain: "example.org")) { _ in }
        #expect(outcome.settings == nil)
        #expect(outcome.failures.contains(.unreachable(host: "DNS", reason: "no DNS server is configured")))
    }
}
