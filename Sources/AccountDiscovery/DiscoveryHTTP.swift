import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import TernCore

/// The HTTPS GET of discovery's documents (autoconfig and the online database): TLS 1.2 or newer
/// verified against the system's trust store plus an optional extra CA file (the account's
/// `--ca-file`, as the mail servers trust it), no redirects (a document is where it is asked for),
/// no proxy, a deadline and a cap on the answer's size: the answering server is a stranger.
public struct DiscoveryHTTPFetcher: Sendable {
    public static let maxBytes = 128 * 1024

    let caFile: String?
    /// Issue 35's test hook, `TERN_DISCOVERY_RESOLVE=HOST:PORT[,HOST:PORT…]`: each HOST is reached
    /// on 127.0.0.1 at PORT (as curl's --resolve), its certificate still checked for HOST. For
    /// tests only: a test domain's autoconfig served by the test itself.
    let loopbackOverrides: [String: Int]
    let timeout: TimeAmount

    public init(caFile: String?, loopbackOverrides: [String: Int] = [:], timeout: TimeAmount = .seconds(10)) {
        self.caFile = caFile
        self.loopbackOverrides = loopbackOverrides
        self.timeout = timeout
    }

    /// `TERN_DISCOVERY_RESOLVE`'s entries; malformed ones are left out.
    public static func loopbackOverrides(environment: [String: String]) -> [String: Int] {
        var overrides: [String: Int] = [:]
        for entry in (environment["TERN_DISCOVERY_RESOLVE"] ?? "").split(separator: ",") {
            let parts = entry.split(separator: ":")
            guard parts.count == 2, let port = Int(parts[1]), (1...65535).contains(port) else { continue }
            overrides[parts[0].lowercased()] = port
        }
        return overrides
    }

    /// The body of a 200 answer; why there is none otherwise.
    public func get(_ url: URL) async -> Result<[UInt8], DiscoveryStepFailure> {
        guard url.scheme == "https", let host = url.host?.lowercased() else {
            return .failure(.unreachable(host: url.absoluteString, reason: "only https addresses are asked"))
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        tls.certificateVerification = .fullVerification
        if let caFile { tls.additionalTrustRoots = [.file(caFile)] }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: timeout))
        var target = url.absoluteString
        if let port = loopbackOverrides[host], var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            components.port = port
            target = components.url?.absoluteString ?? target
            configuration.dnsOverride = [host: "127.0.0.1"]
        } else if !(await Self.resolves(host)) {
            // AsyncHTTPClient retries an unknown host until its connect timeout; most domains have no
            // `autoconfig.` host, so that answer is taken at once.
            return .failure(.unreachable(host: host, reason: "no such host"))
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let result = await fetch(target, host: host, url: url, client: client)
        try? await client.shutdown()
        return result
    }

    func fetch(_ target: String, host: String, url: URL, client: HTTPClient) async -> Result<[UInt8], DiscoveryStepFailure> {
        var request = HTTPClientRequest(url: target)
        request.headers.add(name: "Accept", value: "application/xml, text/xml")
        request.headers.add(name: "User-Agent", value: "Tern")
        do {
            let response = try await client.execute(request, timeout: timeout)
            guard response.status == .ok else { return .failure(.httpStatus(url: url.absoluteString, status: Int(response.status.code))) }
            let body = try await response.body.collect(upTo: Self.maxBytes)
            return .success(Array(body.readableBytesView))
        } catch is NIOTooManyBytesError {
            return .failure(.malformed(what: url.absoluteString, reason: "the document is over \(Self.maxBytes) bytes"))
        } catch {
            return .failure(.unreachable(host: host, reason: Self.reason(error)))
        }
    }

    /// The system resolver knows the host (getaddrinfo, on NIO's thread pool as it blocks); any failure is a no.
    static func resolves(_ host: String) async -> Bool {
        do {
            _ = try await NIOThreadPool.singleton.runIfActive { try SocketAddress.makeAddressResolvingHost(host, port: 443) }
            return true
        } catch {
            return false
        }
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            if error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout { return "timed out" }
            return String(describing: error)
        }
        if let error = error as? NIOSSLError { return "TLS: \(error)" }
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        return String(describing: error)
    }
}
