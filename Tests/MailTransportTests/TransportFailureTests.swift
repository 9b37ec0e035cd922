import MailTransport
import NIOCore
import NIOSSL
import Testing

/// What went wrong below IMAP and SMTP, worded so a person can act on it: NIO's and BoringSSL's
/// errors sorted into refused TLS, a timeout, a network error or a closed connection, with the
/// server named.
struct TransportFailureTests {
    /// An error known only by its text, as BoringSSL's and the resolver's reach the client.
    struct TextError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func classify(_ error: any Error) -> TransportFailure {
        TransportFailure.classify(error, host: "imap.example.org", port: 993, connectTimeout: .seconds(5))
    }

    @Test func eachFailureSaysWhatHappened() {
        #expect(TransportFailure.tlsRefused("the certificate expired").description == "TLS refused: the certificate expired")
        #expect(TransportFailure.timeout("no greeting").description == "timed out: no greeting")
        #expect(TransportFailure.network("host unreachable").description == "network error: host unreachable")
        #expect(TransportFailure.closed.description == "the server closed the connection")
    }

    @Test func aFailureAlreadyWordedIsKept() {
        #expect(Self.classify(TransportFailure.timeout("no greeting")) == .timeout("no greeting"))
    }

    @Test func aConnectTimeoutNamesTheServerAndTheLimit() {
        #expect(
            Self.classify(ChannelError.connectTimeout(.seconds(5)))
                == .timeout("connecting to imap.example.org:993 took over \(Duration.seconds(5))"))
    }

    @Test(arguments: [ChannelError.ioOnClosedChannel, .alreadyClosed, .eof, .outputClosed])
    func aChannelThatClosedIsAClosedConnection(_ error: ChannelError) {
        #expect(Self.classify(error) == .closed)
    }

    @Test func anUncleanTLSShutdownIsAClosedConnection() {
        #expect(Self.classify(NIOSSLError.uncleanShutdown) == .closed)
    }

    @Test func aSystemCallErrorNamesTheServer() {
        let error = IOError(errnoCode: 111, reason: "connect")
        #expect(Self.classify(error) == .network("imap.example.org:993: \(error.description)"))
    }

    @Test(arguments: [
        (
            "SSL handshake: CERTIFICATE_VERIFY_FAILED",
            "imap.example.org:993: the server's certificate is not trusted (self-signed, or signed by an unknown CA); use --ca-file to trust a private CA"
        ),
        (
            "SSL error: certificate verify failed",
            "imap.example.org:993: the server's certificate is not trusted (self-signed, or signed by an unknown CA); use --ca-file to trust a private CA"
        ),
        ("SSL alert: TLSV1_ALERT_PROTOCOL_VERSION", "imap.example.org:993: the server does not offer TLS 1.2 or newer"),
        ("SSL: WRONG_VERSION_NUMBER", "imap.example.org:993: the server does not offer TLS 1.2 or newer"),
        ("certificate check: failedToValidateHostname", "imap.example.org:993: the certificate is not for this host name"),
        ("SSL: something new", "imap.example.org:993: TLS handshake failed (SSL: something new)")
    ])
    func aTLSFailureSaysWhatToDo(_ text: String, _ wording: String) {
        #expect(Self.classify(TextError(text)) == .tlsRefused(wording))
    }

    @Test func aRefusedConnectionAndAnUnknownHostAreWorded() {
        #expect(
            Self.classify(TextError("connect(descriptor:addr:size:): Connection refused (errno: 111)"))
                == .network("imap.example.org:993: connection refused"))
        #expect(Self.classify(TextError("getaddrinfo: Name or service not known")) == .network("imap.example.org:993: host name not found"))
        #expect(
            Self.classify(TextError("getaddrinfo: Temporary failure in name resolution")) == .network("imap.example.org:993: host name not found"))
    }

    @Test func anythingElseIsANetworkErrorWithItsText() {
        #expect(Self.classify(TextError("no route")) == .network("imap.example.org:993: no route"))
    }

    /// Only the connection's own errors are the network's; what the code using it threw is not.
    @Test func transportErrorsAreTellableFromTheCallersOwn() {
        #expect(TransportFailure.isTransport(TransportFailure.closed))
        #expect(TransportFailure.isTransport(ChannelError.eof))
        #expect(TransportFailure.isTransport(IOError(errnoCode: 104, reason: "read")))
        #expect(TransportFailure.isTransport(NIOSSLError.uncleanShutdown))
        #expect(TransportFailure.isTransport(DeflateFailure.setup))
        #expect(!TransportFailure.isTransport(TextError("the store is full")))
    }
}
