import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// An open connection to a mail server, framed by a protocol's `StreamFramer` and watched by the
/// read watchdog: what IMAP and SMTP both need before their first command (issue 33: one opener
/// instead of one per protocol). The protocol's session reads `channel` and, for STARTTLS, adds
/// TLS with `tlsContext` and `serverNameIndication` (`STARTTLS.addTLS`).
public struct MailConnection<Message: Sendable>: Sendable {
    public let channel: NIOAsyncChannel<TransportEvent<Message>, ByteBuffer>
    public let watch: NIOLockedValueBox<ConnectionWatch>
    public let tlsContext: NIOSSLContext
    /// SNI carries host names only (RFC 6066 section 3).
    public let serverNameIndication: String?

    /// Connects within the server's connect timeout, with TCP keepalive (a connection a NAT
    /// forgot is found dead rather than waited on), TLS first when it is implicit (TLS 1.2 at
    /// least, the chain and host name verified: `TLSPolicy`), then `framer` and the watchdog.
    /// Every failure is a `TransportFailure` that says what happened. `tlsContext` is the server's
    /// (`TLSPolicy.clientContext(for:)`), made first so a caller can tell an unusable CA file (Tern's setting)
    /// from a server it cannot reach. `framer` makes the framer on the channel's event loop.
    public static func open<Framer: StreamFramer>(
        to server: MailServer, tlsContext: NIOSSLContext,
        framer: @escaping @Sendable () -> Framer
    ) async throws(TransportFailure)
        -> MailConnection where Framer.Message == Message
    {
        let sni = TLSPolicy.serverNameIndication(for: server.host)
        let watch = NIOLockedValueBox(ConnectionWatch())
        let tick = server.watchdogInterval.timeAmount
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(server.connectTimeout.timeAmount)
                .channelOption(.socketOption(.so_keepalive), value: 1)
                .connect(host: server.host, port: server.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if server.security == .implicitTLS {
                            try channel.pipeline.syncOperations.addHandler(
                                TLSPolicy.clientHandler(context: tlsContext, serverHostname: sni, server: server))
                        }
                        try channel.pipeline.syncOperations.addHandler(FramingHandler(framer: framer(), tickInterval: tick, watch: watch))
                        return try NIOAsyncChannel<TransportEvent<Message>, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
            return MailConnection(channel: channel, watch: watch, tlsContext: tlsContext, serverNameIndication: sni)
        } catch {
            throw TransportFailure.classify(error, server: server)
        }
    }
}

extension TLSPolicy {
    /// NFR-SYNC-05's TLS settings with the server's CA file.
    public static func clientContext(for server: MailServer) throws(TransportFailure) -> NIOSSLContext {
        try clientContext(caFile: server.caFile)
    }
}

extension TransportFailure {
    /// `classify` for a connection to `server`.
    /// A refused pinned certificate is worded with both fingerprints (issue 35).
    public static func classify(_ error: any Error, server: MailServer) -> TransportFailure {
        if case .tlsRefused = classify(error, host: server.host, port: server.port, connectTimeout: server.connectTimeout),
            let refusal = TLSPolicy.pinnedRefusal(server: server)
        {
            return .tlsRefused(refusal)
        }
        return classify(error, host: server.host, port: server.port, connectTimeout: server.connectTimeout)
    }
}
