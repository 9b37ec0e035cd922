import Foundation
import Logging
import MailTransport
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// One SMTP connection, used by the task that opened it.
final class SMTPConnection {
    var inbound: NIOAsyncChannelInboundStream<TransportEvent<SMTPReply>>.AsyncIterator
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    let channel: any Channel
    let watch: NIOLockedValueBox<ConnectionWatch>
    let tlsContext: NIOSSLContext
    let sni: String?
    let server: MailServer
    let logger: Logger
    private(set) var greeting: SMTPReply?
    /// The STARTTLS handshake itself failed (the server was never reached over TLS).
    private(set) var startTLSFailed = false
    /// EHLO keywords (uppercased) with their parameters.
    private(set) var extensions: [String: [String]] = [:]
    /// Replies taken from the connection: at STARTTLS every one delivered must have been read.
    private var repliesRead = 0

    init(
        inbound: NIOAsyncChannelInboundStream<TransportEvent<SMTPReply>>.AsyncIterator, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        channel: any Channel, watch: NIOLockedValueBox<ConnectionWatch>, tlsContext: NIOSSLContext, sni: String?, server: MailServer,
        logger: Logger
    ) {
        self.inbound = inbound
        self.outbound = outbound
        self.channel = channel
        self.watch = watch
        self.tlsContext = tlsContext
        self.sni = sni
        self.server = server
        self.logger = logger
    }

    func supports(_ keyword: String) -> Bool { extensions[keyword.uppercased()] != nil }

    /// Greeting, EHLO, STARTTLS when asked for (then EHLO again: RFC 3207 section 4.2).
    func start() async throws {
        let greeting = try await readReply()
        guard greeting.code == 220 else { throw Self.failure(greeting) }
        self.greeting = greeting
        try await ehlo()
        guard server.security == .startTLS else { return }
        guard supports("STARTTLS") else {
            throw SMTPError.tlsRefused("\(server.host):\(server.port) does not offer STARTTLS; Tern never logs in or sends without TLS")
        }
        watch.withLockedValue { $0.startTLSPending = true }
        let reply = try await command("STARTTLS")
        guard reply.code == 220 else { throw Self.failure(reply) }
        do {
            try await STARTTLS.addTLS(
                to: channel, framer: SMTPReplyFramer.self, messagesRead: repliesRead, context: tlsContext,
                serverHostname: sni, server: server, watch: watch)
        } catch {
            startTLSFailed = true
            throw SMTPClient.classify(error, server: server)
        }
        extensions = [:]
        try await ehlo()
    }

    private func ehlo() async throws {
        let reply = try await command("EHLO \(SMTPClient.heloName)")
        guard reply.code == 250 else { throw Self.failure(reply) }
        extensions = [:]
        for line in reply.lines.dropFirst() {
            let words = line.split(separator: " ").map(String.init)
            guard let keyword = words.first, !server.ignoredCapabilities.contains(keyword.uppercased()) else { continue }
            extensions[keyword.uppercased()] = Array(words.dropFirst())
        }
    }

