import NIOCore

/// Turns the byte stream into parsed responses: `ResponseFramer` for framing and size caps,
/// `ResponseParser` for the grammar. A response that does not parse is a protocol violation.
struct IMAPResponseDecoder: ByteToMessageDecoder {
    typealias InboundOut = IMAPResponse

    var framer = ResponseFramer()
    let parser = ResponseParser()

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if buffer.readableBytes > 0, let bytes = buffer.readBytes(length: buffer.readableBytes) {
            framer.append(bytes)
        }
        // Every complete response now: the handler does not call again for bytes already consumed.
        while let frame = try framer.next() {
            context.fireChannelRead(Self.wrapInboundOut(try parser.parse(frame)))
        }
        return .needMoreData
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        try decode(context: context, buffer: &buffer)
    }
}
