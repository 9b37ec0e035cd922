import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import TernCore
import Testing

@testable import WebUI

/// Issue 35's browser sign-in through the app's own routes, in process: the client id pasted once,
/// the page that leads to the provider with a PKCE S256 challenge and a state, the callback answered
/// before the session for that state only and only once, and the finish page that continues the
/// setup with it. No provider is contacted: nothing here exchanges a code.
extension WebRoutesTests {
    static func query(of url: String) -> [String: String] {
        var fields: [String: String] = [:]
        for item in URLComponents(string: url)?.queryItems ?? [] { fields[item.name] = item.value ?? "" }
        return fields
    }

    @Test func aSignInGoesToTheProviderAndComesBackThroughTheCallbackOnce() async throws {
        try await withApp { client, s in
            let form = s.headers([.contentType: "application/x-www-form-urlencoded"])
            let body =
                "csrf=\(s.csrfToken)&name=office&email=jane%40example.org&imap-host=mail.example.org&smtp-host=mail.example.org"
                + "&sign-in=microsoft&sign-in-with=microsoft&oauth-client-id-microsoft=my-client"
            let leaving = try await client.execute(uri: s.path("/accounts/oauth/start"), method: .post, headers: form, body: ByteBuffer(string: body))
            {
                response in
                #expect(response.status == .ok)
                return String(buffer: response.body)
            }
            let target = try #require(leaving.range(of: #"url=[^"]+"#, options: .regularExpression).map { String(leaving[$0].dropFirst(4)) })
                .replacingOccurrences(of: "&amp;", with: "&")
            #expect(target.hasPrefix("https://login.microsoftonline.com/common/oauth2/v2.0/authorize?"))
            let request = Self.query(of: target)
            #expect(request["client_id"] == "my-client" && request["code_challenge_method"] == "S256" && request["response_type"] == "code")
            #expect(request["redirect_uri"] == "http://localhost/oauth/callback")
            #expect(request["login_hint"] == "jane@example.org")
            #expect(request["access_type"] == nil, "Google's parameters are Google's")
            let state = try #require(request["state"])
            #expect(state.count >= 22)
            #expect(leaving.contains("Continue to Microsoft"))

            // The provider's answer: a cross-site navigation without the session cookie.
            let callback = "/oauth/callback?code=the-code&state=\(state)"
            let crossSite: HTTPFields = [SecurityHeaders.secFetchSiteName: "cross-site"]
            try await client.execute(uri: callback, method: .get, headers: crossSite) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains(s.path("/accounts/oauth/finish?state=\(state)")))
            }
            try await client.execute(uri: callback, method: .get, headers: crossSite) { response in
                #expect(response.status == .badRequest, "an answer is taken once")
            }
            try await client.execute(uri: "/oauth/callback?code=x&state=forged", method: .get, headers: crossSite) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("not for a sign-in Tern is waiting for"))
            }
            // The finish page needs the session, and continues the setup with the state.
            try await client.execute(uri: s.path("/accounts/oauth/finish?state=\(state)"), method: .get, headers: [:]) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(uri: s.path("/accounts/oauth/finish?state=\(state)"), method: .get, headers: s.headers()) { response in
                #expect(response.status == .ok)
                let page = String(buffer: response.body)
                #expect(page.contains("data-autostart"))
                #expect(page.contains("name=\"oauth-state\" value=\"\(state)\""))
                #expect(page.contains("Signed in with Microsoft"))
                #expect(page.contains("value=\"mail.example.org\""))
                #expect(!page.contains("the-code"), "the code stays in the process")
            }
            // The client id is kept for Microsoft: the next form asks for none.
            try await client.execute(uri: s.path("/accounts/new"), method: .get, headers: s.headers()) { response in
                let page = String(buffer: response.body)
                #expect(!page.contains("name=\"oauth-client-id-microsoft\""))
                #expect(page.contains("name=\"oauth-client-id-google\""))
            }
        }
    }

    @Test func aRefusedConsentIsSaidAndASignInWithoutClientIDAsksForOne() async throws {
        try await withApp { client, s in
            let form = s.headers([.contentType: "application/x-www-form-urlencoded"])
            let noClient = "csrf=\(s.csrfToken)&name=gm&email=jane%40gmail.com&sign-in-with=google"
            try await client.execute(uri: s.path("/accounts/oauth/start"), method: .post, headers: form, body: ByteBuffer(string: noClient)) {
                response in
                #expect(response.status == .badRequest)
                let page = String(buffer: response.body)
                #expect(page.contains("Paste your Google client id first"))
                #expect(page.contains("Google Cloud console"))
                #expect(page.contains("id=\"setup-oauth-google\" class=\"oauth-sign-in\" aria-labelledby=\"setup-oauth-google-title\">"))
            }
            let withClient = noClient + "&oauth-client-id-google=g-client&oauth-client-secret-google=g-secret"
            let leaving = try await client.execute(
                uri: s.path("/accounts/oauth/start"), method: .post, headers: form, body: ByteBuffer(string: withClient)
            ) { String(buffer: $0.body) }
            let target = try #require(leaving.range(of: #"url=[^"]+"#, options: .regularExpression).map { String(leaving[$0].dropFirst(4)) })
                .replacingOccurrences(of: "&amp;", with: "&")
            let request = Self.query(of: target)
            #expect(target.hasPrefix("https://accounts.google.com/o/oauth2/v2/auth?"))
            #expect(request["access_type"] == "offline" && request["client_secret"] == nil, "the secret goes to the token endpoint only")
            let state = try #require(request["state"])
            try await client.execute(uri: "/oauth/callback?error=access_denied&state=\(state)", method: .get, headers: [:]) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: s.path("/accounts/oauth/finish?state=\(state)"), method: .get, headers: s.headers()) { response in
                #expect(response.status == .unprocessableContent)
                let page = String(buffer: response.body)
                #expect(page.contains("Google did not give Tern access"))
                #expect(!page.contains("data-autostart"))
            }
            try await client.execute(uri: s.path("/accounts/oauth/finish?state=\(state)"), method: .get, headers: s.headers()) { response in
                #expect(response.status == .badRequest, "a refused sign-in is gone once shown")
                #expect(String(buffer: response.body).contains("no longer waiting"))
            }
            // Settings shows and edits the registration.
            try await client.execute(uri: s.path("/settings"), method: .get, headers: s.headers()) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("<h2 id=\"sign-in-apps-title\">Sign-in apps</h2>"))
                #expect(page.contains("value=\"g-client\""))
            }
            let cleared = "csrf=\(s.csrfToken)&oauth-client-id-google=&oauth-client-id-microsoft=m-client"
            try await client.execute(uri: s.path("/settings/oauth-clients"), method: .post, headers: form, body: ByteBuffer(string: cleared)) {
                #expect($0.status == .seeOther)
            }
            try await client.execute(uri: s.path("/settings"), method: .get, headers: s.headers()) { response in
                let page = String(buffer: response.body)
                #expect(!page.contains("value=\"g-client\"") && page.contains("value=\"m-client\""))
            }
        }
    }
}
