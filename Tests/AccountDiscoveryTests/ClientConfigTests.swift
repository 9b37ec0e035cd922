import TernCore
import Testing

@testable import AccountDiscovery

/// Issue 35: Thunderbird's clientConfig documents read into settings, and the XML reader's refusals.
@Suite struct ClientConfigTests {
    let address = DiscoveryAddress(address: "Jane.Doe@example.org", localPart: "Jane.Doe", domain: "example.org")
    let source = DiscoverySource.autoconfig(url: "https://autoconfig.example.org/mail/config-v1.1.xml")

    func settings(_ xml: String) throws -> DiscoveredAccountSettings {
        try ClientConfig.parse(Array(xml.utf8)).settings(for: address, source: source, what: "the document")
    }

    func document(incoming: String, outgoing: String) -> String {
        """
        <?xml version="1.0"?>
        <clientConfig version="1.1"><emailProvider id="example.org"><domain>example.org</domain>
        <displayName>Example Mail</displayName>\(incoming)\(outgoing)</emailProvider></clientConfig>
        """
    }

    @Test func readsThunderbirdsDocumentWithPlaceholders() throws {
        let found = try settings(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- served by the domain -->
            <!DOCTYPE clientConfig [ <!ENTITY ignored "never expanded"> ]>
            <clientConfig version="1.1">
              <emailProvider id="example.org">
                <domain>example.org</domain>
                <displayName>Example &amp; Co</displayName>
                <incomingServer type="pop3">
                  <hostname>pop.example.org</hostname><port>995</port><socketType>SSL</socketType>
                </incomingServer>
                <incomingServer type="imap">
                  <hostname>imap.%EMAILDOMAIN%</hostname>
                  <port>993</port>
                  <socketType>SSL</socketType>
                  <username>%EMAILLOCALPART%</username>
                  <authentication>password-cleartext</authentication>
                  <authentication>OAuth2</authentication>
                </incomingServer>
                <outgoingServer type="smtp">
                  <hostname>SMTP.example.org</hostname>
                  <port>587</port>
                  <socketType>STARTTLS</socketType>
                  <username>%EMAILADDRESS%</username>
                </outgoingServer>
              </emailProvider>
            </clientConfig>
            """)
        #expect(found.imap == ServerEndpoint(host: "imap.example.org", port: 993, security: .implicitTLS))
        #expect(found.smtp == ServerEndpoint(host: "smtp.example.org", port: 587, security: .startTLS))
        #expect(found.username == "Jane.Doe")
        #expect(found.providerName == "Example & Co")
        #expect(found.authentication == [.password, .oauth2])
        #expect(found.source == source)
    }

    @Test func skipsPlaintextServersForOnesWithTLS() throws {
        let found = try settings(
            document(
                incoming: """
                    <incomingServer type="imap"><hostname>mail.example.org</hostname><port>143</port><socketType>plain</socketType></incomingServer>
                    <incomingServer type="imap"><hostname>mail.example.org</hostname><socketType>STARTTLS</socketType></incomingServer>
                    """,
                outgoing: """
                    <outgoingServer type="smtp"><hostname>mail.example.org</hostname><port>25</port><socketType>plain</socketType></outgoingServer>
                    <outgoingServer type="smtp"><hostname>mail.example.org</hostname><socketType>SSL</socketType></outgoingServer>
                    """))
        // Ports left out are the service's own for the TLS mode.
        #expect(found.imap == ServerEndpoint(host: "mail.example.org", port: 143, security: .startTLS))
        #expect(found.smtp == ServerEndpoint(host: "mail.example.org", port: 465, security: .implicitTLS))
        #expect(found.username == "Jane.Doe@example.org")
    }

    @Test func neverChoosesPlaintext() {
        let xml = document(
            incoming:
                "<incomingServer type=\"imap\"><hostname>mail.example.org</hostname><port>143</port><socketType>plain</socketType></incomingServer>",
            outgoing: "<outgoingServer type=\"smtp\"><hostname>mail.example.org</hostname><socketType>SSL</socketType></outgoingServer>")
        #expect(throws: DiscoveryStepFailure.plaintextOnly(what: "the document")) { try settings(xml) }
    }

    @Test func needsBothServers() {
        let xml = document(
            incoming: "<incomingServer type=\"imap\"><hostname>mail.example.org</hostname><socketType>SSL</socketType></incomingServer>",
            outgoing: "")
        #expect(throws: DiscoveryStepFailure.incomplete(what: "the document", missing: .smtp)) { try settings(xml) }
    }

    @Test func prefersAServerTernCanSignInTo() throws {
        let found = try settings(
            document(
                incoming: """
                    <incomingServer type="imap"><hostname>gssapi.example.org</hostname><socketType>SSL</socketType>
                    <authentication>GSSAPI</authentication></incomingServer>
                    <incomingServer type="imap"><hostname>imap.example.org</hostname><socketType>SSL</socketType>
                    <authentication>password-cleartext</authentication></incomingServer>
                    """,
                outgoing: "<outgoingServer type=\"smtp\"><hostname>smtp.example.org</hostname><socketType>SSL</socketType></outgoingServer>"))
        #expect(found.imap.host == "imap.example.org")
    }

    @Test func refusesHostNamesThatAreNot() {
        let xml = document(
            incoming: "<incomingServer type=\"imap\"><hostname>evil host/../x</hostname><socketType>SSL</socketType></incomingServer>",
            outgoing: "<outgoingServer type=\"smtp\"><hostname>smtp.example.org</hostname><socketType>SSL</socketType></outgoingServer>")
        #expect(throws: DiscoveryStepFailure.incomplete(what: "the document", missing: .imap)) { try settings(xml) }
    }

    @Test func refusesAnotherDocument() {
        #expect(throws: XMLReadError.malformed("the root element is <html>, not <clientConfig>")) {
            try ClientConfig.parse(Array("<html><body>Not found</body></html>".utf8))
        }
    }
}
