import Assist
import Foundation
import Synchronization
import TernCore
import Testing

@testable import TernRuntime

/// The assist provider the settings choose, read on every call; an endpoint off this machine only
/// when `assist-allow-remote` says yes (PLATFORM.md: never a third-party service by default).
@Suite(.timeLimit(.minutes(1)))
struct LiveAssistTests {
    /// Settings kept in memory.
    final class Settings: SettingsStore {
        private let stored: Mutex<[SettingKey: String]>

        init(_ values: [SettingKey: String]) { stored = Mutex(values) }

        func values() async throws -> [SettingKey: String] { stored.withLock { $0 } }
        func setValue(_ value: String, for key: SettingKey) async throws { stored.withLock { $0[key] = value } }
        func removeValue(for key: SettingKey) async throws { _ = stored.withLock { $0.removeValue(forKey: key) } }
    }

    static func providers(_ settings: Settings, log: @escaping @Sendable (String) -> Void = { _ in }) -> SettingsAssistProviders {
        SettingsAssistProviders(settings: settings, timeoutSeconds: 1, log: log)
    }

    @Test func theProviderFollowsTheSettingOnEveryCall() async throws {
        let settings = Settings([.assistProvider: "off"])
        let providers = Self.providers(settings)
        #expect(await providers.currentProvider() == nil)
        try await settings.setValue("builtin", for: .assistProvider)
        #expect(await providers.currentProvider() is BuiltInAssistProvider)
        try await settings.setValue("endpoint", for: .assistProvider)
        try await settings.setValue("http://127.0.0.1:8080/v1", for: .assistEndpoint)
        #expect(await providers.currentProvider() is OpenAICompatibleProvider)
    }

    @Test func aRemoteEndpointIsRefusedUnlessAllowedAndTheRefusalIsLogged() async throws {
        let logged = Mutex<[String]>([])
        let settings = Settings([.assistProvider: "endpoint", .assistEndpoint: "https://assist.example.com/v1"])
        let providers = Self.providers(settings) { line in logged.withLock { $0.append(line) } }
        #expect(await providers.currentProvider() == nil)
        #expect(logged.withLock { $0 }.count == 1 && logged.withLock { $0 }.first?.contains("assist.example.com") == true)
        try await settings.setValue("yes", for: .assistAllowRemote)
        #expect(await providers.currentProvider() is OpenAICompatibleProvider)
    }

    @Test func anEndpointThatIsNoAddressIsRefused() throws {
        var settings = TernSettings()
        settings.assistEndpoint = "not a url"
        #expect(throws: AssistFailure.endpointInvalid("not a url")) { _ = try SettingsAssistProviders.endpointProvider(settings) }
    }
}
