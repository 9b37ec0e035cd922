import Foundation
import TernCore

/// Issue 35: one authorization request of the web app's sign-in (RFC 6749 section 4.1 with RFC
/// 7636 S256): the URL the browser goes to, and what the answer is checked and exchanged with. The
/// verifier never leaves the process; only its SHA-256 goes through the browser.
public struct OAuthAuthorizationRequest: Sendable, Hashable {
    public let provider: OAuthProvider
    public let clientID: String
    /// The web app's own route on the loopback address (RFC 8252 section 7.3).
    public let redirectURI: String
    /// RFC 6749 section 10.12: 128 random bits, the only thing that ties an answer to this request.
    public let state: String
    let verifier: String
    public let url: URL

    public var challenge: String { PKCE.challenge(for: verifier) }
}

/// Issue 35: the authorization-code flow whose redirect comes back to the web app (its
/// `/oauth/callback` on 127.0.0.1) instead of a listener of its own, as the CLI's
/// `LoopbackOAuthAuthorizer` has. The endpoints are the provider's, or the environment's for tests.
public struct BrowserOAuthSignIn: Sendable {
    let configurations: OAuthConfigurations

    public init(environment: [String: String], clients: (any OAuthClientStore)?) {
        configurations = OAuthConfigurations(environment: environment, clients: clients)
    }

    init(configurations: OAuthConfigurations) { self.configurations = configurations }

    public func start(provider: OAuthProvider, clientID: String, redirectURI: String, loginHint: String?) async -> OAuthAuthorizationRequest {
        let configuration = await configurations.configuration(for: provider, clientID: clientID)
        let verifier = PKCE.makeVerifier()
        let state = PKCE.randomURLSafe(bytes: 16)
        let url = configuration.authorizationURL(
            clientID: clientID, redirectURI: redirectURI, state: state, challenge: PKCE.challenge(for: verifier), loginHint: loginHint)
        return OAuthAuthorizationRequest(provider: provider, clientID: clientID, redirectURI: redirectURI, state: state, verifier: verifier, url: url)
    }

    /// RFC 6749 section 4.1.3: the code for tokens, with the same redirect URI and the verifier.
    public func exchange(code: String, for request: OAuthAuthorizationRequest) async throws -> OAuthTokens {
        let configuration = await configurations.configuration(for: request.provider, clientID: request.clientID)
        return try await OAuthTokenEndpoint(configuration: configuration)
            .exchange(code: code, redirectURI: request.redirectURI, clientID: request.clientID, verifier: request.verifier)
    }
}
