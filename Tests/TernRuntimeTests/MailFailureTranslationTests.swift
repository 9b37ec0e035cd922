import IMAP
import MailTransport
import SMTP
import TernCore
import Testing

@testable import TernRuntime

/// Issue 33: the one translation of IMAP and SMTP failures into `TernError` keeps authentication,
/// TLS, refusal and connection loss apart; only a lost connection is retried by the engine and queues.
struct MailFailureTranslationTests {
    static func translated(_ error: any Error) -> TernError? { TernError.translatingMail(error) as? TernError }

    @Test func aRefusedLoginIsItsOwnErrorNeverARetryableDrop() {
        for error: any Error in [
            IMAPError.authenticationFailed("[AUTHENTICATIONFAILED] Authentication failed."),
            SMTPError.authenticationFailed(SMTPReply(code: 535, enhancedCode: "5.7.8", lines: ["bad credentials"]))
        ] {
            let translated = Self.translated(error)
            guard case .authenticationRefused(let text)? = translated else {
                Issue.record("\(error) became \(String(describing: translated))")
                continue
            }
            #expect(!text.isEmpty && translated?.isRetryable == false && translated?.needsPerson == true)
            #expect(translated?.message.hasPrefix("authentication failed: ") == true)
        }
    }

    @Test func aRefusedCertificateIsATLSRefusal() {
        let detail = "mail.example.org:993: the server's certificate is not trusted"
        for error: any Error in [
            IMAPError.tlsRefused(detail), SMTPError.tlsRefused(detail), SMTPError.unreachable(.tlsRefused(detail)),
            TransportFailure.tlsRefused(detail)
        ] {
            #expect(Self.translated(error) == .tlsRefused(detail), "\(error)")
        }
        #expect(TernError.tlsRefused(detail).message == "TLS refused: \(detail)")
    }

    @Test func theServersRefusalIsAServerFailure() {
        let errors: [any Error] = [
            IMAPError.server(status: .no, text: "[TRYCREATE] no such mailbox"), IMAPError.server(status: .bad, text: "syntax"),
            IMAPError.unsupported("MOVE"), IMAPError.invalidArgument("a control character"),
            SMTPError.permanent(SMTPReply(code: 554, lines: ["rejected"])), SMTPError.transient(SMTPReply(code: 451, lines: ["later"])),
            SMTPError.unsupported("STARTTLS"), SMTPError.protocolViolation("garbage")
        ]
        for error in errors {
            guard case .serverFailure? = Self.translated(error) else {
                Issue.record("\(error) became \(String(describing: Self.translated(error)))")
                continue
            }
        }
    }

    @Test func aDropATimeoutAnUnreachableServerAndBYEAreALostConnection() {
        let errors: [any Error] = [
            IMAPError.network("127.0.0.1:1: connection refused"), IMAPError.timeout("no answer in 60 s"), IMAPError.connectionClosed,
            IMAPError.server(status: .bye, text: "shutting down"), SMTPError.network("reset"), SMTPError.timeout("greeting"),
            SMTPError.connectionClosed, SMTPError.unreachable(.network("127.0.0.1:1: connection refused")), TransportFailure.closed
        ]
        for error in errors {
            let translated = Self.translated(error)
            #expect(translated?.isRetryable == true && translated?.needsPerson == false, "\(error) became \(String(describing: translated))")
        }
        #expect(Self.translated(IMAPError.network("127.0.0.1:1: connection refused"))?.message.contains("connection refused") == true)
    }

    @Test func aCredentialThatCouldNotBeHadIsTheCredentialsOwnError() {
        #expect(
            Self.translated(IMAPError.credentialUnavailable(CredentialUnavailable(TernError.secretUnavailable("pass failed"))))
                == .secretUnavailable("pass failed"))
    }

    @Test func otherErrorsPassThroughUnchanged() {
        #expect(Self.translated(TernError.storeBusy("held")) == .storeBusy("held"))
        #expect(TernError.translatingMail(CancellationError()) is CancellationError)
    }

    /// The adapters' kinds agree with what the IMAP engine retries (FR-SYNC-09).
    @Test func imapRetriesExactlyTheLostConnections() {
        let errors: [IMAPError] = [
            .network("x"), .timeout("x"), .connectionClosed, .server(status: .bye, text: "x"), .tlsRefused("x"),
            .authenticationFailed("x"), .server(status: .no, text: "x"), .unsupported("x")
        ]
        for error in errors { #expect(error.isRetryable == (error.mailFailure.kind == .connectionLost)) }
    }
}
