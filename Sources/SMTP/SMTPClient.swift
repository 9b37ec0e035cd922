import Foundation
import Logging
import MailTransport
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// Who the message is from and to, as the server sees it (RFC 5321 envelope): Bcc recipients are
/// here and nowhere in the message.
public struct SMTPEnvelope: Sendable, Hashable {
    public var sender: String
    public var recipients: [String]

    public init(sender: String, recipients: [String]) {
        self.sender = sender
        self.recipients = recipients
    }
}

/// A message the server accepted, possibly for only some recipients (`isPartial`).
public struct SMTPDelivery: Sendable, Hashable {
    public var accepted: [String]
    public var refused: [RecipientRefusal]
    /// The answer to the end of DATA (often carries the server's queue id).
    public var reply: SMTPReply

    public var isPartial: Bool { !refused.isEmpty }
}

/// What `tern smtp-check` reports.
public struct SMTPCheckResult: Sendable, Hashable {
    public var greeting: SMTPReply
    public var extensions: [String]
    public var authenticatedWith: String
}

/// SMTP submission on SwiftNIO (RFC 5321, 3207 STARTTLS, 4954 AUTH, 2920 PIPELINING, 1870 SIZE,
/// 6152 8BITMIME, 6531 SMTPUTF8, 2034 ENHANCEDSTATUSCODES). One connection per submission.
public enum SMTPClient {
    /// RFC 5321 section 4.5.3.2 allows minutes per step; a server silent this long is stuck,
    /// unless the server says otherwise (`MailServer.commandTimeout`).
    public static let defaultCommandTimeout: Duration = .seconds(120)
    /// The EHLO argument. An address literal, not the machine's name: a privacy-first client does
    /// not tell every server (and every Received header) what its host is called.
    public static let heloName = "[127.0.0.1]"

    /// Sends `message` (CRLF-normalized and dot-stuffed here) to the envelope's recipients.
    /// `beforeContent` runs once the server is ready for the content, before any of it is sent.
    public static func send(
        _ message: [UInt8], envelope: SMTPEnvelope, server: MailServer, credential: MailCredential,
        logger: Logger = Logger(label: "tern.smtp"),
        beforeContent: @Sendable () async throws -> Void = {}
    ) async throws -> SMTPDelivery {
        try validate(envelope)
        return try await withConnection(to: server, logger: logger) { connection in
            try await connection.authenticate(credential)
            let delivery = try await connection.transaction(message: message, envelope: envelope, beforeContent: beforeContent)
            await connection.quit()
            return delivery
        }
    }

    /// One connection, TLS and login for several messages (the send queue's pass): each `send`
    /// is a transaction of its own, and a failed one is reset before the next.
    /// A transport failure before the server greeted Tern over finished TLS is thrown as
    /// `.unreachable` (issue 34: the queue waits for the server without counting an attempt).
    public static func withSession<Result: Sendable>(
        server: MailServer, credential: MailCredential, logger: Logger = Logger(label: "tern.smtp"),
        _ body: (SMTPSession) async throws -> Result
    ) async throws -> Result {
        try await withConnection(to: server, logger: logger, tellingUnreachable: true) { connection in
            try await connection.authenticate(credential)
            let result = try await body(SMTPSession(connection: connection))
            await connection.quit()
            return result
        }
    }

    /// Connects, upgrades to TLS, logs in, and reports the server's extensions; sends nothing.
    public static func check(server: MailServer, credential: MailCredential, logger: Logger = Logger(label: "tern.smtp")) async throws
        -> SMTPCheckResult
    {
        try await withConnection(to: server, logger: logger) { connection in
            let mechanism = try await connection.authenticate(credential)
            await connection.quit()
            return SMTPCheckResult(greeting: connection.greeting!, extensions: connection.extensions.keys.sorted(), authenticatedWith: mechanism)
        }
    }

    /// Addresses go on command lines: a CR, LF or angle bracket in one could inject commands.
    static func validate(_ envelope: SMTPEnvelope) throws {
        guard !envelope.recipients.isEmpty else { throw SMTPError.invalidArgument("no recipients") }
        for address in [envelope.sender] + envelope.recipients {
            guard !address.isEmpty || address == envelope.sender,
                !address.unicodeScalars.contains(where: { $0.value < 0x21 || $0 == "<" || $0 == ">" || $0.value == 0x7F })
            else {
                throw SMTPError.invalidArgument("address '\(address.debugDescription)' has a space, control character or angle bracket")
            }
        }
    }

    static func withConnection<Result: Sendable>(
        to server: MailServer, logger: Logger, tellingUnreachable: Bool = false,
        _ body: (SMTPConnection) async throws -> Result
    ) async throws -> Result {
        func unreachable(_ error: SMTPError) -> SMTPError {
            guard tellingUnreachable else { return error }
            return switch error {
            case .network, .timeout, .tlsRefused, .connectionClosed: .unreachable(error)
            default: error
            }
        }
        let tlsContext: NIOSSLContext
        do throws(TransportFailure) { tlsContext = try TLSPolicy.clientContext(for: server) } catch { throw SMTPError(error) }
        let opened: MailConnection<SMTPReply>
        do throws(TransportFailure) {
            opened = try await MailConnection.open(to: server, tlsContext: tlsContext) { SMTPReplyFramer() }
        } catch {
            throw unreachable(SMTPError(error))
        }
        let channel = opened.channel
        do {
            return try await channel.executeThenClose { inbound, outbound in
                let connection = SMTPConnection(
                    inbound: inbound.makeAsyncIterator(), outbound: outbound, channel: channel.channel,
                    watch: opened.watch, tlsContext: opened.tlsContext, sni: opened.serverNameIndication,
                    server: server, logger: logger)
                do {
                    try await connection.start()
                } catch let error as SMTPError where connection.greeting == nil || connection.startTLSFailed {
                    throw unreachable(error)
                } catch  where TransportFailure.isTransport(error) && (connection.greeting == nil || connection.startTLSFailed) {
                    throw unreachable(classify(error, server: server))
                }
                return try await body(connection)
            }
        } catch let error where TransportFailure.isTransport(error) {
            throw classify(error, server: server)
        }
        // Anything else is the body's own (the queue's store, a hold), unchanged.
    }

    static func classify(_ error: any Error, server: MailServer) -> SMTPError {
        if let error = error as? SMTPError { return error }
        return SMTPError(TransportFailure.classify(error, server: server))
    }
}

struct SMTPReplyFramer: StreamFramer {
    var parser = SMTPReplyParser()

    mutating func append(_ bytes: [UInt8]) { parser.append(bytes) }
    mutating func nextMessage() throws -> SMTPReply? { try parser.next() }
    var bufferedByteCount: Int { parser.hasBufferedBytes ? 1 : 0 }
}

/// A logged-in submission connection (`SMTPClient.withSession`).
public final class SMTPSession {
    let connection: SMTPConnection
    /// A transaction failed part way: RSET before the next (RFC 5321 section 4.1.1.5).
    private var needsReset = false

    init(connection: SMTPConnection) { self.connection = connection }

    public func send(_ message: [UInt8], envelope: SMTPEnvelope, beforeContent: @Sendable () async throws -> Void = {}) async throws -> SMTPDelivery {
        try SMTPClient.validate(envelope)
        if needsReset {
            _ = try await connection.command("RSET")
            needsReset = false
        }
        do {
            return try await connection.transaction(message: message, envelope: envelope, beforeContent: beforeContent)
        } catch {
            needsReset = true
            throw error
        }
    }
}
