import Foundation
import Sync
import TernCore
import Testing

@testable import MIME

/// RFC 8601 `Authentication-Results` as providers write it, and as a hostile sender might (issue 32).
@Suite struct AuthenticationResultsParserTests {
    typealias Result = AuthenticationResultsField.MethodResult

    static func parse(_ text: String) -> AuthenticationResultsField { AuthenticationResultsParser.parse(Array(text.utf8)) }

    /// Gmail's field, unfolded as the header parser hands it over (the line breaks' white space kept).
    static let gmail = """
         mx.google.com;\r
               dkim=pass header.i=@example.com header.s=20230601 header.b=AbC+d/Ef;\r
               spf=pass (google.com: domain of alice@example.com designates 209.85.220.41 as permitted sender) smtp.mailfrom=alice@example.com;\r
               dmarc=pass (p=REJECT sp=REJECT dis=NONE) header.from=example.com
        """

    @Test func gmailsFieldGivesItsAuthservIdAndEachResultWithItsProperties() {
        let header = Self.parse(Self.gmail)
        #expect(header.authservId == "mx.google.com")
        #expect(
            header.results == [
                Result(method: "dkim", result: "pass", properties: ["header.i": "@example.com", "header.s": "20230601", "header.b": "AbC+d/Ef"]),
                Result(method: "spf", result: "pass", properties: ["smtp.mailfrom": "alice@example.com"]),
                Result(method: "dmarc", result: "pass", properties: ["header.from": "example.com"])
            ])
        // Issue 37: SPF is kept (with smtp.mailfrom) for the privacy report; signature fragments are not stored.
        #expect(AuthenticationResults(header).evidence.results.map(\.method) == ["dkim", "spf", "dmarc"])
        #expect(AuthenticationResults(header).evidence.results[1].properties == ["smtp.mailfrom": "alice@example.com"])
        #expect(AuthenticationResults(header).evidence.results[0].properties == ["header.i": "@example.com"])
    }

    @Test(
        arguments: [
            // RFC 8601 appendix B examples.
            ("example.org 1; none", "example.org", []),
            (
                "example.com; spf=pass smtp.mailfrom=example.net", "example.com",
                [Result(method: "spf", result: "pass", properties: ["smtp.mailfrom": "example.net"])]
            ),
            (
                "example.com; auth=pass (cram-md5) smtp.auth=sender@example.net; spf=pass smtp.mailfrom=example.net", "example.com",
                [
                    Result(method: "auth", result: "pass", properties: ["smtp.auth": "sender@example.net"]),
                    Result(method: "spf", result: "pass", properties: ["smtp.mailfrom": "example.net"])
                ]
            ),
            (
                "example.com; sender-id=fail header.from=example.com; dkim=pass (good signature) header.d=example.com", "example.com",
                [
                    Result(method: "sender-id", result: "fail", properties: ["header.from": "example.com"]),
                    Result(method: "dkim", result: "pass", properties: ["header.d": "example.com"])
                ]
            ),
            // Case, a method version, a quoted authserv-id and value, a reason, comments everywhere.
            (
                "MX.Example.ORG; DKIM/1=PASS Header.D=Example.com", "mx.example.org",
                [Result(method: "dkim", result: "pass", properties: ["header.d": "Example.com"])]
            ),
            (
                "\"mx example\" (the relay); dmarc (policy) = (ok) fail reason=\"p=reject; no alignment\" header.from=\"example.com\"", "mx example",
                [Result(method: "dmarc", result: "fail", properties: ["header.from": "example.com"])]
            ),
            // Microsoft 365 writes no authserv-id at all.
            (
                "spf=pass (sender IP is 203.0.113.9) smtp.mailfrom=example.com; dkim=pass (signature was verified) header.d=example.com;dmarc=pass action=none header.from=example.com;compauth=pass reason=100",
                "",
                [
                    Result(method: "spf", result: "pass", properties: ["smtp.mailfrom": "example.com"]),
                    Result(method: "dkim", result: "pass", properties: ["header.d": "example.com"]),
                    Result(method: "dmarc", result: "pass", properties: ["header.from": "example.com"]),
                    Result(method: "compauth", result: "pass")
                ]
            ),
            // A missing `;` after the authserv-id; a property without a dot (not a ptype.property) is dropped.
            (
                "mx.example.org dkim=pass action=none header.d=a.example", "mx.example.org",
                [Result(method: "dkim", result: "pass", properties: ["header.d": "a.example"])]
            )
        ] as [(String, String, [Result])])
    func readsTheRFCsExamplesAndProviderShapes(field: String, authservId: String, results: [Result]) {
        let header = Self.parse(field)
        #expect(header.authservId == authservId)
        #expect(header.results == results)
    }

    @Test(arguments: [
        "", ";", ";;;", "=", "==pass", "(", "(((", ")", "\"", "\\", "(\\", "mx;\"", "mx; dkim=", "mx; dkim=pass header.d=",
        "mx; dkim=pass header.d", "mx; =pass", "mx; dkim pass", "mx; dkim=pass (unterminated", "mx; dkim=pass header.d=\"unterminated",
        "mx; /=/", "mx; dkim/=pass", "\u{0}\u{1}; dkim=\u{7f}", "mx.example.org;\r\n\tdkim=pass\r\n"
    ])
    func garbageGivesWhatCanBeReadAndNeverTraps(field: String) {
        let header = Self.parse(field)
        #expect(header.results.allSatisfy { !$0.method.isEmpty && !$0.result.isEmpty })
    }

    @Test func badResultsAreSkippedToTheNextSemicolon() {
        let header = Self.parse("mx.example.org; = junk (x;y) \"a;b\"; dkim=pass header.d=example.com; what; dmarc=fail")
        #expect(header.results.map(\.method) == ["dkim", "dmarc"])
        #expect(header.results[0].properties == ["header.d": "example.com"])
    }

    @Test func hostileSizesAreCapped() {
        let many = (0..<1_000).map { "m\($0)=pass" }.joined(separator: "; ")
        #expect(Self.parse("mx.example.org; " + many).results.count == AuthenticationResultsParser.maxResults)
        let properties = (0..<100).map { "header.p\($0)=x" }.joined(separator: " ")
        #expect(Self.parse("mx.example.org; dkim=pass " + properties).results[0].properties.count == AuthenticationResultsParser.maxProperties)
        let long = String(repeating: "a", count: 100_000)
        let header = Self.parse("mx.example.org; dkim=pass header.d=\(long) " + String(repeating: "(", count: 50_000))
        #expect(header.results[0].properties["header.d"]?.count == AuthenticationResultsParser.maxValueLength)
    }

    @Test func aMessageKeepsItsFirstFieldsInOrderForTheVerdict() throws {
        let forged = (0..<10).map { _ in "Authentication-Results: mx.google.com; dmarc=pass header.from=bank.example\r\n" }.joined()
        let message = Array(
            """
            Authentication-Results: mx.google.com; dmarc=fail (p=REJECT) header.from=bank.example\r
            \(forged)From: Bank <security@bank.example>\r
            Subject: hello\r
            \r
            body\r

            """.utf8)
        let email = MessageParser().parse(message).email(accountId: "acc", internalDate: Date(), sizeBytes: Int64(message.count))
        let stored = try #require(email.authenticationResults)
        #expect(stored.count == 5)
        #expect(
            stored[0].results == [AuthenticationResults.MethodResult(method: "dmarc", result: "fail", properties: ["header.from": "bank.example"])])
        let verdict = SenderAuthentication(headers: stored, authservId: "mx.google.com", fromAddress: email.fromAddress)
        #expect(verdict.verdict == .failed, "the provider's own field is the top one; the forged ones below it do not count")
    }
}
