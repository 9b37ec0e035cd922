import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import TernCore

/// Where and how to reach an IMAP server. Certificate and host name verification are always on
/// (NFR-SYNC-05); `caFile` adds one trusted CA to the system's roots.
public struct IMAPServer: Sendable, Hashable {
    public var host: String
    public var port: Int
    public var security: ConnectionSecurity
    public var caFile: String?
    /// FR-SYNC-09: a connection not established in 30 s has failed.
    public var connectTimeout: Duration
    /// A command that waits this long with no byte from the server has a stuck connection (an
    /// idle connection, with no command outstanding, may be silent for as long as it likes).
    public var commandTimeout: Duration
    /// How often the watchdog looks at the silence while the session waits.
    public var watchdogInterval: Duration

    public init(host: String, port: Int, security: ConnectionSecurity, caFile: String? = nil,
                connectTimeout: Duration = .seconds(30), commandTimeout: Duration = .seconds(60),
                watchdogInterval: Duration = .seconds(1)) {
        self.host = host
        self.port = port
        self.security = security
        self.caFile = caFile
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        self.watchdogInterval = watchdogInterval
    }

    public init(endpoint: ServerEndpoint, caFile: String?) {
        self.init(host: endpoint.host, port: endpoint.port, security: endpoint.security, caFile: caFile)
    }
}

/// Opens IMAP connections on SwiftNIO. A connection lives for the scope of `withSession`, which
/// closes it whatever happens in the body.
public enum IMAPClient {
    public static func withSession<Result: Sendable>(
        to server: IMAPServer, logger: Logger = Logger(label: "tern.imap"), _ body: (IMAPSession) async throws -> Result
    ) async throws -> Result {
        let tlsContext = try makeTLSContext(server)
        let sniHostname = server.host.isIPAddress ? nil : server.host
        let watch = NIOLockedValueBox(ConnectionWatch())
        let tick = TimeAmount.nanoseconds(Int64(server.watchdogInterval.components.seconds) * 1_000_000_000
            + server.watchdogInterval.components.attoseconds / 1_000_000_000)
        let channel: NIOAsyncChannel<ConnectionEvent, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.nanoseconds(Int64(server.connectTimeout.components.seconds) * 1_000_000_000))
                .channelOption(.socketOption(.so_keepalive), value: 1)
                .connect(host: server.host, port: server.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if server.security == .implicitTLS {
                            try channel.pipeline.syncOperations.addHandler(
                                NIOSSLClientHandler(context: tlsContext, serverHostname: sniHostname))
                        }
                        try channel.pipeline.syncOperations.addHandler(IMAPConnectionHandler(tickInterval: tick, watch: watch))
                        return try NIOAsyncChannel<ConnectionEvent, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw classify(error, server: server)
        }
        do {
            return try await channel.executeThenClose { inbound, outbound in
                let session = IMAPSession(
                    inbound: inbound.makeAsyncIterator(), outbound: outbound, channel: channel.channel, watch: watch,
                    tlsContext: tlsContext, sniHostname: sniHostname, server: server, logger: logger)
                try await session.start()
                return try await body(session)
            }
        } catch let error as IMAPError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            throw classify(error, server: server)
        }
    }

    static func makeTLSContext(_ server: IMAPServer) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.certificateVerification = .fullVerification
        if let caFile = server.caFile {
            configuration.additionalTrustRoots = [.file(caFile)]
        }
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw IMAPError.tlsRefused("cannot use the CA file '\(server.caFile ?? "")': \(error)")
        }
    }

    /// Turns NIO and BoringSSL errors into errors that say what happened.
    static func classify(_ error: any Error, server: IMAPServer) -> IMAPError {
        if let error = error as? IMAPError { return error }
        if let error = error as? IMAPProtocolError { return .protocolViolation(error) }
        let text = String(describing: error)
        let where_ = "\(server.host):\(server.port)"
        if error is NIOSSLError || error is BoringSSLError || text.contains("SSL") || text.contains("certificate") {
            if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate verify failed") {
                return .tlsRefused("\(where_): the server's certificate is not trusted (self-signed, or signed by an unknown CA); use --ca-file to trust a private CA")
            }
            if text.contains("UNSUPPORTED_PROTOCOL") || text.contains("unsupported protocol") || text.contains("TLSV1_ALERT_PROTOCOL_VERSION")
                || text.contains("WRONG_VERSION_NUMBER") {
                return .tlsRefused("\(where_): the server does not offer TLS 1.2 or newer")
            }
            if text.contains("failedToValidateHostname") || text.contains("hostname") {
                return .tlsRefused("\(where_): the certificate is not for this host name")
            }
            return .tlsRefused("\(where_): TLS handshake failed (\(text))")
        }
        if let channelError = error as? ChannelError {
            switch channelError {
            case .connectTimeout: return .timeout("connecting to \(where_) took over \(server.connectTimeout)")
            case .ioOnClosedChannel, .alreadyClosed, .eof: return .connectionClosed
            default: return .network("\(where_): \(channelError)")
            }
        }
        if let ioError = error as? IOError { return .network("\(where_): \(ioError.description)") }
        if text.contains("Connection refused") { return .network("\(where_): connection refused") }
        if text.contains("Name or service not known") || text.contains("Temporary failure in name resolution") {
            return .network("\(where_): host name not found")
        }
        return .network("\(where_): \(text)")
    }
}

extension String {
    var isIPAddress: Bool {
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        return withCString { inet_pton(AF_INET, $0, &ipv4) == 1 || inet_pton(AF_INET6, $0, &ipv6) == 1 }
    }
}
