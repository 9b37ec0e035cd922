import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import TernCore
@_spi(Tooling) import TernRuntime
import Testing

@testable import WebUI

/// Issue 35: Settings → Identities and signatures (add, change, remove, each a form with the CSRF
/// token; refusals said on the page) and the composer's From picker of identities.
extension WebRoutesTests {
    func withAccount(_ test: @Sendable (any TestClientProtocol, SignedIn, TernServices) async throws -> Void) async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("tern-web-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let services = try TernServices.open(environment: ["TERN_HOME": home.path])
        try await services.accountRepository.insert(
            Account(
                name: "bob", emailAddress: "bob@example.org", displayName: "Bob", provider: .imap,
                imap: ServerEndpoint(host: "imap.example.org", port: 993, security: .implicitTLS),
                smtp: ServerEndpoint(host: "smtp.example.org", port: 465, security: .implicitTLS), username: "bob",
                credential: .passwordEnvironment("TERN_TEST_PW")))
        let server = try TernWebServer(services: services, configuration: WebServerConfiguration(port: 8025, token: Self.token, runSync: false))
        let app = Application(responder: server.responder(port: 8025, hosts: ["localhost"]))
        try await app.test(.router) { client in
            try await test(client, try await Self.signIn(client, csrfToken: server.secrets.csrfToken), services)
        }
    }

    @Test func identitiesAreAddedChangedAndRemovedInSettings() async throws {
        try await withAccount { client, s, services in
            let form = s.headers([.contentType: "application/x-www-form-urlencoded"])
            func post(_ path: String, _ body: String) async throws -> (HTTPResponse.Status, String, String?) {
                try await client.execute(uri: s.path(path), method: .post, headers: form, body: ByteBuffer(string: body)) { response in
                    (response.status, String(buffer: response.body), response.headers[.location])
                }
            }
            // Without the CSRF token: refused before anything changes.
            #expect(try await post("/settings/identities/add", "account=bob&email=sales%40example.org").0 == .forbidden)
            let added = try await post(
                "/settings/identities/add", "csrf=\(s.csrfToken)&account=bob&email=sales%40example.org&name=Bob+%28Sales%29&signature=Bob%0D%0ASales")
            #expect(added.0 == .seeOther)
            #expect(added.2 == s.path("/settings?saved=1#identities-title"))
            let page = try await client.execute(uri: s.path("/settings"), method: .get, headers: s.headers()) { String(buffer: $0.body) }
            #expect(page.contains("<h2 id=\"identities-title\">Identities and signatures</h2>"))
            #expect(page.contains("<h4 id=\"identity-1-title\">bob@example.org (default)</h4>"))
            #expect(
                page.contains("<label for=\"identity-2-signature\">Signature<span class=\"visually-hidden\"> for sales@example.org</span></label>"))
            #expect(page.contains("<textarea id=\"identity-2-signature\" name=\"signature\" rows=\"3\">Bob\nSales</textarea>"))
            #expect(page.contains("aria-label=\"Remove sales@example.org\""))
            #expect(!page.contains("aria-label=\"Remove bob@example.org\""))

            let edited = try await post(
                "/settings/identities/edit", "csrf=\(s.csrfToken)&account=bob&email=SALES%40example.org&name=&signature=Sales+team")
            #expect(edited.0 == .seeOther)
            let identities = try await services.identities.list(account: "bob")[0].identities
            #expect(identities.map(\.emailAddress) == ["bob@example.org", "sales@example.org"])
            #expect(identities[1].displayName == nil && identities[1].signature == "Sales team")

            let refused = try await post("/settings/identities/remove", "csrf=\(s.csrfToken)&account=bob&email=bob%40example.org")
            #expect(refused.0 == .badRequest)
            #expect(refused.1.contains("cannot be removed"))
            let duplicate = try await post("/settings/identities/add", "csrf=\(s.csrfToken)&account=bob&email=Sales%40Example.org")
            #expect(duplicate.0 == .badRequest)
            #expect(duplicate.1.contains("already exists"))
            #expect(try await post("/settings/identities/remove", "csrf=\(s.csrfToken)&account=bob&email=sales%40example.org").0 == .seeOther)
            #expect(try await services.identities.list(account: "bob")[0].identities.count == 1)
            #expect(try await services.listAccounts()[0].aliases.isEmpty)
        }
    }

    @Test func theComposerOffersEveryIdentityAndPostsTheChosenOne() async throws {
        try await withAccount { client, s, services in
            _ = try await services.identities.add(account: "bob", emailAddress: "sales@example.org", displayName: "Bob (Sales)", signature: "Sales")
            let page = try await client.execute(uri: s.path("/mail?compose=new"), method: .get, headers: s.headers()) { String(buffer: $0.body) }
            #expect(page.contains("<select id=\"compose-from\" name=\"account\">"))
            #expect(page.contains("<option value=\"bob bob@example.org\" selected>Bob &lt;bob@example.org&gt;</option>"))
            #expect(page.contains("<option value=\"bob sales@example.org\" data-signature=\"Sales\">Bob (Sales) &lt;sales@example.org&gt;</option>"))
            let form = s.headers([.contentType: "application/x-www-form-urlencoded"])
            let saved = try await client.execute(
                uri: s.path("/compose/draft"), method: .post, headers: form,
                body: ByteBuffer(string: "csrf=\(s.csrfToken)&mode=new&account=bob+sales%40example.org&to=dave%40example.org&subject=Hi&body=Hello")
            ) { $0.status }
            #expect(saved == .seeOther)
            let drafts = try await services.drafts.list(account: "bob")
            let draft = try await services.drafts.open(DraftID(try #require(drafts.first?.id)))
            #expect(draft.content.from == EmailAddress(name: "Bob (Sales)", address: "sales@example.org"))
            #expect(draft.content.body == "Hello\n\n-- \nSales")
        }
    }
}

@Suite struct IdentitiesSectionTests {
    @Test func eachAccountListsItsIdentitiesWithLabelledForms() {
        let account = Account(
            name: "bob", emailAddress: "bob@example.org", provider: .imap,
            imap: ServerEndpoint(host: "imap.example.org", port: 993, security: .implicitTLS),
            smtp: ServerEndpoint(host: "smtp.example.org", port: 465, security: .implicitTLS), username: "bob",
            credential: .passwordEnvironment("PW"))
        let markup = IdentitiesSection(
            accounts: [
                AccountIdentities(
                    account: account,
                    identities: [
                        Identity(accountId: account.id, emailAddress: "bob@example.org", isDefault: true),
                        Identity(accountId: account.id, emailAddress: "x@example.org", displayName: "<X>", signature: "a\"b")
                    ])
            ], csrfToken: "tok"
        ).render().markup
        #expect(markup.contains("value=\"&lt;X&gt;\""))
        #expect(markup.contains(">a&quot;b</textarea>"))
        #expect(markup.components(separatedBy: "name=\"csrf\" value=\"tok\"").count - 1 == 4, "two edits, one remove, one add")
        #expect(markup.contains("<label for=\"identity-add-3-email\">Address<span class=\"visually-hidden\"> to add to bob</span></label>"))
        #expect(IdentitiesSection(accounts: [], csrfToken: "t").render().markup.contains("No accounts."))
    }
}
