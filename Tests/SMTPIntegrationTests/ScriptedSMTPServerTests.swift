import Foundation
import MailTransport
import ScriptedServers
import Testing

@testable import SMTP

/// Hostile and broken submission servers Postfix cannot imitate (issue 21): answers forged before
/// STARTTLS, a server that goes silent or drops the connection once the content went out, and an
/// XOAUTH2 exchange whose secrets must stay out of the log. The client under test is the real one.
@Suite(.enabled(if: MailServers.available, "needs the test CA (make test)"), .timeLimit(.minutes(1)))
struct ScriptedSMTPServerTests {
    static let envelope = SMTPEnvelope(sender: "alice@tern.test", recipients: ["dave@tern.test"])
    static let message = Array("Subject: hi\r\n\r\nHello.\r\n".utf8)

    /// A server that takes a message up to its content and answers the content with `final`.
    static func submission(contentReply: String) -> @Sendable (String) -> String {
        { command in
            switch command.uppercased() {
            case let c where c.hasPrefix("EHLO"): "250-hi\r\n250-PIPELINING\r\n250 AUTH PLAIN\r\n"
            case let c where c.hasPrefix("AUTH"): "235 2.7.0 ok\r\n"
            case let c where c.hasPrefix("MAIL"), let c where c.hasPrefix("RCPT"): "250 ok\r\n"
            case "DATA": "354 go on\r\n"
            case ".": contentReply
            case "QUIT": "221 bye\r\n"
            default: "500 what\r\n"
            }
        }
    }

    /// Issue 35: a server the person chose to reach without encryption is spoken to over plain TCP
    /// throughout, even when it offers STARTTLS: no TLS, the login and the message in the clear.
    @Test func aPlaintextServerIsUsedWithoutTLS() async throws {
        let server = try await ScriptedSMTPServer.start(tls: false) { command in
            command.uppercased().hasPrefix("EHLO")
                ? "250-hi\r\n250-STARTTLS\r\n250 AUTH PLAIN\r\n" : Self.submission(contentReply: "250 queued\r\n")(command)
        }
        defer { server.stop() }
        var smtpServer = server.smtpServer
        smtpServer.security = .plaintext
        _ = try await SMTPClient.send(Self.message, envelope: Self.envelope, server: smtpServer, credential: MailServers.credential("dave"))
        let commands = server.commands
        #expect(commands.contains { $0.uppercased().hasPrefix("AUTH PLAIN") } && commands.contains("DATA"))
        #expect(!commands.contains { $0.uppercased() == "STARTTLS" } && server.commandsOverTLS.isEmpty)
    }

