import Foundation
import IMAP
import MailTransport
import TernCore
import Testing

@testable import SMTP
@testable import Sync
@testable import TernRuntime

/// Issue 33: the send path's adapters sort a mail server's failure the way the queue needs it
/// (FR-SYNC-07): never retried, retried, not reached, or possibly delivered; and the Sent-copy
/// actions keep a refused sign-in apart from a dropped connection. No server is needed: the
/// credential fails before any connection, and the pools' connections fail as the test says.
@Suite(.timeLimit(.minutes(1)))
struct LiveOutgoingTests {
    static let reply550 = SMTPReply(code: 550, enhancedCode: "5.1.1", lines: ["no such user"])
    static let reply451 = SMTPReply(code: 451, enhancedCode: "4.3.0", lines: ["try later"])

    @Test func eachSMTPFailureIsSortedForTheQueue() {
        let cases: [(SMTPError, SubmissionError)] = [
            (.permanent(Self.reply550), .permanent(Self.reply550.description)),
            (.transient(Self.reply451), .transient(SMTPError.transient(Self.reply451).description)),
            (
                .recipientsRefused([RecipientRefusal(recipient: "a@tern.test", reply: Self.reply550)]),
                .permanent("<a@tern.test>: \(Self.reply550)")
            ),
            (
                .recipientsRefused([RecipientRefusal(recipient: "a@tern.test", reply: Self.reply451)]),
                .transient(SMTPError.recipientsRefused([RecipientRefusal(recipient: "a@tern.test", reply: Self.reply451)]).description)
            ),
            (.tlsRefused("untrusted"), .permanent(SMTPError.tlsRefused("untrusted").description)),
            (.unsupported("STARTTLS"), .permanent(SMTPError.unsupported("STARTTLS").description)),
            (.invalidArgument("line break"), .permanent(SMTPError.invalidArgument("line break").description)),
            (.deliveryUncertain("dropped after DATA"), .deliveryUncertain(SMTPError.deliveryUncertain("dropped after DATA").description)),
            (.unreachable(.network("refused")), .unreachable(SMTPError.network("refused").description)),
            // A login refused even after a fresh credential: the message keeps its chance.
            (.authenticationFailed(Self.reply550), .transient(SMTPError.authenticationFailed(Self.reply550).description)),
            (.network("reset"), .transient(SMTPError.network("reset").description)),
            (.timeout("no reply"), .transient(SMTPError.timeout("no reply").description)),
            (.connectionClosed, .transient(SMTPError.connectionClosed.description)),
            (.protocolViolation("garbage"), .permanent(SMTPError.protocolViolation("garbage").description))
        ]
        for (error, expected) in cases {
            #expect(LiveMessageSubmitter.classify(error) == expected, "\(error)")
        }
    }

    @Test func aCredentialThatCannotBeHadIsSortedByWhetherItWillComeBack() async {
        let submitter = LiveMessageSubmitter(environment: [:])
        let cases: [(TernError, SubmissionError)] = [
            (.secretUnavailable("the password command failed"), .permanent(TernError.secretUnavailable("the password command failed").message)),
            (.connectionLost("token endpoint unreachable"), .transient(TernError.connectionLost("token endpoint unreachable").message))
        ]
        for (failure, expected) in cases {
            await #expect(throws: expected) {
                try await submitter.withSession(account: liveTestAccount(), credentials: failingCredentials(failure)) { _ in }
            }
        }
    }

    @Test func aServerNotReachedIsUnreachable() async {
        await #expect {
            try await LiveMessageSubmitter(environment: [:]).withSession(account: liveTestAccount(), credentials: passwordCredentials()) { _ in }
        } throws: { error in
            if case .unreachable = error as? SubmissionError { true } else { false }
        }
    }

    @Test func theSentCopysActionsKeepARefusedSignInApartFromADrop() async {
        let cases: [(IMAPError, TernError)] = [
            (.authenticationFailed("[AUTHENTICATIONFAILED] bad"), .authenticationRefused("[AUTHENTICATIONFAILED] bad")),
            (.tlsRefused("untrusted"), .tlsRefused("untrusted")),
            (.network("refused"), .connectionLost(IMAPError.network("refused").description))
        ]
        for (failure, expected) in cases {
            let actions = LiveServerMailActions(connections: failingPools(failure))
            await #expect(throws: expected) { _ = try await actions.perform([], account: liveTestAccount(), credentials: passwordCredentials()) }
            await #expect(throws: expected) {
                _ = try await actions.mailbox(
                    "Sent", containsMessageId: "<a@tern.test>", account: liveTestAccount(), credentials: passwordCredentials())
            }
        }
    }

    @Test func aPasswordCommandThatFailedIsItsOwnErrorNotADrop() async {
        let failure = TernError.secretUnavailable("the password command failed")
        let actions = LiveServerMailActions(connections: credentialAskingPools())
        await #expect(throws: failure) {
            _ = try await actions.perform([], account: liveTestAccount(), credentials: failingCredentials(failure))
        }
    }
}

// MARK: - Doubles shared by the Live* adapters' tests

/// An account on a port nothing listens on (connection refused at once).
func liveTestAccount() -> Account {
    Account(
        id: "live-test", name: "work", emailAddress: "me@tern.test", provider: .imap,
        imap: ServerEndpoint(host: "127.0.0.1", port: 1, security: .implicitTLS),
        smtp: ServerEndpoint(host: "127.0.0.1", port: 1, security: .implicitTLS), username: "me", credential: .passwordEnvironment("X"))
}

func passwordCredentials() -> CredentialSupply {
    CredentialSupply(username: "me", current: { .password("secret") }, refreshed: { .password("secret") })
}

func failingCredentials(_ failure: TernError) -> CredentialSupply {
    CredentialSupply(username: "me", current: { throw failure }, refreshed: { throw failure })
}

/// Pools whose every connection attempt fails with `failure`, and no reconnect schedule.
func failingPools(_ failure: IMAPError) -> AccountConnectionPools {
    AccountConnectionPools(reconnect: BackoffSchedule([])) { _, _ in { _, _ in throw failure } }
}

/// Pools whose connections ask for the credential, as logging in does, and fail if they get it.
func credentialAskingPools() -> AccountConnectionPools {
    AccountConnectionPools(reconnect: BackoffSchedule([])) { _, credentials in
        { _, _ in
            _ = try await credentials.current()
            throw IMAPError.authenticationFailed("not expected to log in")
        }
    }
}
