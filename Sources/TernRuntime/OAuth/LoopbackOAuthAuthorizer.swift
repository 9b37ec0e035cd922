import Foundation
import TernCore

/// The installed-app flow (RFC 8252) with PKCE (RFC 7636): the authorization URL is announced (and
/// opened in a browser when one is available), the answer comes to a loopback listener, the code
/// is exchanged for tokens at the token endpoint. Refresh uses the refresh token (RFC 6749 section 6).
/// Which provider's endpoints: the account's (`OAuthProvider(signingInTo:)`, issue 35).
struct LoopbackOAuthAuthorizer: OAuthAuthorizer {
    let configurations: OAuthConfigurations
    let environment: [String: String]
    var timeout: Duration = .seconds(300)

    func authorize(account: Account, clientID: String, announce: @escaping @Sendable (URL) -> Void) async throws -> OAuthTokens {
        let configuration = await configurations.configuration(for: OAuthProvider(signingInTo: account.provider), clientID: clientID)
        let verifier = PKCE.makeVerifier()
        let state = PKCE.randomURLSafe(bytes: 16)
        let receiver = try await LoopbackRedirectReceiver.start(state: state)
        let url = configuration.authorizationURL(
            clientID: clientID, redirectURI: receiver.redirectURI, state: state, challenge: PKCE.challenge(for: verifier),
            loginHint: account.emailAddress)
        announce(url)
        openBrowser(url)
        let answer: [String: String]
        do {
            answer = try await receiver.parameters(timeout: timeout)
        } catch {
            throw TernError.secretUnavailable("sign-in did not finish: \(error)")
        }
        if let error = answer["error"] {
            throw TernError.secretUnavailable("the provider refused sign-in: \(error)")
        }
        guard let code = answer["code"], !code.isEmpty else {
            throw TernError.secretUnavailable("the sign-in answer has no authorization code")
        }
        return try await OAuthTokenEndpoint(configuration: configuration)
            .exchange(code: code, redirectURI: receiver.redirectURI, clientID: clientID, verifier: verifier)
    }

    func refresh(_ tokens: OAuthTokens, clientID: String, provider: OAuthProvider) async throws -> OAuthTokens {
        try await OAuthTokenEndpoint(configuration: configurations.configuration(for: provider, clientID: clientID))
            .refresh(tokens, clientID: clientID)
    }

    /// Opens the URL with the desktop's browser when there is a desktop; otherwise the printed URL
    /// is the way (a remote shell, CI). `TERN_BROWSER` names another opener.
    private func openBrowser(_ url: URL) {
        let opener = environment["TERN_BROWSER"] ?? (environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil ? "xdg-open" : nil)
        guard let opener, !opener.isEmpty else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [opener, url.absoluteString]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
    }
}
