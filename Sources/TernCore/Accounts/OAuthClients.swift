import Foundation

/// Issue 35: the OAuth 2.0 providers Tern signs in to in a browser. Tern ships no client id for
/// either: the person registers an app once per provider (`OAuthClientRegistration`).
public enum OAuthProvider: String, Sendable, Hashable, Codable, CaseIterable {
    case google
    case microsoft

    /// The account kind whose servers sign in with this provider.
    public var mailProvider: MailProvider {
        switch self {
        case .google: .gmail
        case .microsoft: .microsoft
        }
    }

    /// The provider an account of this kind signs in with; a generic server (`tern account add
    /// --oauth` against any server) keeps Google's flow with the endpoints the environment names,
    /// as before Microsoft was added.
    public init(signingInTo provider: MailProvider) {
        switch provider {
        case .gmail, .imap: self = .google
        case .microsoft: self = .microsoft
        }
    }

    /// The provider the servers of this kind sign in with, if they offer OAuth at all.
    public init?(offeredBy provider: MailProvider) {
        switch provider {
        case .gmail: self = .google
        case .microsoft: self = .microsoft
        case .imap: return nil
        }
    }

    public var displayName: String {
        switch self {
        case .google: "Google"
        case .microsoft: "Microsoft"
        }
    }

    /// Google's "Desktop app" clients must send their client secret to the token endpoint, though
    /// it is no secret in an installed app (RFC 8252 section 8.5); Microsoft's public clients
    /// ("Mobile and desktop applications") have none.
    public var usesClientSecret: Bool { self == .google }
}

/// The app a person registered with a provider for Tern (issue 35: stored once per provider and
/// used for every account of that provider; editable in Settings). The secret, where the provider
/// issues one to installed apps, is no secret (RFC 8252 section 8.5) and is stored beside the id.
public struct OAuthClientRegistration: Sendable, Hashable, Codable {
    public var provider: OAuthProvider
    public var clientID: String
    public var clientSecret: String?

    public init(provider: OAuthProvider, clientID: String, clientSecret: String? = nil) {
        self.provider = provider
        self.clientID = clientID.trimmingCharacters(in: .whitespacesAndNewlines)
        self.clientSecret = clientSecret.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A client id is printable ASCII without spaces (Google's `….apps.googleusercontent.com`,
    /// Microsoft's GUID); anything else was pasted by mistake.
    public static func isPlausible(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 256 && text.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && $0.value < 0x7F }
    }
}

/// Where the registrations live (the store's `oauthClient` table).
public protocol OAuthClientStore: Sendable {
    func registrations() async throws -> [OAuthClientRegistration]
    func save(_ registration: OAuthClientRegistration) async throws
    func remove(_ provider: OAuthProvider) async throws
}

extension OAuthClientStore {
    public func registration(for provider: OAuthProvider) async throws -> OAuthClientRegistration? {
        try await registrations().first { $0.provider == provider }
    }
}

/// Reads and changes the registrations for the Add account screen and Settings.
public struct OAuthClientsUseCase: Sendable {
    let store: any OAuthClientStore

    public init(store: any OAuthClientStore) { self.store = store }

    public func registrations() async throws -> [OAuthClientRegistration] { try await store.registrations() }

    public func registration(for provider: OAuthProvider) async throws -> OAuthClientRegistration? {
        try await store.registration(for: provider)
    }

    /// An empty client id forgets the provider's registration; accounts signed in with it keep
    /// their own copy of the id (`CredentialSource.oauth2`), which their refresh tokens are bound to.
    public func set(_ provider: OAuthProvider, clientID: String, clientSecret: String?) async throws {
        let registration = OAuthClientRegistration(provider: provider, clientID: clientID, clientSecret: clientSecret)
        if registration.clientID.isEmpty {
            try await store.remove(provider)
            return
        }
        guard OAuthClientRegistration.isPlausible(registration.clientID) else {
            throw TernError.invalidInput("the \(provider.displayName) client id has spaces or characters a client id never has")
        }
        try await store.save(registration)
    }
}
