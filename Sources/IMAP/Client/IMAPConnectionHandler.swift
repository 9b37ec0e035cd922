import NIOConcurrencyHelpers
import NIOCore

/// What the connection hands the session: a parsed response, the bytes of a response that did not
/// parse (isolated so one bad message does not drop the connection), or a clock tick while the
/// session waits (so it can tell an idle connection from a stuck one).
enum ConnectionEvent: Sendable {
    case response(IMAPResponse)
    case unparseable(bytes: [UInt8], reason: String)
    /// No bytes for `silence` while the session was waiting for the server.
    case tick(silence: Duration)
}

/// State shared by the session (any thread) and the channel handler (its event loop).
struct ConnectionWatch: Sendable {
    /// The session awaits the server: ticks are delivered only then.
    var waiting = false
    /// Silence counts from here or the last read, whichever is later.
    var waitingSince = NIODeadline.now()
    /// STARTTLS was sent: its tagged answer must be the last plaintext the server sends.
    var startTLSPending = false
    /// STARTTLS was answered; any further plaintext byte is an injection attempt (CVE-2011-0411 class).
    var plaintextClosed = false
}

/// Frames and parses the byte stream (`ResponseFramer`, `ResponseParser`) and runs the read
/// watchdog. Framing errors (caps exceeded) are fatal; a grammar error costs one response only.
final class IMAPConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ConnectionEvent

    private var framer: ResponseFramer
    private let parser = ResponseParser()
    private let tickInterval: TimeAmount
    let watch: NIOLockedValueBox<ConnectionWatch>
    private var lastRead = NIODeadline.now()
    private var ticker: RepeatedTask?

    init(limits: ResponseFramer.Limits = .init(), tickInterval: TimeAmount, watch: NIOLockedValueBox<ConnectionWatch>) {
        self.framer = ResponseFramer(limits: limits)
        self.tickInterval = tickInterval
        self.watch = watch
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        ticker = context.eventLoop.scheduleRepeatedTask(initialDelay: tickInterval, delay: tickInterval) { _ in
            let (handler, context) = loopBound.value
            handler.tick(context: context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        ticker?.cancel()
        ticker = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
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

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        lastRead = .now()
        if watch.withLockedValue({ $0.plaintextClosed }) {
            context.fireErrorCaught(IMAPError.tlsRefused("the server sent plaintext after its STARTTLS response (possible injection); connection closed"))
            context.close(promise: nil)
            return
        }
        if let bytes = buffer.readBytes(length: buffer.readableBytes) { framer.append(bytes) }
        do {
            while let frame = try framer.next() {
                let event: ConnectionEvent
                do {
                    event = .response(try parser.parse(frame))
                } catch {
                    event = .unparseable(bytes: frame, reason: error.description)
                }
                if case .response(.tagged) = event, watch.withLockedValue({ $0.startTLSPending }) {
                    let injected = framer.bufferedByteCount > 0
                    watch.withLockedValue { $0.startTLSPending = false; $0.plaintextClosed = true }
                    if injected {
                        context.fireErrorCaught(IMAPError.tlsRefused("the server sent plaintext after its STARTTLS response (possible injection); connection closed"))
                        context.close(promise: nil)
                        return
                    }
                }
                context.fireChannelRead(wrapInboundOut(event))
            }
        } catch {
            context.fireErrorCaught(error)
            context.close(promise: nil)
        }
    }
}
