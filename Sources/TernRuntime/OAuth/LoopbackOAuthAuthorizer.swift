import Foundation
import TernCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The installed-app flow (RFC 8252) with PKCE (RFC 7636): the authorization URL is announced (and
/// opened in a browser when one is available), the answer comes to a loopback listener, the code
/// is exchanged for tokens at the token endpoint. Refresh uses the refresh token (RFC 6749 section 6).
struct LoopbackOAuthAuthorizer: OAuthAuthorizer {
    let configuration: OAuthConfiguration
    let environment: [String: String]
    var timeout: Duration = .seconds(300)

    func authorize(account: Account, clientID: String, announce: @escaping @Sendable (URL) -> Void) async throws -> OAuthTokens {
        let verifier = PKCE.makeVerifier()
        let state = PKCE.randomURLSafe(bytes: 16)
        let receiver = try await LoopbackRedirectReceiver.start(state: state)
        var components = URLComponents(url: configuration.authorizationEndpoint, resolvingAgainstBaseURL: false)!
        let query = Self.formEncode([
            "response_type": "code", "client_id": clientID, "redirect_uri": receiver.redirectURI, "scope": configuration.scope,
            "code_challenge": PKCE.challenge(for: verifier), "code_challenge_method": "S256", "state": state,
            "login_hint": account.emailAddress,
            // Google returns a refresh token only with offline access and consent.
            "access_type": "offline", "prompt": "consent"
        ])
        components.percentEncodedQuery = [components.percentEncodedQuery, query].compactMap { $0 }.joined(separator: "&")
        let url = components.url!
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
        return try await tokenRequest(
            [
                "grant_type": "authorization_code", "code": code, "redirect_uri": receiver.redirectURI,
                "client_id": clientID, "code_verifier": verifier
            ], previous: nil)
    }

    func refresh(_ tokens: OAuthTokens, clientID: String) async throws -> OAuthTokens {
        guard let refreshToken = tokens.refreshToken else {
            throw TernError.authenticationExpired("the access token expired and there is no refresh token; sign in again")
        }
        return try await tokenRequest(["grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": clientID], previous: tokens)
    }

    private struct TokenResponse: Decodable {
        var accessToken: String?
        var refreshToken: String?
        var expiresIn: Double?
        var error: String?
        var errorDescription: String?
    }

    private func tokenRequest(_ fields: [String: String], previous: OAuthTokens?) async throws -> OAuthTokens {
        var fields = fields
        if let secret = configuration.clientSecret { fields["client_secret"] = secret }
        var request = URLRequest(url: configuration.tokenEndpoint, timeoutInterval: 30)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.httpBody = Data(Self.formEncode(fields).utf8)
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw TernError.serverFailure("cannot reach the token endpoint \(configuration.tokenEndpoint.host ?? ""): \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase // RFC 6749's snake_case fields
        let decoded = try? decoder.decode(TokenResponse.self, from: data)
        guard status == 200, let decoded, let accessToken = decoded.accessToken else {
            let reason = [decoded?.error, decoded?.errorDescription].compactMap { $0 }.joined(separator: ": ")
            if decoded?.error == "invalid_grant" {
                throw TernError.authenticationExpired("the provider no longer accepts this sign-in (\(reason)); sign in again")
            }
            throw TernError.serverFailure("token endpoint answered HTTP \(status)\(reason.isEmpty ? "" : ": \(reason)")")
        }
        return OAuthTokens(
            accessToken: accessToken, refreshToken: decoded.refreshToken ?? previous?.refreshToken,
            expiresAt: decoded.expiresIn.map { Date().addingTimeInterval($0) })
    }

    static func formEncode(_ fields: [String: String]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.sorted { $0.key < $1.key }.map { key, value in
            "\(key)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&")
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
