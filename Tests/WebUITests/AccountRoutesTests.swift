import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import TernCore
import Testing

@testable import WebUI

/// Issue 35's account routes on an empty store: the mail page opens on "Add account", the form's
/// refusals come back as the page (without script) or as a line of the step stream (with it), and
/// the removal of an account that is not there is a 404.
extension WebRoutesTests {
    @Test func withNoAccountTheMailPageOpensOnAddAccount() async throws {
        try await withApp { client, s in
            try await client.execute(uri: s.path("/mail"), method: .get, headers: s.headers()) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("<h2 id=\"account-setup-title\">Add account</h2>"))
                #expect(page.contains("<body data-pane=\"thread\">"))
                #expect(page.contains("Also ask the online database at autoconfig.thunderbird.net"))
                #expect(!page.contains("name=\"lookup-online\" type=\"checkbox\" value=\"yes\" checked"))
            }
            try await client.execute(uri: s.path("/accounts/new"), method: .get, headers: s.headers()) { response in
                #expect(response.status == .ok)
                let page = String(buffer: response.body)
                #expect(page.contains("<h1 id=\"account-setup-title\">Add account</h1>"))
                #expect(page.contains("<script type=\"module\" src=\"/assets/account.js\"></script>"))
                #expect(page.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil)
            }
            try await client.execute(uri: "/assets/account.js", method: .get, headers: s.headers()) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
            }
        }
    }

    @Test func aRefusedSetupAnswersThePageOrTheStreamsLastLine() async throws {
        try await withApp { client, s in
            let form = s.headers([.contentType: "application/x-www-form-urlencoded"])
            let typed = "csrf=\(s.csrfToken)&name=-bad&email=jane%40example.org&password=pw&imap-host=mail.example.org&smtp-host=mail.example.org"
            try await client.execute(uri: s.path("/accounts/new"), method: .post, headers: form, body: ByteBuffer(string: typed)) { response in
                #expect(response.status == .unprocessableContent)
                let page = String(buffer: response.body)
                #expect(page.contains("role=\"alert\">Check the form: account name"))
                #expect(page.contains("value=\"mail.example.org\""), "what was typed is kept")
                #expect(!page.contains("value=\"pw\""), "the password is never written back")
            }
            var streamed = form
            streamed[.accept] = AccountRoutes.streamType
            let badPort = "csrf=\(s.csrfToken)&name=work&email=jane%40example.org&password=pw&imap-host=mail.example.org&imap-port=99999&smtp-host=x"
            try await client.execute(uri: s.path("/accounts/new"), method: .post, headers: streamed, body: ByteBuffer(string: badPort)) { response in
                #expect(response.status == .ok)
                let lines = String(buffer: response.body).split(separator: "\n")
                #expect(lines.count == 1)
                let last = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: String]
                #expect(last?["type"] == "failed")
                #expect(last?["text"]?.contains("the IMAP port must be a number from 1 to 65535") == true)
            }
            try await client.execute(uri: s.path("/accounts/remove?account=nobody"), method: .get, headers: s.headers()) { response in
                #expect(response.status == .notFound)
            }
        }
    }
}