    @Test func repliesQueuedBeforeSTARTTLSAreRefusedAndNothingIsSentOverTLS() async throws {
        // The EHLO reply's packet carries a forged STARTTLS answer, the EHLO reply after TLS and a login.
        let server = try await ScriptedSMTPServer.start(tls: false, silentSTARTTLS: true) { command in
            command.uppercased().hasPrefix("EHLO")
                ? "250-hi\r\n250-STARTTLS\r\n250 AUTH PLAIN\r\n" + "220 2.0.0 go ahead\r\n" + "250-forged\r\n250 AUTH PLAIN\r\n"
                    + "235 2.7.0 forged: authenticated\r\n"
                : "500 what\r\n"
        }
        defer { server.stop() }
        var smtpServer = server.smtpServer
        smtpServer.security = .startTLS
        await #expect {
            try await SMTPClient.check(server: smtpServer, credential: MailServers.credential("dave"))
        } throws: { error in
            guard case SMTPError.tlsRefused(let text) = error else { return false }
            return text.contains("injecting")
        }
        #expect(server.commandsOverTLS.isEmpty)
    }

    /// issue 34: the send queue counts no attempt when no mail server was reached. A closed port, a
    /// server that never greets, and a failed TLS handshake are `.unreachable`, worded as themselves;
    /// a server that greets and then refuses or drops is not.
    @Test func aSessionTellsAnUnreachableServerFromOneThatAnswered() async throws {
        func sessionError(_ server: MailServer) async -> SMTPError? {
            do {
                try await SMTPClient.withSession(server: server, credential: MailServers.credential("dave")) { _ in }
                return nil
            } catch { return error as? SMTPError }
        }
        var closedPort = MailServer(host: "127.0.0.1", port: 1, security: .implicitTLS, caFile: MailServers.ca, connectTimeout: .seconds(5))
        closedPort.commandTimeout = .seconds(5)
        guard case .unreachable(.network(let refused))? = await sessionError(closedPort) else {
            Issue.record("closed port")
            return
        }
        #expect(refused.contains("refused"))
        // The TLS handshake: a plain-text server where TLS is expected.
        let plain = try await ScriptedSMTPServer.start(tls: false, greeting: "220 plain\r\n", script: Self.submission(contentReply: "250 ok\r\n"))
        defer { plain.stop() }
        let handshake = await sessionError(plain.smtpServer)
        guard case .unreachable(.tlsRefused)? = handshake else {
            Issue.record("handshake: \(String(describing: handshake))")
            return
        }
        #expect(handshake?.isTransient == true)
        // Reached: a 554 greeting is the server's refusal, a drop after EHLO is a delivery attempt.
        let refusing = try await ScriptedSMTPServer.start(tls: true, greeting: "554 5.3.2 no service\r\n", script: Self.submission(contentReply: ""))
        defer { refusing.stop() }
        guard case .permanent? = await sessionError(refusing.smtpServer) else {
            Issue.record("554 greeting")
            return
        }
        let dropping = try await ScriptedSMTPServer.start(tls: true) { command in
            command.uppercased().hasPrefix("EHLO") ? ScriptedSMTPServer.close : "500 what\r\n"
        }
        defer { dropping.stop() }
        let dropped = await sessionError(dropping.smtpServer)
        if case .unreachable? = dropped { Issue.record("a drop after the greeting is not unreachable") }
        #expect(dropped?.isTransient == true)
    }

    @Test func anUntrustedCertificateIsUnreachableForTheQueueButWordedAsTheRefusal() async throws {
        let server = try await ScriptedSMTPServer.start(tls: true, script: Self.submission(contentReply: "250 ok\r\n"))
        defer { server.stop() }
        var untrusted = server.smtpServer
        untrusted.caFile = nil
        do {
            try await SMTPClient.withSession(server: untrusted, credential: MailServers.credential("dave")) { _ in }
            Issue.record("no error")
        } catch let error as SMTPError {
            guard case .unreachable(.tlsRefused) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(error.description.contains("not trusted"))
        }
        // `check` (tern smtp-check) reports it as it is.
        await #expect { try await SMTPClient.check(server: untrusted, credential: MailServers.credential("dave")) } throws: { error in
            guard case SMTPError.tlsRefused = error else { return false }
            return true
        }
    }

    @Test func noReplyAfterTheContentIsAnUncertainDeliveryNotARetry() async throws {
        let server = try await ScriptedSMTPServer.start(tls: true, script: Self.submission(contentReply: ""))
        defer { server.stop() }
        var smtpServer = server.smtpServer
        smtpServer.dataTerminationTimeout = .seconds(2)
        await #expect {
            try await SMTPClient.send(Self.message, envelope: Self.envelope, server: smtpServer, credential: MailServers.credential("dave"))
        } throws: { error in
            guard let error = error as? SMTPError, case .deliveryUncertain(let text) = error else { return false }
            return text.contains("sent nothing") && !error.isTransient
        }
    }

    @Test func aDropAfterTheContentIsAnUncertainDelivery() async throws {
        let server = try await ScriptedSMTPServer.start(tls: true, script: Self.submission(contentReply: ScriptedSMTPServer.close))
        defer { server.stop() }
        await #expect {
            try await SMTPClient.send(Self.message, envelope: Self.envelope, server: server.smtpServer, credential: MailServers.credential("dave"))
        } throws: { error in
            guard case .deliveryUncertain? = error as? SMTPError else { return false }
            return true
        }
    }

    @Test func aReplyRefusingTheContentKeepsItsClass() async throws {
        let refused = try await ScriptedSMTPServer.start(tls: true, script: Self.submission(contentReply: "554 5.7.1 spam\r\n"))
        defer { refused.stop() }
        await #expect {
            try await SMTPClient.send(Self.message, envelope: Self.envelope, server: refused.smtpServer, credential: MailServers.credential("dave"))
        } throws: { error in
            guard case .permanent(let reply)? = error as? SMTPError else { return false }
            return reply.code == 554
        }
    }

    /// RFC 5321 section 4.5.3.2.6: the reply to the end of the content may take 10 minutes.
    @Test func theWaitForTheContentsReplyIsTenMinutes() {
        #expect(MailServer(host: "mail.example.org", port: 587, security: .startTLS).dataTerminationTimeout == .seconds(600))
    }

    @Test func anXOAUTH2ExchangeLeavesNoSecretInTheTraceLog() async throws {
        let token = "ya29.a0-secret-access-token"
        let initialResponse = Data("user=dave@tern.test\u{1}auth=Bearer \(token)\u{1}\u{1}".utf8).base64EncodedString()
        // A challenge that echoes what it got, as a debugging proxy might.
        let challenge = Data("{\"status\":\"401\",\"echo\":\"\(token)\"}".utf8).base64EncodedString()
        let server = try await ScriptedSMTPServer.start(tls: true) { command in
            switch command.uppercased() {
            case let c where c.hasPrefix("EHLO"): "250-hi\r\n250 AUTH XOAUTH2\r\n"
            case let c where c.hasPrefix("AUTH XOAUTH2"): "334 \(challenge)\r\n"
            case "": "535 5.7.8 invalid credentials\r\n"
            default: "500 what\r\n"
            }
        }
        defer { server.stop() }
        let log = CapturedLog()
        await #expect(throws: SMTPError.self) {
            try await SMTPClient.check(
                server: server.smtpServer, credential: .oauth2(username: "dave@tern.test", accessToken: token),
                logger: log.logger)
        }
        let text = log.text
        #expect(text.contains("C: EHLO"), "the trace is on")
        #expect(!text.contains(token) && !text.contains(initialResponse) && !text.contains(challenge))
    }
}

extension ScriptedSMTPServer {
    var smtpServer: MailServer {
        MailServer(host: "127.0.0.1", port: port, security: .implicitTLS, caFile: MailServers.ca, connectTimeout: .seconds(5))
    }
}
