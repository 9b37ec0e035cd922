import Foundation
import Testing

@testable import TernCore

/// Issue 35: one registration per provider, trimmed; an empty client id forgets it; a client id
/// with spaces or controls is refused.
struct OAuthClientsTests {
    actor MemoryClients: OAuthClientStore {
        var stored: [OAuthProvider: OAuthClientRegistration] = [:]
        func registrations() async throws -> [OAuthClientRegistration] { stored.values.sorted { $0.provider.rawValue < $1.provider.rawValue } }
        func save(_ registration: OAuthClientRegistration) async throws { stored[registration.provider] = registration }
        func remove(_ provider: OAuthProvider) async throws { stored[provider] = nil }
    }

    @Test func oneRegistrationPerProviderEmptyForgetsIt() async throws {
        let clients = OAuthClientsUseCase(store: MemoryClients())
        try await clients.set(.google, clientID: " 123.apps.googleusercontent.com\n", clientSecret: " GOCSPX-x ")
        try await clients.set(.microsoft, clientID: "00000000-1111-2222-3333-444444444444", clientSecret: "")
        #expect(
            try await clients.registration(for: .google)
                == OAuthClientRegistration(provider: .google, clientID: "123.apps.googleusercontent.com", clientSecret: "GOCSPX-x"))
        #expect(try await clients.registration(for: .microsoft)?.clientSecret == nil)
        try await clients.set(.google, clientID: "other", clientSecret: nil)
        #expect(try await clients.registrations().map(\.clientID) == ["other", "00000000-1111-2222-3333-444444444444"])
        try await clients.set(.google, clientID: "  ", clientSecret: nil)
        #expect(try await clients.registration(for: .google) == nil)
        await #expect(throws: TernError.self) { try await clients.set(.microsoft, clientID: "two words", clientSecret: nil) }
        #expect(try await clients.registration(for: .microsoft)?.clientID == "00000000-1111-2222-3333-444444444444")
    }

    @Test func eachProviderIsItsAccountKind() {
        #expect(OAuthProvider.google.mailProvider == .gmail && OAuthProvider.microsoft.mailProvider == .microsoft)
        #expect(OAuthProvider.google.usesClientSecret && !OAuthProvider.microsoft.usesClientSecret)
    }
}
