import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import MailTransport
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
    /// Capabilities treated as not offered (upper case): a server whose extension is broken is
    /// used without it, and benchmarks compare a path with and without one (issue 22, QRESYNC).
    public var ignoredCapabilities: Set<String> = []
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
        let sniHostname = TLSPolicy.serverNameIndication(for: server.host)
        let watch = NIOLockedValueBox(ConnectionWatch())
        let tick = server.watchdogInterval.timeAmount
        let channel: NIOAsyncChannel<ConnectionEvent, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(server.connectTimeout.timeAmount)
                .channelOption(.socketOption(.so_keepalive), value: 1)
                .connect(host: server.host, port: server.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if server.security == .implicitTLS {
                            try channel.pipeline.syncOperations.addHandler(
                                NIOSSLClientHandler(context: tlsContext, serverHostname: sniHostname))
                        }
                        try channel.pipeline.syncOperations.addHandler(FramingHandler(framer: IMAPStreamFramer(), tickInterval: tick, watch: watch))
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
        } catch let error as IMAPProtocolError {
            throw IMAPError.protocolViolation(error)
        } catch let error where TransportFailure.isTransport(error) {
            throw classify(error, server: server)
        }
        // Anything else is the body's own (a credential that could not be had, a full store), unchanged.
    }

    static func makeTLSContext(_ server: IMAPServer) throws -> NIOSSLContext {
        do {
            return try TLSPolicy.clientContext(caFile: server.caFile)
        } catch {
            throw IMAPError(error)
        }
    }

    /// Turns NIO and BoringSSL errors into errors that say what happened.
    static func classify(_ error: any Error, server: IMAPServer) -> IMAPError {
        if let error = error as? IMAPError { return error }
        if let error = error as? IMAPProtocolError { return .protocolViolation(error) }
        return IMAPError(TransportFailure.classify(error, host: server.host, port: server.port, connectTimeout: server.connectTimeout))
    }
}
