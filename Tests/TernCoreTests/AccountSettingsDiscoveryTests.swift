import Foundation
import Synchronization
import Testing

@testable import TernCore

/// Issue 35: discovery's order (each step only when the earlier found nothing), the online
/// database only with consent, and the events a front end shows.
@Suite struct AccountSettingsDiscoveryTests {
    /// A step that records being asked and answers what it is given.
    final class ScriptedSource: AccountSettingsSource {
        let step: DiscoveryStep
        let outcome: DiscoveryStepOutcome
        let places: [String]
        let asked = Mutex<[String]>([])

        init(_ step: DiscoveryStep, found: Bool, failures: [DiscoveryStepFailure] = [], places: [String] = []) {
            self.step = step
            self.places = places
            let settings = DiscoveredAccountSettings(
                imap: ServerEndpoint(host: "imap.\(step.rawValue).test", port: 993, security: .implicitTLS),
                smtp: ServerEndpoint(host: "smtp.\(step.rawValue).test", port: 465, security: .implicitTLS), username: "jane@example.org",
                source: .providerTable(provider: step.rawValue))
            outcome = DiscoveryStepOutcome(settings: found ? settings : nil, failures: failures)
        }

        func lookUp(_ address: DiscoveryAddress, report: @escaping @Sendable (DiscoveryStepReport) -> Void) async -> DiscoveryStepOutcome {
            asked.withLock { $0.append(address.domain) }
            for place in places { report(.asking(place)) }
            for failure in outcome.failures { report(.failed(failure)) }
            return outcome
        }

        var wasAsked: Bool { !asked.withLock { $0 }.isEmpty }
    }

    final class Events: Sendable {
        let list = Mutex<[DiscoveryEvent]>([])
        func record(_ event: DiscoveryEvent) { list.withLock { $0.append(event) } }
        var all: [DiscoveryEvent] { list.withLock { $0 } }
    }

    func useCase(_ sources: [ScriptedSource]) -> DiscoverAccountSettingsUseCase {
        DiscoverAccountSettingsUseCase(sources: sources, encodeDomain: { $0.allSatisfy(\.isASCII) ? $0 : "xn--idna" })
    }

    @Test func stopsAtTheFirstStepThatFindsSettings() async throws {
        let table = ScriptedSource(.providerTable, found: false)
        let autoconfig = ScriptedSource(.autoconfig, found: true, places: ["https://autoconfig.example.org/mail/config-v1.1.xml"])
        let dns = ScriptedSource(.dns, found: true)
        let online = ScriptedSource(.onlineDatabase, found: true)
        let events = Events()
        // Given in any order, run in the steps' order.
        let settings = try await useCase([online, dns, autoconfig, table])(email: " Jane@Example.ORG ", lookupOnline: true, progress: events.record)
        #expect(settings.imap.host == "imap.autoconfig.test")
        #expect(table.asked.withLock { $0 } == ["example.org"])
        #expect(autoconfig.wasAsked && !dns.wasAsked && !online.wasAsked)
        #expect(
            events.all == [
                .lookingUp(.providerTable), .nothingFound(.providerTable, []), .lookingUp(.autoconfig),
                .asking(.autoconfig, "https://autoconfig.example.org/mail/config-v1.1.xml"), .found(settings)
            ])
    }

    @Test func theOnlineDatabaseOnlyWithConsent() async {
        let failure = DiscoveryStepFailure.httpStatus(url: "https://autoconfig.example.org/mail/config-v1.1.xml", status: 404)
        let sources = [
            ScriptedSource(.providerTable, found: false), ScriptedSource(.autoconfig, found: false, failures: [failure]),
            ScriptedSource(.dns, found: false), ScriptedSource(.onlineDatabase, found: true)
        ]
        let events = Events()
        await #expect(throws: DiscoveryError.nothingFound(steps: [.providerTable: [], .autoconfig: [failure], .dns: []], askedOnline: false)) {
            try await useCase(sources)(email: "jane@example.org", lookupOnline: false, progress: events.record)
        }
        #expect(!sources[3].wasAsked)
        #expect(events.all.last == .skipped(.onlineDatabase))
        #expect(events.all.contains(.nothingFound(.autoconfig, [failure])))
        #expect(events.all.contains(.failed(.autoconfig, failure)))

        let found = try? await useCase(sources)(email: "jane@example.org", lookupOnline: true)
        #expect(found?.imap.host == "imap.online-database.test")
        #expect(sources[3].wasAsked)
    }

    @Test func anAddressIsNeededAndItsDomainEncoded() async throws {
        let table = ScriptedSource(.providerTable, found: true)
        await #expect(throws: DiscoveryError.invalidAddress("not an address")) {
            try await useCase([table])(email: "not an address", lookupOnline: false)
        }
        _ = try await useCase([table])(email: "jane@bücher.example", lookupOnline: false)
        #expect(table.asked.withLock { $0 } == ["xn--idna"])
    }

    @Test func oauthOnlyServersSaySo() {
        let endpoint = ServerEndpoint(host: "outlook.office365.com", port: 993, security: .implicitTLS)
        var settings = DiscoveredAccountSettings(
            imap: endpoint, smtp: endpoint, username: "a", authentication: [.oauth2], source: .autoconfig(url: "u"))
        #expect(settings.needsOAuth)
        settings.authentication = [.oauth2, .password]
        #expect(!settings.needsOAuth)
        settings.authentication = []
        #expect(!settings.needsOAuth)
    }
}