    /// AUTH with the strongest mechanism both sides have (RFC 4954). Returns the mechanism used.
    @discardableResult
    func authenticate(_ credential: MailCredential) async throws -> String {
        let offered = Set((extensions["AUTH"] ?? []).map { $0.uppercased() })
        let reply: SMTPReply
        let mechanism: String
        switch credential {
        case .oauth2(let username, let accessToken):
            guard offered.contains("XOAUTH2") else { throw SMTPError.unsupported("AUTH XOAUTH2") }
            mechanism = "XOAUTH2"
            let token = Data("user=\(username)\u{1}auth=Bearer \(accessToken)\u{1}\u{1}".utf8).base64EncodedString()
            var first = try await command("AUTH XOAUTH2 \(token)", redacted: "AUTH XOAUTH2 ***")
            if first.code == 334 {
                // The server's error details; an empty line ends the exchange (then 535). Not logged,
                // like every step of an authentication (issue 21: the token reached the trace log).
                logger.debug("XOAUTH2 answered with a challenge; ending the exchange")
                first = try await command("")
            }
            reply = first
        case .password(let username, let password):
            if offered.contains("PLAIN") {
                mechanism = "PLAIN"
                let token = Data("\u{0}\(username)\u{0}\(password)".utf8).base64EncodedString()
                reply = try await command("AUTH PLAIN \(token)", redacted: "AUTH PLAIN ***")
            } else if offered.contains("LOGIN") {
                mechanism = "LOGIN"
                var step = try await command("AUTH LOGIN")
                if step.code == 334 { step = try await command(Data(username.utf8).base64EncodedString(), redacted: "***") }
                if step.code == 334 { step = try await command(Data(password.utf8).base64EncodedString(), redacted: "***") }
                reply = step
            } else {
                throw SMTPError.unsupported("AUTH PLAIN or LOGIN (offered: \(offered.sorted().joined(separator: " ")))")
            }
        }
        guard reply.code == 235 else {
            if reply.isTransientFailure { throw SMTPError.transient(reply) }
            throw SMTPError.authenticationFailed(reply)
        }
        return mechanism
    }

    /// MAIL, RCPT for each recipient, DATA: pipelined in one round trip when the server offers
    /// PIPELINING (RFC 2920), else step by step.
    func transaction(message: [UInt8], envelope: SMTPEnvelope, beforeContent: @Sendable () async throws -> Void = {}) async throws -> SMTPDelivery {
        let data = DotStuffing.encode(message)
        let needsUTF8 = ([envelope.sender] + envelope.recipients).contains { !$0.utf8.allSatisfy { $0 < 0x80 } }
        if needsUTF8, !supports("SMTPUTF8") { throw SMTPError.unsupported("SMTPUTF8 (an address is not ASCII)") }
        if let limit = extensions["SIZE"]?.first.flatMap(Int.init), limit > 0, data.count > limit {
            throw SMTPError.permanent(
                SMTPReply(code: 552, enhancedCode: "5.3.4", lines: ["message of \(data.count) bytes is over the server's limit of \(limit)"]))
        }
        var mail = "MAIL FROM:<\(envelope.sender)>"
        if supports("SIZE") { mail += " SIZE=\(data.count)" }
        if supports("8BITMIME"), message.contains(where: { $0 >= 0x80 }) { mail += " BODY=8BITMIME" }
        if needsUTF8 { mail += " SMTPUTF8" }
        let rcpts = envelope.recipients.map { "RCPT TO:<\($0)>" }

        var mailReply: SMTPReply
        var rcptReplies: [SMTPReply] = []
        var dataReply: SMTPReply?
        if supports("PIPELINING") {
            try await send((([mail] + rcpts + ["DATA"]).joined(separator: "\r\n") + "\r\n"))
            mailReply = try await readReply()
            for _ in rcpts { rcptReplies.append(try await readReply()) }
            dataReply = try await readReply()
        } else {
            mailReply = try await command(mail)
            if mailReply.code == 250 {
                for rcpt in rcpts { rcptReplies.append(try await command(rcpt)) }
            }
        }
        guard mailReply.code == 250 else {
            if dataReply?.code == 354 { try await abortData() }
            throw Self.failure(mailReply)
        }
        var accepted: [String] = []
        var refused: [RecipientRefusal] = []
        for (recipient, reply) in zip(envelope.recipients, rcptReplies) {
            if reply.code == 250 || reply.code == 251 {
                accepted.append(recipient)
            } else {
                refused.append(RecipientRefusal(recipient: recipient, reply: reply))
            }
        }
        guard !accepted.isEmpty else {
            if dataReply?.code == 354 { try await abortData() }
            _ = try? await command("RSET")
            throw SMTPError.recipientsRefused(refused)
        }
        if dataReply == nil { dataReply = try await command("DATA") }
        guard let dataReply, dataReply.code == 354 else { throw Self.failure(dataReply!) }
        // The last moment at which a crash certainly delivers nothing: the send queue records it.
        try await beforeContent()
        let final: SMTPReply
        do {
            try await send(bytes: data + Array("\r\n.\r\n".utf8))
            final = try await readReply(timeout: server.dataTerminationTimeout)
        } catch let error as SMTPError {
            // A 421 is the server's answer (not accepted); anything else leaves the outcome unknown.
            if case .transient = error { throw error }
            throw SMTPError.deliveryUncertain(error.description)
        }
        guard final.code == 250 else { throw Self.failure(final) }
        return SMTPDelivery(accepted: accepted, refused: refused, reply: final)
    }

