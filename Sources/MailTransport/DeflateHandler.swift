import CZlib
import NIOConcurrencyHelpers
import NIOCore

/// RFC 4978 COMPRESS=DEFLATE: everything after the server's OK is raw deflate (RFC 1951, no zlib
/// header) each way, inside TLS. Each write is flushed with Z_SYNC_FLUSH, so a command reaches the
/// server whole; each read is inflated as it comes. Sits between TLS and the framing handler.
public final class DeflateHandler: ChannelDuplexHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer
    public typealias OutboundIn = ByteBuffer
    public typealias OutboundOut = ByteBuffer

    /// Inflated output is passed on in pieces of this size, so one read never holds its whole
    /// expansion (deflate expands at most about 1,032 to 1) before the framer's limits see it.
    static let chunkSize = 64 * 1024

    private var deflater = z_stream()
    private var inflater = z_stream()
    private var deflaterReady = false
    private var inflaterReady = false
    /// Bytes each way, for benchmarks and diagnostics: compressed on the wire, and as the session sees them.
    public let counters: NIOLockedValueBox<DeflateCounters>

    public init(counters: NIOLockedValueBox<DeflateCounters> = NIOLockedValueBox(DeflateCounters())) {
        self.counters = counters
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        // windowBits -15: raw deflate, the format RFC 4978 requires.
        deflaterReady =
            deflateInit2_(
                &deflater, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
                zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
        inflaterReady = inflateInit2_(&inflater, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
        if !deflaterReady || !inflaterReady { context.fireErrorCaught(DeflateFailure.setup) }
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        if deflaterReady { deflateEnd(&deflater) }
        if inflaterReady { inflateEnd(&inflater) }
        deflaterReady = false
        inflaterReady = false
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var input = unwrapInboundIn(data)
        guard inflaterReady, input.readableBytes > 0 else { return }
        let compressed = input.readableBytes
        var pieces: [ByteBuffer] = []
        var produced = 0
        var failure: DeflateFailure?
        let allocator = context.channel.allocator
        input.withUnsafeMutableReadableBytes { bytes in
            inflater.next_in = bytes.baseAddress?.assumingMemoryBound(to: Bytef.self)
            inflater.avail_in = uInt(bytes.count)
            while true {
                var output = allocator.buffer(capacity: Self.chunkSize)
                var status = Z_OK
                output.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.chunkSize) { space in
                    inflater.next_out = space.baseAddress?.assumingMemoryBound(to: Bytef.self)
                    inflater.avail_out = uInt(space.count)
                    status = inflate(&inflater, Z_SYNC_FLUSH)
                    return space.count - Int(inflater.avail_out)
                }
                if output.readableBytes > 0 {
                    produced += output.readableBytes
                    pieces.append(output)
                }
                guard status == Z_OK || status == Z_BUF_ERROR || status == Z_STREAM_END else {
                    failure = .corrupt
                    break
                }
                guard produced <= Self.maxExpansionPerRead else {
                    failure = .expansion
                    break
                }
                // Done when the input is used up and the output had room to spare (nothing held back).
                if status != Z_OK || (inflater.avail_in == 0 && inflater.avail_out > 0) { break }
            }
        }
        counters.withLockedValue {
            $0.compressedIn += compressed
            $0.inflatedIn += produced
        }
        // Passed on after inflating, so that a reader closing the channel (and removing this
        // handler, which frees the stream) cannot do so while the stream is in use.
        if let failure {
            context.fireErrorCaught(failure)
            return
        }
        for piece in pieces { context.fireChannelRead(wrapInboundOut(piece)) }
    }

    /// One read of at most 64 KiB never inflates to more than this: a server's literal of real mail
    /// compresses perhaps tenfold; a "deflate bomb" of 1,000 to 1 is refused.
    static let maxExpansionPerRead = 32 * 1024 * 1024

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var input = unwrapOutboundIn(data)
        guard deflaterReady else {
            promise?.fail(DeflateFailure.setup)
            return
        }
        let plain = input.readableBytes
        var output = context.channel.allocator.buffer(capacity: Int(deflateBound(&deflater, uLong(plain))) + 16)
        input.withUnsafeMutableReadableBytes { bytes in
            deflater.next_in = bytes.baseAddress?.assumingMemoryBound(to: Bytef.self)
            deflater.avail_in = uInt(bytes.count)
            repeat {
                _ = output.writeWithUnsafeMutableBytes(minimumWritableBytes: 4096) { space in
                    deflater.next_out = space.baseAddress?.assumingMemoryBound(to: Bytef.self)
                    deflater.avail_out = uInt(space.count)
                    deflate(&deflater, Z_SYNC_FLUSH)
                    return space.count - Int(deflater.avail_out)
                }
            } while deflater.avail_out == 0
        }
        counters.withLockedValue {
            $0.plainOut += plain
            $0.compressedOut += output.readableBytes
        }
        context.write(wrapOutboundOut(output), promise: promise)
    }
}

/// What went through a deflate handler, each way.
public struct DeflateCounters: Sendable, Hashable {
    public var plainOut = 0
    public var compressedOut = 0
    public var compressedIn = 0
    public var inflatedIn = 0
    public init() {}
}

public enum DeflateFailure: Error, Sendable, Hashable, CustomStringConvertible {
    case setup
    case corrupt
    case expansion

    public var description: String {
        switch self {
        case .setup: "compression could not be set up"
        case .corrupt: "the server's compressed data is corrupt"
        case .expansion: "the server's compressed data expands beyond any real message (a decompression bomb)"
        }
    }
}

public enum COMPRESS {
    /// Puts deflate between TLS and the framing handler, on the event loop so that no read
    /// interleaves; refused when a response is still waiting in the framer (its bytes would be
    /// read as compressed, or compressed bytes as text).
    public static func addDeflate<Framer: StreamFramer>(
        to channel: any Channel, framer: Framer.Type, messagesRead: Int, counters: NIOLockedValueBox<DeflateCounters>
    ) async throws {
        try await channel.eventLoop.submit {
            let framing = try channel.pipeline.syncOperations.handler(type: FramingHandler<Framer>.self)
            try framing.requireDrained(messagesRead: messagesRead)
            try channel.pipeline.syncOperations.addHandler(DeflateHandler(counters: counters), position: .before(framing))
        }.get()
    }
}
