import Assist
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TernCore

/// The endpoint provider's HTTP on AsyncHTTPClient: one client for the process, redirects refused
/// (a redirect could carry the prompt, the user's mail, to another host), no proxy, a deadline per
/// exchange and a cap on the answer's size (issue 19: a hostile or broken server answers anything).
public struct AsyncHTTPAssistTransport: AssistHTTPTransport {
    /// Process-wide and never shut down: it lives as long as the process that uses it.
    static let client = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5))))

    public init() {}

    public func exchange(url: URL, body: Data?, timeoutSeconds: Double, maxBytes: Int) async throws -> (status: Int, body: Data) {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "application/json")
        if let body {
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response: HTTPClientResponse
        do {
            response = try await Self.client.execute(request, timeout: .milliseconds(Int64(timeoutSeconds * 1000)))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            throw AssistFailure.timedOut
        } catch {
            throw AssistFailure.unreachable(String(describing: error))
        }
        do {
            let bytes = try await response.body.collect(upTo: maxBytes)
            return (Int(response.status.code), Data(bytes.readableBytesView))
        } catch is NIOTooManyBytesError {
            throw AssistFailure.malformedAnswer("the answer is over \(maxBytes) bytes")
        } catch {
            throw AssistFailure.unreachable(String(describing: error))
        }
    }
}

/// The provider the settings choose (`tern settings set assist builtin|endpoint|off`), read on
/// every call so a change applies at once. An endpoint off this machine is refused unless
/// `assist-allow-remote` is yes (PLATFORM.md: never a third-party service by default).
public struct SettingsAssistProviders: AssistProviderSource {
    let settings: any SettingsStore
    let transport: any AssistHTTPTransport
    let timeoutSeconds: Double
    let log: @Sendable (String) -> Void

    public init(
        settings: any SettingsStore, transport: any AssistHTTPTransport = AsyncHTTPAssistTransport(), timeoutSeconds: Double,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.settings = settings
        self.transport = transport
        self.timeoutSeconds = timeoutSeconds
        self.log = log
    }

    public func currentProvider() async -> (any AssistProvider)? {
        let current = (try? await settings.settings()) ?? TernSettings()
        switch current.assistProvider {
        case .off: return nil
        case .builtin: return BuiltInAssistProvider()
        case .endpoint:
            do { return try Self.endpointProvider(current, transport: transport, timeoutSeconds: timeoutSeconds) } catch {
                log("assist: \(error)")
                return nil
            }
        }
    }

    /// The Settings screen's "Test connection": the models the configured endpoint lists.
    public static func testEndpoint(_ settings: TernSettings) async throws -> [String] {
        try await endpointProvider(settings, timeoutSeconds: 10).testConnection()
    }

    /// The configured endpoint's provider, or why it may not be used.
    public static func endpointProvider(
        _ settings: TernSettings, transport: any AssistHTTPTransport = AsyncHTTPAssistTransport(),
        timeoutSeconds: Double = 60
    ) throws(AssistFailure) -> OpenAICompatibleProvider {
        guard let address = AssistEndpointAddress(settings.assistEndpoint) else { throw .endpointInvalid(settings.assistEndpoint) }
        guard address.isLoopback || settings.assistAllowRemote else { throw .endpointNotLocal(address.host) }
        return OpenAICompatibleProvider(endpoint: address, model: settings.assistModel, transport: transport, timeoutSeconds: timeoutSeconds)
    }
}