    /// DATA was accepted although no recipient was (pipelining): end it empty, the server drops it.
    private func abortData() async throws {
        _ = try await command(".")
    }

    func quit() async {
        _ = try? await command("QUIT")
    }

    // MARK: - Wire

    static func failure(_ reply: SMTPReply) -> SMTPError {
        reply.isTransientFailure ? .transient(reply) : .permanent(reply)
    }

    func command(_ line: String, redacted: String? = nil) async throws -> SMTPReply {
        logger.trace("C: \(redacted ?? line)")
        try await send(line + "\r\n")
        return try await readReply()
    }

    private func send(_ text: String) async throws {
        try await send(bytes: Array(text.utf8))
    }

    private func send(bytes: [UInt8]) async throws {
        do {
            try await outbound.write(ByteBuffer(bytes: bytes))
        } catch {
            // A write that fails right after STARTTLS is usually the handshake failing (an untrusted
            // certificate): that error waits in the inbound stream and says more than "closed".
            if let cause = await inboundError() { throw SMTPClient.classify(cause, server: server) }
            throw SMTPClient.classify(error, server: server)
        }
    }

    private func inboundError() async -> (any Error)? {
        do {
            while let event = try await inbound.next() {
                if case .message = event { continue }
            }
            return nil
        } catch {
            return error
        }
    }

    /// The next reply; `timeout` of silence (the command timeout unless given) is a stuck connection.
    func readReply(timeout: Duration? = nil) async throws -> SMTPReply {
        watch.beginWaiting()
        defer { watch.endWaiting() }
        while true {
            let event: TransportEvent<SMTPReply>?
            do {
                event = try await inbound.next()
            } catch {
                throw SMTPClient.classify(error, server: server)
            }
            switch event {
            case .message(let reply)?:
                repliesRead += 1
                // 334 is an authentication challenge: its text is part of the exchange, kept out of the log.
                logger.trace("S: \(reply.code == 334 ? "334 ***" : reply.description)")
                if reply.code == 421 { throw SMTPError.transient(reply) } // service closing
                return reply
            case .tick(let silence)?:
                if Task.isCancelled { throw CancellationError() }
                if silence >= timeout ?? server.commandTimeout ?? SMTPClient.defaultCommandTimeout {
                    throw SMTPError.timeout("\(server.host):\(server.port) sent nothing for \(silence.components.seconds) s; the connection is stuck")
                }
            case nil:
                throw SMTPError.connectionClosed
            }
        }
    }
}

/// DATA content (RFC 5321 section 4.5.2): every line ending becomes CRLF, a bare CR or LF included,
/// so `\n.\n` cannot end the message early at a lenient server (SMTP smuggling); a line starting
/// with "." gets a second one.
public enum DotStuffing {
    public static func encode(_ message: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(message.count + message.count / 50 + 8)
        var atLineStart = true
        var index = 0
        while index < message.count {
            let byte = message[index]
            if byte == 13 || byte == 10 {
                output.append(13)
                output.append(10)
                index += (byte == 13 && index + 1 < message.count && message[index + 1] == 10) ? 2 : 1
                atLineStart = true
                continue
            }
            if atLineStart, byte == 46 { output.append(46) }
            output.append(byte)
            atLineStart = false
            index += 1
        }
        if !atLineStart { output += [13, 10] }
        // The caller appends "\r\n.\r\n", whose CRLF ends the last line.
        if output.count >= 2 { output.removeLast(2) }
        return output
    }
}
