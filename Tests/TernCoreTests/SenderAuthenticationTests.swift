import Foundation
import Testing

@testable import TernCore

/// Issue 32: the verdict on a message's From, from its stored `Authentication-Results` and the
/// account's authserv-id, and what it lets a trusted sender do.
@Suite struct SenderAuthenticationTests {
    typealias Result = AuthenticationResults.MethodResult

    static func google(_ results: Result...) -> AuthenticationResults {
        AuthenticationResults(authservId: "mx.google.com", results: results)
    }

    static func verdict(
        _ headers: [AuthenticationResults]?, from: String = "alice@example.com",
        authservId: String? = "mx.google.com"
    ) -> SenderAuthentication.Verdict {
        SenderAuthentication(headers: headers, authservId: authservId, fromAddress: from).verdict
    }

    @Test(
        arguments: [
            // DMARC from the provider: its header.from must be the From's domain when it is given.
            (
                [google(Result(method: "dmarc", result: "pass", properties: ["header.from": "example.com"]))], "alice@example.com",
                SenderAuthentication.Verdict.verified
            ),
            ([google(Result(method: "dmarc", result: "pass", properties: ["header.from": "Example.COM."]))], "alice@EXAMPLE.com", .verified),
            ([google(Result(method: "dmarc", result: "pass"))], "alice@example.com", .verified),
            ([google(Result(method: "dmarc", result: "pass", properties: ["header.from": "attacker.example"]))], "alice@example.com", .failed),
            // DKIM aligned: the From domain, or a parent of it with two labels or more.
            ([google(Result(method: "dkim", result: "pass", properties: ["header.d": "example.com"]))], "alice@example.com", .verified),
            ([google(Result(method: "dkim", result: "pass", properties: ["header.i": "@example.com"]))], "alice@example.com", .verified),
            ([google(Result(method: "dkim", result: "pass", properties: ["header.d": "example.com"]))], "news@mail.example.com", .verified),
            ([google(Result(method: "dkim", result: "pass", properties: ["header.d": "com"]))], "alice@example.com", .failed),
            ([google(Result(method: "dkim", result: "pass", properties: ["header.d": "mail.example.com"]))], "alice@example.com", .failed),
            ([google(Result(method: "dkim", result: "pass", properties: ["header.d": "notexample.com"]))], "alice@example.com", .failed),
            ([google(Result(method: "dkim", result: "pass", properties: ["header.d": "mailer.example"]))], "alice@example.com", .failed),
            ([google(Result(method: "dkim", result: "pass"))], "alice@example.com", .failed),
            // Present but vouching for nothing.
            (
                [
                    google(
                        Result(method: "dkim", result: "fail", properties: ["header.d": "example.com"]),
                        Result(method: "dmarc", result: "fail", properties: ["header.from": "example.com"]))
                ], "alice@example.com", .failed
            ),
            ([google(Result(method: "spf", result: "pass", properties: ["smtp.mailfrom": "example.com"]))], "alice@example.com", .failed),
            ([google()], "alice@example.com", .failed),
            ([google(Result(method: "dmarc", result: "pass"))], "no-domain", .failed),
            // Only the provider's results count, and only its first field.
            ([AuthenticationResults(authservId: "spoof.example", results: [Result(method: "dmarc", result: "pass")])], "alice@example.com", .unknown),
            ([AuthenticationResults(authservId: "", results: [Result(method: "dmarc", result: "pass")])], "alice@example.com", .unknown),
            ([google(Result(method: "dmarc", result: "fail")), google(Result(method: "dmarc", result: "pass"))], "alice@example.com", .failed),
            (
                [
                    AuthenticationResults(authservId: "spoof.example", results: [Result(method: "dmarc", result: "pass")]),
                    google(Result(method: "dkim", result: "pass", properties: ["header.d": "example.com"]))
                ], "alice@example.com", .verified
            ),
            ([], "alice@example.com", .unknown)
        ] as [([AuthenticationResults], String, SenderAuthentication.Verdict)])
    func verdictOfTheProvidersFirstField(headers: [AuthenticationResults], from: String, expected: SenderAuthentication.Verdict) {
        #expect(Self.verdict(headers, from: from) == expected)
    }

    @Test func withoutAnAuthservIdOrStoredResultsNothingIsVerified() {
        let passing = [Self.google(Result(method: "dmarc", result: "pass"))]
        #expect(
            SenderAuthentication(headers: passing, authservId: nil, fromAddress: "alice@example.com") == .init(verdict: .unknown, authservId: nil))
        #expect(SenderAuthentication(headers: passing, authservId: "", fromAddress: "alice@example.com").authservId == nil)
        #expect(Self.verdict(nil) == .unknown, "mail stored before the results were recorded")
        #expect(Self.verdict(passing, authservId: "MX.Google.com") == .verified)
    }

    /// docs/decisions.md, "Trusted senders must be authenticated".
    @Test func onlyVerifiedOrUncheckableSendersLetTrustLoadImages() {
        #expect(SenderAuthentication(verdict: .verified, authservId: "mx.google.com").letsTrustLoadImages)
        #expect(!SenderAuthentication(verdict: .failed, authservId: "mx.google.com").letsTrustLoadImages)
        #expect(!SenderAuthentication(verdict: .unknown, authservId: "mx.google.com").letsTrustLoadImages)
        #expect(SenderAuthentication(verdict: .unknown, authservId: nil).letsTrustLoadImages)
    }

    @Test func theProviderTableAndTheAccountSetting() {
        let endpoint = ServerEndpoint(host: "imap.example.org", port: 993, security: .implicitTLS)
        var account = Account(
            name: "w", emailAddress: "me@example.org", provider: .gmail, imap: endpoint, smtp: endpoint, username: "me",
            credential: .passwordEnvironment("X"))
        #expect(account.verifyingAuthservId == "mx.google.com")
        account.provider = .imap
        #expect(account.verifyingAuthservId == nil)
        account.authservId = "mail.example.org"
        #expect(account.verifyingAuthservId == "mail.example.org")
    }

    /// Issue 37's privacy report: SPF, DKIM and DMARC as the provider's topmost field says, never a
    /// field below it or another authserv-id's (docs/decisions.md, "Whose Authentication-Results count").
    @Test func theChecksAreTheProvidersTopmostField() {
        typealias Result = AuthenticationResults.MethodResult
        let forged = AuthenticationResults(authservId: "mx.google.com", results: [Result(method: "dmarc", result: "pass")])
        let provider = AuthenticationResults(
            authservId: "mx.google.com",
            results: [Result(method: "spf", result: "softfail"), Result(method: "dkim", result: "fail"), Result(method: "dkim", result: "pass")])
        let other = AuthenticationResults(authservId: "evil.example", results: [Result(method: "spf", result: "pass")])
        #expect(
            AuthenticationChecks(headers: [other, provider, forged], authservId: "MX.Google.com")
                == AuthenticationChecks(spf: "softfail", dkim: "fail", dmarc: nil))
        #expect(AuthenticationChecks(headers: [other], authservId: "mx.google.com") == AuthenticationChecks())
        #expect(AuthenticationChecks(headers: [provider], authservId: nil) == AuthenticationChecks())
    }
}
