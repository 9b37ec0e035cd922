import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// A one-connection-at-a-time server on 127.0.0.1 for hostile and broken server tests (IMAP and
/// SMTP alike): it writes a greeting, then answers each line it receives with what `script`
/// returns. TLS (the test CA's certificate under `TERN_MAILSERVERS_DIR`) from the start, or
/// switched on mid-stream without a word, as an on-path attacker who forged the STARTTLS answer
/// would let it happen.
public final class ScriptedLineServer: Sendable {
    public enum Answer: Sendable {
        /// Bytes to write ("" writes nothing).
        case write(String)
        /// Starts TLS at once, writing nothing: the bytes after this line belong to TLS.
        case startTLS
        case close
    }

    let channel: any Channel
    public let port: Int

    /// `script` gets each line without its line ending, and whether it came over TLS.
    public static func start(tls: Bool, greeting: String, script: @escaping @Sendable (_ line: String, _ overTLS: Bool) -> Answer)
        async throws -> ScriptedLineServer
    {
        let directory = ProcessInfo.processInfo.environment["TERN_MAILSERVERS_DIR"] ?? ""
        let context = try NIOSSLContext(
            configuration: .makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(directory + "/tls/server.crt").map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: directory + "/tls/server.key", format: .pem))))
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    if tls { try child.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context)) }
                    try child.pipeline.syncOperations.addHandler(
                        LineHandler(greeting: greeting, script: script, tlsContext: context, overTLS: tls))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return ScriptedLineServer(channel: channel)
    }

    private init(channel: any Channel) {
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
    }

    public func stop() { channel.close(promise: nil) }
}

private final class LineHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let greeting: String
    let script: @Sendable (String, Bool) -> ScriptedLineServer.Answer
    let tlsContext: NIOSSLContext
    var overTLS: Bool
    var pending: [UInt8] = []

    init(greeting: String, script: @escaping @Sendable (String, Bool) -> ScriptedLineServer.Answer, tlsContext: NIOSSLContext, overTLS: Bool) {
        self.greeting = greeting
        self.script = script
        self.tlsContext = tlsContext
        self.overTLS = overTLS
    }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: greeting)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        pending += buffer.readBytes(length: buffer.readableBytes) ?? []
        while let newline = pending.firstIndex(of: 10) {
            let line = String(decoding: pending[..<newline], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            pending.removeFirst(newline + 1)
            switch script(line, overTLS) {
            case .write(let answer):
                if !answer.isEmpty { context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: answer)), promise: nil) }
            case .close:
                context.close(promise: nil)
                return
            case .startTLS:
                overTLS = true
                try? context.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tlsContext), position: .first)
                let rest = pending
                pending = []
                if !rest.isEmpty { context.pipeline.syncOperations.fireChannelRead(NIOAny(ByteBuffer(bytes: rest))) }
                return
            }
        }
    }
}
