import Foundation
import IMAP
import MailTransport
import TernCore
import Testing

@testable import TernRuntime

/// Issue 33: `tern account check`'s probe reports a server out of reach as a lost connection and a
/// credential that cannot be had as itself; the IMAP credential source logs in with the account's
/// user name and asks for a fresh credential after a rejection (FR-SYNC-04).
@Suite(.timeLimit(.minutes(1)))
struct LiveServerProbeTests {
    @Test func anIMAPServerOutOfReachIsALostConnection() async {
        await #expect {
            _ = try await LiveServerProbe().checkIMAP(account: liveTestAccount(), credentials: passwordCredentials())
        } throws: { error in
            if case .connectionLost = error as? TernError { true } else { false }
        }
    }

    @Test func anSMTPCredentialThatCannotBeHadIsItsOwnError() async {
        let failure = TernError.secretUnavailable("the password command failed")
        await #expect(throws: failure) {
            _ = try await LiveServerProbe().checkSMTP(account: liveTestAccount(), credentials: failingCredentials(failure))
        }
    }

    @Test func theIMAPCredentialSourceCarriesTheUserNameAndRefreshes() async throws {
        let supply = CredentialSupply(username: "me@tern.test", current: { .accessToken("old") }, refreshed: { .accessToken("new") })
        let source = supply.imapSource
        #expect(try await source.current() == .oauth2(username: "me@tern.test", accessToken: "old"))
        #expect(try await source.refresh?() == .oauth2(username: "me@tern.test", accessToken: "new"))
        let password = CredentialSupply(username: "me", current: { .password("pw") }, refreshed: { .password("pw2") }).imapSource
        #expect(try await password.current() == .password(username: "me", password: "pw"))
    }
}
