import NIOConcurrencyHelpers
import NIOCore

/// Cuts a protocol's byte stream into messages (IMAP responses, SMTP replies). Incremental: bytes
/// may arrive split anywhere.
public protocol StreamFramer {
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
                    watch.withLockedValue { $0.startTLSPending = false; $0.plaintextClosed = true }
                    if framer.bufferedByteCount > 0 {
                        refuseInjection(context: context)
                        return
                    }
                }
                context.fireChannelRead(wrapInboundOut(.message(message)))
            }
        } catch {
            context.fireErrorCaught(error)
            context.close(promise: nil)
        }
    }

    private func refuseInjection(context: ChannelHandlerContext) {
        context.fireErrorCaught(TransportFailure.tlsRefused("the server sent plaintext after its STARTTLS answer (possible injection); connection closed"))
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
