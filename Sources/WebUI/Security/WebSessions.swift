import Crypto
import Foundation

/// The secrets of one `tern serve` process (issue 32). The token in the printed address is what a
/// person proves they may read the mail with; everything else is random per process, so nothing a
/// browser or another program kept from an earlier process, or could derive from a fixed
/// `TERN_SERVE_TOKEN`, opens this one.
///
/// Why a secret path: cookies are scoped by host, never by port, and every port of 127.0.0.1 is the
/// same site. A cookie with `Path=/` would reach any other local program listening on 127.0.0.1 as
/// soon as the browser is sent there. The app therefore lives under `/s/<random>/` and its cookie
/// names that path: another port receives it only if it knows the path, which is never printed,
/// logged or sent in a Referer (docs/decisions.md, "The web session").
struct WebAppSecrets: Sendable {
    /// What the printed address carries (`?token=`), exchanged once for a session.
    let token: String
    /// The app's root, `/s/<32 hex digits>/`: every page's `<base>` and the cookie's `Path`.
    let basePath: String
    /// Sent back by every request that changes something (a header from the app's script, a form
    /// field from a page without script).
    let csrfToken: String

    init(token: String, basePath: String = "/s/\(Self.randomHex(bytes: 16))/", csrfToken: String = Self.randomHex(bytes: 32)) {
        self.token = token
        self.basePath = basePath
        self.csrfToken = csrfToken
    }

    /// A path of the app (`/mail?…`) as the browser must ask for it (`/s/…/mail?…`). A path already
    /// under the base is left as it is.
    func publicPath(_ appPath: String) -> String {
        guard appPath.hasPrefix("/"), !appPath.hasPrefix(basePath) else { return appPath }
        return basePath + appPath.dropFirst()
    }

    /// The app's path for a request's path under the base (`/s/…/mail` → `/mail`), or nil when the
    /// request is not under it.
    func appPath(forPublicPath path: Substring) -> Substring? {
        if path == basePath.dropLast() { return "/" }
        guard path.hasPrefix(basePath) else { return nil }
        return path.dropFirst(basePath.count - 1)
    }

    static func randomHex(bytes: Int) -> String {
        SymmetricKey(size: SymmetricKeySize(bitCount: bytes * 8)).withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
    }

    /// Compared in time independent of where the strings differ.
    static func constantTimeEquals(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}

/// How long a signed-in browser stays signed in (issue 32; docs/decisions.md, "The web session").
public struct WebSessionLifetime: Sendable, Equatable {
    /// A session unused this long ends: a tab left open keeps it alive through its change feed.
    public var idle: TimeInterval
    /// A session ends this long after the token was exchanged, used or not.
    public var absolute: TimeInterval

    public static let standard = WebSessionLifetime(idle: 12 * 3600, absolute: 7 * 24 * 3600)

    public init(idle: TimeInterval, absolute: TimeInterval) {
        self.idle = idle
        self.absolute = absolute
    }

    /// `TERN_SERVE_SESSION_IDLE_SECONDS` and `TERN_SERVE_SESSION_MAX_SECONDS` shorten them (tests,
    /// shared machines); neither can be longer than the standard.
    public static func from(environment: [String: String]) -> WebSessionLifetime {
        func seconds(_ name: String, _ standard: TimeInterval) -> TimeInterval {
            environment[name].flatMap(TimeInterval.init).map { min(max($0, 1), standard) } ?? standard
        }
        return WebSessionLifetime(
            idle: seconds("TERN_SERVE_SESSION_IDLE_SECONDS", Self.standard.idle),
            absolute: seconds("TERN_SERVE_SESSION_MAX_SECONDS", Self.standard.absolute))
    }
}

/// The signed-in browsers of this process. A session's value is 32 random bytes, new at every token
/// exchange; only its SHA-256 is kept, so a lookup's timing says nothing about a valid value.
actor WebSessions {
    struct Session {
        var opened: Date
        var lastUsed: Date
    }

    /// More than this many live sessions: the least recently used ends (each exchange makes one).
    static let limit = 64

    let lifetime: WebSessionLifetime
    private let now: @Sendable () -> Date
    private var sessions: [Data: Session] = [:]

    init(lifetime: WebSessionLifetime, now: @escaping @Sendable () -> Date = Date.init) {
        self.lifetime = lifetime
        self.now = now
    }

    /// A new session for a browser that showed the token; `replacing` ends the one it had.
    func open(replacing old: [String] = []) -> String {
        for value in old { sessions[Self.key(value)] = nil }
        let value = WebAppSecrets.randomHex(bytes: 32)
        let time = now()
        sessions = sessions.filter { !isExpired($0.value, at: time) }
        sessions[Self.key(value)] = Session(opened: time, lastUsed: time)
        if sessions.count > Self.limit, let oldest = sessions.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key {
            sessions[oldest] = nil
        }
        return value
    }

    /// Whether one of the offered values is a live session; using it keeps it alive.
    func isValid(_ offered: [String]) -> Bool {
        let time = now()
        for value in offered {
            let key = Self.key(value)
            guard let session = sessions[key] else { continue }
            if isExpired(session, at: time) {
                sessions[key] = nil
                continue
            }
            sessions[key]?.lastUsed = time
            return true
        }
        return false
    }

    private func isExpired(_ session: Session, at time: Date) -> Bool {
        time.timeIntervalSince(session.lastUsed) > lifetime.idle || time.timeIntervalSince(session.opened) > lifetime.absolute
    }

    private static func key(_ value: String) -> Data { Data(SHA256.hash(data: Data(value.utf8))) }
}
