import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// Cuts a protocol's byte stream into messages (IMAP responses, SMTP replies). Incremental: bytes
/// may arrive split anywhere. The type is named in closures run on the event loop.
public protocol StreamFramer: SendableMetatype {
    associatedtype Message: Sendable
    mutating func append(_ bytes: [UInt8])
    /// The next whole message; nil when more bytes are needed. A throw ends the connection.
    mutating func nextMessage() throws -> Message?
    /// Bytes received but not yet part of a returned message.
    var bufferedByteCount: Int { get }
}

/// What a connection hands its session: a message, or a clock tick while the session waits, so it
/// can tell an idle connection (nothing outstanding) from a stuck one (a command unanswered).
public enum TransportEvent<Message: Sendable>: Sendable {
    case message(Message)
    /// No byte for `silence` while the session waited for the server.
    case tick(silence: Duration)
}

/// State shared by a session (any thread) and its channel handler (the event loop).
public struct ConnectionWatch: Sendable {
    /// The session awaits the server: ticks are delivered only then.
    public var waiting = false
    /// Silence counts from here or the last read, whichever is later.
    public var waitingSince = NIODeadline.now()
    /// STARTTLS was sent: its answer must be the last plaintext the server sends.
    public var startTLSPending = false
    /// STARTTLS was answered; a further plaintext byte is an injection attempt (CVE-2011-0411 class).
    public var plaintextClosed = false

    public init() {}
}

/// Frames the stream with `Framer` and runs the read watchdog. Shared by IMAP and SMTP.
public final class FramingHandler<Framer: StreamFramer>: ChannelInboundHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = TransportEvent<Framer.Message>

    private var framer: Framer
    private let tickInterval: TimeAmount
    private let watch: NIOLockedValueBox<ConnectionWatch>
    private var lastRead = NIODeadline.now()
    private var ticker: RepeatedTask?
    /// Messages handed to the session so far; `STARTTLS.addTLS` compares it with what the session read.
    private var deliveredMessages = 0

    public init(framer: Framer, tickInterval: TimeAmount, watch: NIOLockedValueBox<ConnectionWatch>) {
        self.framer = framer
        self.tickInterval = tickInterval
        self.watch = watch
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        ticker = context.eventLoop.scheduleRepeatedTask(initialDelay: tickInterval, delay: tickInterval) { _ in
            let (handler, context) = loopBound.value
            handler.tick(context: context)
        }
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        ticker?.cancel()
        ticker = nil
    }

    public func channelInactive(context: ChannelHandlerContext) {
        ticker?.cancel()
        ticker = nil
        context.fireChannelInactive()
    }

    private func tick(context: ChannelHandlerContext) {
        let (waiting, since) = watch.withLockedValue { ($0.waiting, $0.waitingSince) }
        guard waiting else { return }
        let silence = NIODeadline.now() - max(lastRead, since)
        context.fireChannelRead(wrapInboundOut(.tick(silence: .nanoseconds(silence.nanoseconds))))
        // NIOAsyncChannel hands reads over at read-complete.
        context.fireChannelReadComplete()
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        lastRead = .now()
        if watch.withLockedValue({ $0.plaintextClosed }) {
            refuseInjection(context: context)
            return
        }
        if let bytes = buffer.readBytes(length: buffer.readableBytes) { framer.append(bytes) }
        do {
            while let message = try framer.nextMessage() {
                if watch.withLockedValue({ $0.startTLSPending }) {
                    // This is the STARTTLS answer: nothing may follow it in plaintext.
                    watch.withLockedValue {
                        $0.startTLSPending = false
                        $0.plaintextClosed = true
                    }
                    if framer.bufferedByteCount > 0 {
                        refuseInjection(context: context)
                        return
                    }
                }
                deliveredMessages += 1
                context.fireChannelRead(wrapInboundOut(.message(message)))
            }
        } catch {
            context.fireErrorCaught(error)
            context.close(promise: nil)
        }
    }

    /// Throws unless the session has read every message this handler delivered and the framer holds
    /// no byte: then nothing received in plaintext can be read as if it came over TLS.
    func requireDrained(messagesRead: Int) throws(TransportFailure) {
        let unread = deliveredMessages - messagesRead
        guard unread == 0, framer.bufferedByteCount == 0 else {
            throw .tlsRefused(
                """
                the server's plaintext held \(unread > 0 ? "\(unread) unread response(s)" : "unframed bytes") when TLS was to start: \
                someone on the network may be injecting answers into this connection (STARTTLS response injection); connection closed
                """)
        }
    }

    private func refuseInjection(context: ChannelHandlerContext) {
        context.fireErrorCaught(
            TransportFailure.tlsRefused("the server sent plaintext after its STARTTLS answer (possible injection); connection closed"))
        context.close(promise: nil)
    }
}

extension NIOLockedValueBox where Value == ConnectionWatch {
    public func beginWaiting() {
        withLockedValue {
            $0.waiting = true
            $0.waitingSince = .now()
        }
    }

    public func endWaiting() {
        withLockedValue { $0.waiting = false }
    }
}

/// The switch to TLS after a STARTTLS answer (RFC 3207 section 4.2, RFC 9051 section 6.2.1).
public enum STARTTLS {
    /// Puts TLS in front of the framing handler, on the event loop so that no read interleaves.
    /// Refused (`TransportFailure.tlsRefused`) when anything received in plaintext is still
    /// waiting for the session: responses the server, or someone on the path, sent in the same
    /// packets as the greeting or an earlier answer would otherwise be read as the server's
    /// answers over TLS (the finding of issue 21; CVE-2011-0411 is the server-side twin).
    /// `messagesRead` counts the messages the session has taken from the channel. `server`'s
    /// certificate trust applies as on an implicit TLS connection.
    public static func addTLS<Framer: StreamFramer>(
        to channel: any Channel, framer: Framer.Type, messagesRead: Int, context: NIOSSLContext, serverHostname: String?,
        server: MailServer, watch: NIOLockedValueBox<ConnectionWatch>
    ) async throws {
        try await channel.eventLoop.submit {
            let framing = try channel.pipeline.syncOperations.handler(type: FramingHandler<Framer>.self)
            try framing.requireDrained(messagesRead: messagesRead)
            try channel.pipeline.syncOperations.addHandler(
                TLSPolicy.clientHandler(context: context, serverHostname: serverHostname, server: server), position: .first)
            watch.withLockedValue { $0.plaintextClosed = false }
        }.get()
    }
}
