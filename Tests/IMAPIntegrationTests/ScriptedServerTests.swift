import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Testing
import TernCore
@testable import IMAP

/// Hostile and broken servers Dovecot cannot imitate: a FETCH response that does not parse, and
/// plaintext injected after STARTTLS. A scripted server on 127.0.0.1 (TLS with the test CA's
/// certificate) answers each command with canned bytes; the client under test is the real one.
@Suite(.enabled(if: TestServers.available, "needs the test CA (make test)"), .timeLimit(.minutes(1)))
struct ScriptedServerTests {
    @Test func anUnparseableMessageIsRefetchedAloneThenQuarantined() async throws {
        let broken = "* 2 FETCH (UID 12 ENVELOPE (\"Sat, 21 Nov 2026 10:00:00 +0000\" \"Broken\" ((NIL NIL \"a\" \"tern.test\")) BROKEN]]\r\n"
        let good: @Sendable (Int, Int) -> String = { sequence, uid in
            "* \(sequence) FETCH (UID \(uid) FLAGS (\\Seen) ENVELOPE (NIL \"Message \(uid)\" NIL NIL NIL NIL NIL NIL NIL \"<m\(uid)@tern.test>\"))\r\n"
        }
        let server = try await ScriptedIMAPServer.start(tls: true) { tag, command in
            switch command.uppercased() {
            case let c where c.hasPrefix("AUTHENTICATE"): "\(tag) OK [CAPABILITY IMAP4rev1 LITERAL+ UIDPLUS] logged in\r\n"
            case let c where c.hasPrefix("SELECT"): "* 3 EXISTS\r\n* OK [UIDVALIDITY 7] ok\r\n\(tag) OK [READ-WRITE] selected\r\n"
            case let c where c.hasPrefix("UID FETCH 11:13"): good(1, 11) + broken + good(3, 13) + "\(tag) OK fetched\r\n"
            case let c where c.hasPrefix("UID FETCH 12 "): broken + "\(tag) OK fetched\r\n"
            case let c where c.hasPrefix("NOOP"): "\(tag) OK still here\r\n"
            case let c where c.hasPrefix("LOGOUT"): "* BYE bye\r\n\(tag) OK bye\r\n"
            default: "\(tag) BAD unexpected\r\n"
            }
        }
        defer { server.stop() }
        let (delivered, quarantined) = try await IMAPClient.withSession(to: server.imapServer) { session in
            try await session.login(username: "bob@tern.test", password: "x")
            try await session.select("INBOX")
            var delivered: [UInt32] = []
            let quarantined = try await session.uidFetch(UIDSet([11...13]), items: [.flags, .envelope]) { delivered.append($0.uid!) }
            try await session.noop()  // the connection is still in step
            return (delivered, quarantined)
        }
        #expect(delivered == [11, 13])
        #expect(quarantined.map { $0.uid } == [12])
        #expect(quarantined.first?.sequence == 2)
        let bytes = String(decoding: quarantined.first?.bytes ?? [], as: UTF8.self)
        #expect(bytes.contains("Broken"))
        #expect(server.commands.contains { $0.hasPrefix("UID FETCH 12 ") }, "refetched alone")
    }

    @Test func plaintextInjectedAfterSTARTTLSIsRefused() async throws {
        let server = try await ScriptedIMAPServer.start(tls: false, greeting: "* OK [CAPABILITY IMAP4rev1 STARTTLS LOGINDISABLED] hi\r\n") { tag, command in
            command.uppercased() == "STARTTLS" ? "\(tag) OK begin TLS\r\n* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN] injected\r\n" : "\(tag) BAD no\r\n"
        }
        defer { server.stop() }
        var imapServer = server.imapServer
        imapServer.security = .startTLS
        await #expect {
            try await IMAPClient.withSession(to: imapServer) { _ in }
        } throws: { error in
            guard case IMAPError.tlsRefused(let text) = error else { return false }
            return text.contains("injection")
        }
    }

    @Test func aSilentServerIsAStuckConnection() async throws {
        let server = try await ScriptedIMAPServer.start(tls: true) { tag, command in
            command.uppercased().hasPrefix("AUTHENTICATE") ? "\(tag) OK [CAPABILITY IMAP4rev1] in\r\n" : ""
        }
        defer { server.stop() }
        var imapServer = server.imapServer
        imapServer.commandTimeout = .seconds(2)
        await #expect {
            try await IMAPClient.withSession(to: imapServer) { session in
                try await session.login(username: "bob@tern.test", password: "x")
                try await session.noop()  // never answered
            }
        } throws: { error in
            guard case IMAPError.timeout(let text) = error else { return false }
            return text.contains("stuck")
        }
    }
}

/// A one-connection-at-a-time IMAP server that answers each command line with what `script` returns.
final class ScriptedIMAPServer: Sendable {
    let channel: any Channel
    let port: Int
    private let received: Locked<[String]>

    var commands: [String] { received.withLock { $0 } }

    var imapServer: IMAPServer {
        IMAPServer(host: "127.0.0.1", port: port, security: .implicitTLS, caFile: TestServers.ca, connectTimeout: .seconds(5))
    }

    static func start(tls: Bool, greeting: String = "* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN SASL-IR LITERAL+] ready\r\n",
                      script: @escaping @Sendable (_ tag: String, _ command: String) -> String) async throws -> ScriptedIMAPServer {
        let directory = TestServers.directory ?? ""
        let context = try NIOSSLContext(configuration: .makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(directory + "/tls/server.crt").map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: directory + "/tls/server.key", format: .pem))))
        let log = Locked<[String]>([])
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    if tls { try child.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context)) }
                    try child.pipeline.syncOperations.addHandler(ScriptHandler(greeting: greeting, script: script, log: log))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return ScriptedIMAPServer(channel: channel, log: log)
    }

    private init(channel: any Channel, log: Locked<[String]>) {
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
        self.received = log
    }

    func stop() { channel.close(promise: nil) }
}

private final class ScriptHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let greeting: String
    let script: @Sendable (String, String) -> String
    let log: Locked<[String]>
    var pending: [UInt8] = []

    init(greeting: String, script: @escaping @Sendable (String, String) -> String, log: Locked<[String]>) {
        self.greeting = greeting
        self.script = script
        self.log = log
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
            guard let space = line.firstIndex(of: " ") else { continue }
            let tag = String(line[..<space])
            let command = String(line[line.index(after: space)...])
            log.withLock { $0.append(command) }
            let answer = script(tag, command)
            if !answer.isEmpty { context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: answer)), promise: nil) }
        }
    }
}
