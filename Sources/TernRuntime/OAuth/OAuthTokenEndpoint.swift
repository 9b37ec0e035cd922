import AsyncHTTPClient
import Foundation
import NIOCore
import TernCore

/// Each provider's configuration for a client id: the environment's overrides, and the client
/// secret the environment names or else the one stored with the person's registration of that very
/// client id (a secret belongs to its client id; an account signed in with an earlier id gets none).
struct OAuthConfigurations: Sendable {
    let environment: [String: String]
    let clients: (any OAuthClientStore)?

    func configuration(for provider: OAuthProvider, clientID: String) async -> OAuthConfiguration {
        var configuration = OAuthConfiguration.forProvider(provider, environment: environment)
        if configuration.clientSecret == nil, let registration = try? await clients?.registration(for: provider),
            registration.clientID == clientID
        {
            configuration.clientSecret = registration.clientSecret
        }
        return configuration
    }
}

/// RFC 6749 section 3.2: the token endpoint, for the code exchange (section 4.1.3, with RFC 7636's
/// verifier) and the refresh (section 6). Its errors are the core's: `invalid_grant` is
/// `authenticationExpired` (sign in again), anything else a server failure.
struct OAuthTokenEndpoint: Sendable {
    let configuration: OAuthConfiguration

    func exchange(code: String, redirectURI: String, clientID: String, verifier: String) async throws -> OAuthTokens {
        try await request(
            [
                "grant_type": "authorization_code", "code": code, "redirect_uri": redirectURI, "client_id": clientID,
                "code_verifier": verifier
            ], previous: nil)
    }

    func refresh(_ tokens: OAuthTokens, clientID: String) async throws -> OAuthTokens {
        guard let refreshToken = tokens.refreshToken else {
            throw TernError.authenticationExpired("the access token expired and there is no refresh token; sign in again")
        }
        return try await request(["grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": clientID], previous: tokens)
    }

    private struct TokenResponse: Decodable {
        var accessToken: String?
        var refreshToken: String?
        var expiresIn: Double?
        var error: String?
        var errorDescription: String?
    }

    private func request(_ fields: [String: String], previous: OAuthTokens?) async throws -> OAuthTokens {
        var fields = fields
        if let secret = configuration.clientSecret { fields["client_secret"] = secret }
        // AsyncHTTPClient on the process's event loops, the one HTTP client discovery uses too, rather than a
        // second stack (URLSession over libcurl) for this one request.
        var request = HTTPClientRequest(url: configuration.tokenEndpoint.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: Self.formEncode(fields)))
        let data: Data
        let status: Int
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            status = Int(response.status.code)
            data = Data(try await response.body.collect(upTo: Self.largestResponse).readableBytesView)
        } catch {
            throw TernError.serverFailure("cannot reach the token endpoint \(configuration.tokenEndpoint.host ?? ""): \(error)")
        }
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

    /// A token response is a few kilobytes; more is not one.
    static let largestResponse = 1 << 20

    static func formEncode(_ fields: [String: String]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.sorted { $0.key < $1.key }.map { key, value in
            "\(key)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&")
    }
}
