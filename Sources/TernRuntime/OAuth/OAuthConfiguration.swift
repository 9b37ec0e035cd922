import Crypto
import Foundation
import TernCore

/// The OAuth 2.0 endpoints and scope of one provider. The environment can point every provider
/// elsewhere (the tests' local authorization server), so no test ever reaches a real one.
public struct OAuthConfiguration: Sendable, Hashable {
    public var authorizationEndpoint: URL
    public var tokenEndpoint: URL
    public var scope: String
    /// Google issues installed apps a "client secret" that is not secret (RFC 8252 section 8.5);
    /// it comes from configuration like the client id, never from the account.
    public var clientSecret: String?
    /// Parameters the provider needs on the authorization request beyond RFC 6749's.
    public var extraAuthorizationParameters: [String: String] = [:]

    /// Google returns a refresh token only with offline access and consent.
    public static let google = OAuthConfiguration(
        authorizationEndpoint: URL(string: "https://accounts.google.com/o/oauth2/v2/auth")!,
        tokenEndpoint: URL(string: "https://oauth2.googleapis.com/token")!,
        scope: "https://mail.google.com/", clientSecret: nil,
        extraAuthorizationParameters: ["access_type": "offline", "prompt": "consent"])

    /// Issue 35: Microsoft identity platform v2.0, the `common` tenant (work, school and personal
    /// accounts). The scopes are those Exchange Online documents for IMAP and SMTP AUTH ("Authenticate
    /// an IMAP, POP or SMTP connection using OAuth"); `offline_access` brings the refresh token.
    public static let microsoft = OAuthConfiguration(
        authorizationEndpoint: URL(string: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize")!,
        tokenEndpoint: URL(string: "https://login.microsoftonline.com/common/oauth2/v2.0/token")!,
        scope: "https://outlook.office.com/IMAP.AccessAsUser.All https://outlook.office.com/SMTP.Send offline_access",
        clientSecret: nil)

    public static func builtIn(_ provider: OAuthProvider) -> OAuthConfiguration {
        switch provider {
        case .google: google
        case .microsoft: microsoft
        }
    }

    /// Google's configuration with the environment's overrides, as the CLI has always read it.
    public static func fromEnvironment(_ environment: [String: String]) -> OAuthConfiguration {
        forProvider(.google, environment: environment)
    }

    /// The provider's configuration, with `TERN_OAUTH_AUTHORIZATION_URL`, `TERN_OAUTH_TOKEN_URL`,
    /// `TERN_OAUTH_SCOPE` and `TERN_OAUTH_CLIENT_SECRET` applied to every provider (tests and
    /// experiments point both at one local server).
    public static func forProvider(_ provider: OAuthProvider, environment: [String: String]) -> OAuthConfiguration {
        var configuration = builtIn(provider)
        if let value = environment["TERN_OAUTH_AUTHORIZATION_URL"], let url = URL(string: value) { configuration.authorizationEndpoint = url }
        if let value = environment["TERN_OAUTH_TOKEN_URL"], let url = URL(string: value) { configuration.tokenEndpoint = url }
        if let value = environment["TERN_OAUTH_SCOPE"], !value.isEmpty { configuration.scope = value }
        if let value = environment["TERN_OAUTH_CLIENT_SECRET"], !value.isEmpty { configuration.clientSecret = value }
        return configuration
    }

    /// RFC 6749 section 4.1.1 with RFC 7636's challenge: the URL the browser opens.
    func authorizationURL(clientID: String, redirectURI: String, state: String, challenge: String, loginHint: String?) -> URL {
        var fields = extraAuthorizationParameters
        fields["response_type"] = "code"
        fields["client_id"] = clientID
        fields["redirect_uri"] = redirectURI
        fields["scope"] = scope
        fields["code_challenge"] = challenge
        fields["code_challenge_method"] = "S256"
        fields["state"] = state
        if let loginHint, !loginHint.isEmpty { fields["login_hint"] = loginHint }
        var components = URLComponents(url: authorizationEndpoint, resolvingAgainstBaseURL: false)!
        let query = OAuthTokenEndpoint.formEncode(fields)
        components.percentEncodedQuery = [components.percentEncodedQuery, query].compactMap { $0 }.joined(separator: "&")
        return components.url!
    }
}

/// RFC 7636: the verifier stays here; only its SHA-256 goes through the browser.
enum PKCE {
    static func makeVerifier() -> String { randomURLSafe(bytes: 32) }

    static func challenge(for verifier: String) -> String {
        base64URL(Array(SHA256.hash(data: Array(verifier.utf8))))
    }

    static func randomURLSafe(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return base64URL((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
