import Foundation
import TernCore
import Testing

@testable import TernRuntime

/// Issue 35: each provider's endpoints and scopes, the tests' overrides applied to every provider,
/// the authorization request's PKCE S256 challenge (RFC 7636), and the client secret stored with
/// the person's registration given to that client id alone.
struct OAuthConfigurationTests {
    @Test func microsoftSignsInAtItsV2EndpointsWithTheScopesExchangeDocuments() {
        let microsoft = OAuthConfiguration.builtIn(.microsoft)
        #expect(microsoft.authorizationEndpoint.absoluteString == "https://login.microsoftonline.com/common/oauth2/v2.0/authorize")
        #expect(microsoft.tokenEndpoint.absoluteString == "https://login.microsoftonline.com/common/oauth2/v2.0/token")
        #expect(
            microsoft.scope.split(separator: " ")
                == ["https://outlook.office.com/IMAP.AccessAsUser.All", "https://outlook.office.com/SMTP.Send", "offline_access"])
        #expect(microsoft.extraAuthorizationParameters.isEmpty)
        #expect(OAuthConfiguration.builtIn(.google).extraAuthorizationParameters == ["access_type": "offline", "prompt": "consent"])
        #expect(AddAccountUseCase.microsoftIMAP == ServerEndpoint(host: "outlook.office365.com", port: 993, security: .implicitTLS))
        #expect(AddAccountUseCase.microsoftSMTP == ServerEndpoint(host: "smtp.office365.com", port: 587, security: .startTLS))
    }

    @Test func theEnvironmentPointsEveryProviderAtTheTestServer() {
        let environment = ["TERN_OAUTH_AUTHORIZATION_URL": "http://127.0.0.1:9/authorize", "TERN_OAUTH_TOKEN_URL": "http://127.0.0.1:9/token"]
        for provider in OAuthProvider.allCases {
            let configuration = OAuthConfiguration.forProvider(provider, environment: environment)
            #expect(configuration.authorizationEndpoint.host == "127.0.0.1" && configuration.tokenEndpoint.path == "/token")
        }
        #expect(OAuthConfiguration.fromEnvironment(environment) == OAuthConfiguration.forProvider(.google, environment: environment))
    }

    @Test func whichProviderAnAccountRefreshesAt() {
        #expect(OAuthProvider(signingInTo: .microsoft) == .microsoft)
        #expect(OAuthProvider(signingInTo: .gmail) == .google)
        #expect(OAuthProvider(signingInTo: .imap) == .google, "`--oauth` on any server keeps Google's flow, as before")
        #expect(OAuthProvider(offeredBy: .imap) == nil)
    }

    /// RFC 7636 Appendix B's example verifier and challenge.
    @Test func theChallengeIsTheVerifiersSHA256InBase64URL() {
        #expect(PKCE.challenge(for: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        let verifier = PKCE.makeVerifier()
        #expect(verifier.count == 43 && verifier.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(PKCE.makeVerifier() != verifier)
    }

    @Test func theAuthorizationRequestCarriesStateAndChallengeNeverTheVerifier() async throws {
        let signIn = BrowserOAuthSignIn(environment: [:], clients: nil)
        let request = await signIn.start(
            provider: .microsoft, clientID: "client id", redirectURI: "http://127.0.0.1:8025/oauth/callback", loginHint: "jane@outlook.com")
        let other = await signIn.start(provider: .microsoft, clientID: "c", redirectURI: "http://127.0.0.1:8025/oauth/callback", loginHint: nil)
        #expect(request.state != other.state && request.state.count == 22)
        let items = try #require(URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems)
        let fields = Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.value ?? "") })
        #expect(fields["client_id"] == "client id" && fields["state"] == request.state && fields["login_hint"] == "jane@outlook.com")
        #expect(fields["code_challenge"] == PKCE.challenge(for: request.verifier) && fields["code_challenge_method"] == "S256")
        #expect(fields["scope"] == OAuthConfiguration.microsoft.scope && fields["response_type"] == "code")
        #expect(!request.url.absoluteString.contains(request.verifier))
    }

    actor Registrations: OAuthClientStore {
        var stored: [OAuthClientRegistration]
        init(_ stored: [OAuthClientRegistration]) { self.stored = stored }
        func registrations() async throws -> [OAuthClientRegistration] { stored }
        func save(_ registration: OAuthClientRegistration) async throws { stored = [registration] }
        func remove(_ provider: OAuthProvider) async throws { stored.removeAll { $0.provider == provider } }
    }

    @Test func aStoredSecretGoesWithItsOwnClientIDOnly() async {
        let clients = Registrations([OAuthClientRegistration(provider: .google, clientID: "new-id", clientSecret: " s3cret ")])
        let configurations = OAuthConfigurations(environment: [:], clients: clients)
        #expect(await configurations.configuration(for: .google, clientID: "new-id").clientSecret == "s3cret")
        #expect(await configurations.configuration(for: .google, clientID: "old-id").clientSecret == nil)
        #expect(await configurations.configuration(for: .microsoft, clientID: "new-id").clientSecret == nil)
        let overridden = OAuthConfigurations(environment: ["TERN_OAUTH_CLIENT_SECRET": "from-env"], clients: clients)
        #expect(await overridden.configuration(for: .google, clientID: "new-id").clientSecret == "from-env")
    }
}
