import IMAP
import MailTransport
import TernCore

extension TernError {
    /// Issue 33: the one translation of a mail server's failure into the application's error, used
    /// by every adapter over IMAP and SMTP. The kinds stay apart: only `connectionLost` is retried
    /// by the engine and the queues, so a refused sign-in or certificate waits for the person.
    public init(_ failure: MailFailure) {
        switch failure.kind {
        case .authenticationRefused: self = .authenticationRefused(failure.detail)
        case .tlsRefused: self = .tlsRefused(failure.detail)
        case .refused: self = .serverFailure(failure.detail)
        case .connectionLost: self = .connectionLost(failure.detail)
        }
    }

    /// `error` translated when a mail protocol threw it; any other error unchanged. A credential
    /// that could not be had while connecting is the credential's own error (a failed password
    /// command, a sign-in the provider refused), not the connection's.
    public static func translatingMail(_ error: any Error) -> any Error {
        if case IMAPError.credentialUnavailable(let failure) = error { return failure.cause }
        if let error = error as? any MailFailureClassifying { return TernError(error.mailFailure) }
        if let error = error as? TransportFailure { return TernError(error.mailFailure) }
        return error
    }
}

/// Runs `body`, its mail protocol errors translated (`TernError.translatingMail`).
func translatingMailFailures<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
    do {
        return try await body()
    } catch {
        throw TernError.translatingMail(error)
    }
}
