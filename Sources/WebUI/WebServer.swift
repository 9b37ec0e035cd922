import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import TernCore
import TernRuntime

/// `tern serve`'s settings. The app listens on 127.0.0.1 only: it shows a person's mail to whoever
/// reaches the port with the token, so it is never offered to the network.
public struct WebServerConfiguration: Sendable {
    public static let defaultPort = 8025

    public var host: String
    public var port: Int
    public var token: String
    /// Run the sync engine in the same process (initial sync, IDLE watch, queue and pending changes).
    public var runSync: Bool
    /// FR-COMP-01: the composer saves its draft this often while the content changes (30 s;
    /// `TERN_AUTOSAVE_SECONDS` shortens it for tests).
    public var autosaveSeconds: Int

    public init(host: String = "127.0.0.1", port: Int = defaultPort, token: String? = nil, runSync: Bool = true, autosaveSeconds: Int = 30) {
        self.host = host
        self.port = port
        self.token = token ?? WebSessionKeys.randomToken()
        self.runSync = runSync
        self.autosaveSeconds = autosaveSeconds
    }

    public static func autosaveSeconds(from environment: [String: String]) -> Int {
        environment["TERN_AUTOSAVE_SECONDS"].flatMap(Int.init).map { min(max($0, 1), 300) } ?? 30
    }

    /// `TERN_SERVE_TOKEN` fixes the token (scripts, tests); it must be long enough to guess no better
    /// than a random one.
    public static func token(from environment: [String: String]) throws(WebServerError) -> String? {
        guard let token = environment["TERN_SERVE_TOKEN"], !token.isEmpty else { return nil }
        guard token.count >= 16, token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw .weakToken
        }
        return token
    }
}

public enum WebServerError: Error, Sendable, Equatable {
    /// Only 127.0.0.1 is served.
    case notLoopback(String)
    case weakToken
    case portUnavailable(Int, String)
}

/// The web app: the routes over the use cases of one `TernServices`, the session guard, and the
/// sync engine beside them when asked. Runs until SIGINT or SIGTERM, then stops gracefully.
public struct TernWebServer: Sendable {
    let services: TernServices
    let configuration: WebServerConfiguration
    let state: WebState

    public init(services: TernServices, configuration: WebServerConfiguration) throws(WebServerError) {
        guard configuration.host == "127.0.0.1" else { throw .notLoopback(configuration.host) }
        self.services = services
        self.configuration = configuration
        self.state = WebState(changes: services.changes, home: services.home.url, autosaveSeconds: configuration.autosaveSeconds)
    }

    /// The router alone, for the in-process route tests (`port` is what Host and Origin must name;
    /// the tests' requests name `hosts`).
    func router(port: Int, hosts: Set<String>? = nil) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: hosts.map { LoopbackGuardMiddleware(hosts: $0) } ?? LoopbackGuardMiddleware(port: port))
        router.add(middleware: SessionMiddleware(keys: WebSessionKeys(token: configuration.token)))
        router.add(middleware: ErrorPageMiddleware())
        let routes = WebRoutes(services: services, state: state, csrfToken: WebSessionKeys(token: configuration.token).csrfToken)
        routes.register(on: router)
        return router
    }

    /// Serves until a signal; `onReady` gets the address with its token once the port is bound.
    public func run(onReady: @escaping @Sendable (String) -> Void) async throws {
        var logger = Logger(label: "tern.serve")
        logger.logLevel = .warning
        let configuration = self.configuration
        let app = Application(
            router: router(port: configuration.port),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            services: [state.follower] + (configuration.runSync ? [SyncEngineService(services: services)] : []),
            onServerRunning: { _ in onReady("http://\(configuration.host):\(configuration.port)/?token=\(configuration.token)") },
            logger: logger)
        try await app.runService()
    }
}
