import Foundation
import TernCore
import Testing

@testable import WebUI

@Suite struct AccountSetupWordingTests {
    @Test func eachStepsFailureIsWordedForThePerson() {
        let servers = AccountServerSettings(
            imap: ServerEndpoint(host: "imap.example.org", port: 993, security: .implicitTLS),
            smtp: ServerEndpoint(host: "smtp.example.org", port: 465, security: .implicitTLS), username: "jane")
        func words(_ failure: AccountSetupFailure) -> String {
            AccountSetupWording.failure(failure, servers: servers, onlineDatabaseHost: "db.example")
        }
        #expect(words(.noSettings(.nothingFound(steps: [:], askedOnline: false))).hasSuffix("or allow asking db.example."))
        #expect(!words(.noSettings(.nothingFound(steps: [:], askedOnline: true))).contains("db.example"))
        #expect(words(.step(.connecting, .connectionLost("refused"))) == "Couldn't connect to imap.example.org:993: refused.")
        #expect(words(.step(.signingIn, .authenticationRefused("x"))).hasPrefix("imap.example.org:993 refused the user name or password"))
        #expect(words(.step(.checkingSending, .authenticationRefused("x"))).hasPrefix("smtp.example.org:465 refused"))
        #expect(words(.invalid(.alreadyExists("work"))).contains("Choose another name"))
    }
}
