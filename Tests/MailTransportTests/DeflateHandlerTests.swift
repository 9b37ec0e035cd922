import MailTransport
import NIOCore
import NIOEmbedded
import Testing

/// RFC 4978's deflate layer on its own: what one side deflates the other inflates, byte for byte,
/// and a server's corrupt or explosive stream is an error, not a crash or a gigabyte.
struct DeflateHandlerTests {
    /// Each write of `writes` through a deflating channel, then the compressed bytes into an inflating one.
    func roundTrip(_ writes: [[UInt8]]) throws -> (plain: [UInt8], compressed: Int) {
        let sender = EmbeddedChannel(handler: DeflateHandler())
        let receiver = EmbeddedChannel(handler: DeflateHandler())
        var plain: [UInt8] = []
        var compressed = 0
        for bytes in writes {
            try sender.writeAndFlush(ByteBuffer(bytes: bytes)).wait()
            while let wire = try sender.readOutbound(as: ByteBuffer.self) {
                compressed += wire.readableBytes
                try receiver.writeInbound(wire)
            }
            while var piece = try receiver.readInbound(as: ByteBuffer.self) { plain += piece.readBytes(length: piece.readableBytes) ?? [] }
        }
        return (plain, compressed)
    }

    @Test func eachWriteArrivesWholeAndSmaller() throws {
        let commands = (1...50).map { Array("a\($0) UID FETCH \($0):* (FLAGS BODY.PEEK[HEADER])\r\n".utf8) }
        let result = try roundTrip(commands)
        #expect(result.plain == commands.flatMap { $0 })
        #expect(result.compressed < result.plain.count)
    }

    @Test func largeAndIncompressibleDataSurvives() throws {
        var generator = SystemRandomNumberGenerator()
        let random = (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let text = Array(String(repeating: "Subject: Quarterly figures\r\n", count: 20_000).utf8)
        let result = try roundTrip([random, text])
        #expect(result.plain == random + text)
    }

    @Test func aCorruptStreamIsAnError() throws {
        let receiver = EmbeddedChannel(handler: DeflateHandler())
        #expect(throws: DeflateFailure.corrupt) { try receiver.writeInbound(ByteBuffer(bytes: [0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x13, 0x37])) }
    }

    @Test func aDecompressionBombIsRefused() throws {
        let sender = EmbeddedChannel(handler: DeflateHandler())
        try sender.writeAndFlush(ByteBuffer(repeating: 0, count: 40 * 1024 * 1024)).wait()
        var wire = ByteBuffer()
        while var piece = try sender.readOutbound(as: ByteBuffer.self) { wire.writeBuffer(&piece) }
        #expect(wire.readableBytes < 100_000)
        let receiver = EmbeddedChannel(handler: DeflateHandler())
        #expect(throws: DeflateFailure.expansion) { try receiver.writeInbound(wire) }
    }
}
