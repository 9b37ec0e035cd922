import MailTransport
import NIOCore
import NIOSSL
import Testing

/// NFR-SYNC-05's policy, shared by IMAP and SMTP: one context per CA file, and SNI for host names
/// only (RFC 6066 section 3).
struct TLSPolicyTests {
    @Test(arguments: ["imap.example.org", "localhost", "mail.bücher.example"])
    func aHostNameIsSentAsTheServerName(_ host: String) {
        #expect(TLSPolicy.serverNameIndication(for: host) == host)
    }

    @Test(arguments: ["127.0.0.1", "192.0.2.1", "::1", "2001:db8::25"])
    func anAddressIsNeverSentAsTheServerName(_ address: String) {
        #expect(address.isIPAddress)
        #expect(TLSPolicy.serverNameIndication(for: address) == nil)
    }

    @Test(arguments: ["999.1.1.1", "1.2.3", "example.org", "::g", ""])
    func somethingThatOnlyLooksLikeAnAddressIsNotOne(_ text: String) {
        #expect(!text.isIPAddress)
    }

    /// Building a context parses every system root: connections share one.
    @Test func theContextWithoutACAFileIsBuiltOnce() throws {
        let first = try TLSPolicy.clientContext(caFile: nil)
        let second = try TLSPolicy.clientContext(caFile: nil)
        #expect(first === second)
    }

    @Test func durationsBecomeNIOTimeAmounts() {
        #expect(Duration.seconds(2).timeAmount == .seconds(2))
        #expect(Duration.milliseconds(1_500).timeAmount == .milliseconds(1_500))
        #expect(Duration.nanoseconds(7).timeAmount == .nanoseconds(7))
    }
}
