import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing

@testable import MailTransport

/// The framing and watchdog IMAP and SMTP share: whole messages from bytes split anywhere, ticks
/// only while the session waits, and no plaintext read as if it came over TLS (STARTTLS response
/// injection, issue 21).
final class FramingHandlerTests {
    /// Lines ending in LF; the line `bad` cannot be framed.
    struct LineFramer: StreamFramer {
        var buffer: [UInt8] = []

        mutating func append(_ bytes: [UInt8]) { buffer += bytes }

        mutating func nextMessage() throws -> String? {
            guard let end = buffer.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            let line = String(decoding: buffer[..<end], as: UTF8.self)
            buffer.removeSubrange(...end)
            if line == "bad" { throw TransportFailure.network("unframeable") }
            return line
        }

        var bufferedByteCount: Int { buffer.count }
    }

    let watch = NIOLockedValueBox(ConnectionWatch())
    let handler: FramingHandler<LineFramer>
    let channel: EmbeddedChannel

    init() {
        handler = FramingHandler(framer: LineFramer(), tickInterval: .seconds(1), watch: watch)
        channel = EmbeddedChannel(handler: handler)
    }

    /// Closing removes the handler, which cancels its ticker: the loop is left with nothing scheduled.
    deinit {
        _ = try? channel.finish()
    }

    func write(_ text: String) throws {
        try channel.writeInbound(ByteBuffer(string: text))
    }

    /// The messages handed to the session so far; a tick is shown as `tick`.
    func read() throws -> [String] {
        var events: [String] = []
        while let event = try channel.readInbound(as: TransportEvent<String>.self) {
            switch event {
            case .message(let line): events.append(line)
            case .tick: events.append("tick")
            }
        }
        return events
    }

    @Test func bytesSplitAnywhereBecomeWholeMessages() throws {
        try write("he")
        try write("llo\nwor")
        #expect(try read() == ["hello"])
        try write("ld\nand\nmore")
        #expect(try read() == ["world", "and"])
    }

    @Test func aStreamThatCannotBeFramedEndsTheConnection() throws {
        #expect(throws: TransportFailure.network("unframeable")) { try write("bad\n") }
        #expect(!channel.isActive)
    }

    @Test func ticksComeOnlyWhileTheSessionWaits() throws {
        channel.embeddedEventLoop.advanceTime(by: .seconds(3))
        #expect(try read().isEmpty)
        watch.beginWaiting()
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(try read() == ["tick"])
        watch.endWaiting()
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(try read().isEmpty)
    }

    /// The STARTTLS answer must be the last plaintext: bytes behind it in the same read were not
    /// sent by the server over TLS, and are not read as if they were.
    @Test func plaintextInTheSameReadAsTheSTARTTLSAnswerIsRefused() throws {
        watch.withLockedValue { $0.startTLSPending = true }
        #expect(throws: TransportFailure.self) { try write("OK begin TLS\n* injected\n") }
        #expect(try read().isEmpty)
        #expect(!channel.isActive)
    }

    @Test func plaintextAfterTheSTARTTLSAnswerIsRefused() throws {
        watch.withLockedValue { $0.startTLSPending = true }
        try write("OK begin TLS\n")
        #expect(try read() == ["OK begin TLS"])
        #expect(watch.withLockedValue { $0.plaintextClosed })
        #expect(throws: TransportFailure.self) { try write("* injected\n") }
        #expect(!channel.isActive)
    }

    @Test func tlsStartsOnlyWhenTheSessionReadEverythingReceived() throws {
        try write("one\ntwo\n")
        #expect(throws: TransportFailure.self) { try handler.requireDrained(messagesRead: 1) }
        try handler.requireDrained(messagesRead: 2)
        try write("thr")
        do {
            try handler.requireDrained(messagesRead: 2)
            Issue.record("unframed bytes were let through")
        } catch {
            #expect(error.description.contains("unframed bytes"), "\(error)")
        }
    }
}
