import Crypto
import Foundation

/// The OAuth 2.0 provider Tern signs in to. Google's by default (the Gmail preset); the
/// environment can point elsewhere (the tests' local endpoint, another provider).
public struct OAuthConfiguration: Sendable, Hashable {
    public var authorizationEndpoint: URL
    public var tokenEndpoint: URL
    public var scope: String
    /// Google issues installed apps a "client secret" that is not secret (RFC 8252 section 8.5);
    /// it comes from configuration like the client id, never from the account.
    public var clientSecret: String?

    public static let google = OAuthConfiguration(
        authorizationEndpoint: URL(string: "https://accounts.google.com/o/oauth2/v2/auth")!,
        tokenEndpoint: URL(string: "https://oauth2.googleapis.com/token")!,
        scope: "https://mail.google.com/", clientSecret: nil)

    /// `TERN_OAUTH_AUTHORIZATION_URL`, `TERN_OAUTH_TOKEN_URL`, `TERN_OAUTH_SCOPE`, `TERN_OAUTH_CLIENT_SECRET`.
    public static func fromEnvironment(_ environment: [String: String]) -> OAuthConfiguration {
        var configuration = google
        if let value = environment["TERN_OAUTH_AUTHORIZATION_URL"], let url = URL(string: value) { configuration.authorizationEndpoint = url }
        if let value = environment["TERN_OAUTH_TOKEN_URL"], let url = URL(string: value) { configuration.tokenEndpoint = url }
        if let value = environment["TERN_OAUTH_SCOPE"], !value.isEmpty { configuration.scope = value }
        if let value = environment["TERN_OAUTH_CLIENT_SECRET"], !value.isEmpty { configuration.clientSecret = value }
        return configuration
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
