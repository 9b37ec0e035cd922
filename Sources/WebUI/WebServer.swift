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
    /// How long a signed-in browser stays signed in (issue 32).
    public var sessionLifetime: WebSessionLifetime

    public init(
        host: String = "127.0.0.1", port: Int = defaultPort, token: String? = nil, runSync: Bool = true, autosaveSeconds: Int = 30,
        sessionLifetime: WebSessionLifetime = .standard
    ) {
        self.host = host
        self.port = port
        self.token = token ?? WebAppSecrets.randomHex(bytes: 32)
        self.runSync = runSync
        self.autosaveSeconds = autosaveSeconds
        self.sessionLifetime = sessionLifetime
    }

    /// The address a person opens: the token is exchanged there for a session and a redirect into
    /// the app's secret path.
    public var signInAddress: String { "http://\(host):\(port)/?token=\(token)" }
    /// The address without its secret, for logs (issue 32: the journal never holds the token).
    public var publicAddress: String { "http://\(host):\(port)/" }

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
    let secrets: WebAppSecrets
    let sessions: WebSessions

    public init(services: TernServices, configuration: WebServerConfiguration) throws(WebServerError) {
        try self.init(services: services, configuration: configuration, now: Date.init)
    }

    /// `now`: the sessions' clock (the route tests move it instead of waiting).
    init(services: TernServices, configuration: WebServerConfiguration, now: @escaping @Sendable () -> Date) throws(WebServerError) {
        guard configuration.host == "127.0.0.1" else { throw .notLoopback(configuration.host) }
        self.services = services
        self.configuration = configuration
        self.state = WebState(changes: services.changes, home: services.home.url, autosaveSeconds: configuration.autosaveSeconds)
        self.secrets = WebAppSecrets(token: configuration.token)
        self.sessions = WebSessions(lifetime: configuration.sessionLifetime, now: now)
    }

    /// The app as one responder, for `run` and the in-process route tests (`port` is what Host and
    /// Origin must name; the tests' requests name `hosts`). The guards stand in front of the router:
    /// Hummingbird runs a router's own middleware after the route is chosen, too late to take the
    /// secret base off the path.
    func responder(port: Int, hosts: Set<String>? = nil) -> GuardedResponder<RouterResponder<BasicRequestContext>> {
        var loopback = hosts.map { LoopbackGuardMiddleware<BasicRequestContext>(hosts: $0) } ?? LoopbackGuardMiddleware(port: port)
        loopback.oauthCallback = OAuthCallbackHandoff(signIns: state.oauthSignIns, secrets: secrets)
        return GuardedResponder(
            loopback: loopback, session: SessionMiddleware(secrets: secrets, sessions: sessions), router: router().buildResponder())
    }

    /// Every route, behind the core's error pages.
    func router() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: ErrorPageMiddleware())
        WebRoutes(services: services, state: state, page: PageSecrets(csrfToken: secrets.csrfToken, basePath: secrets.basePath)).register(on: router)
        return router
    }

    /// Serves until a signal; `onReady` is called once the port is bound.
    public func run(onReady: @escaping @Sendable () -> Void) async throws {
        var logger = Logger(label: "tern.serve")
        logger.logLevel = .warning
        let configuration = self.configuration
        let app = Application(
            responder: responder(port: configuration.port),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            services: ([state.syncStatuses.follower, ScheduledSendService(services: services)] as [any Service])
                + (configuration.runSync ? [SyncEngineService(services: services)] : []),
            onServerRunning: { _ in onReady() },
            logger: logger)
        try await app.runService()
    }
}

/// Host and origin checked first, then the session (which takes the secret base off the path), then
/// the route.
struct GuardedResponder<Router: HTTPResponder>: HTTPResponder where Router.Context == BasicRequestContext {
    let loopback: LoopbackGuardMiddleware<BasicRequestContext>
    let session: SessionMiddleware<BasicRequestContext>
    let router: Router

    func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        try await loopback.handle(request, context: context) { request, context in
            try await session.handle(request, context: context) { request, context in try await router.respond(to: request, context: context) }
        }
    }
}
