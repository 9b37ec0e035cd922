import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// NFR-SYNC-05, shared by IMAP and SMTP: TLS 1.2 at least, the certificate chain and host name
/// always verified against the system's roots plus the account's optional CA file.
public enum TLSPolicy {
    /// Contexts by CA file (and its modification date, so a replaced file is read again): building
    /// one parses every system root, several milliseconds that each connection would otherwise pay.
    private static let contexts = NIOLockedValueBox<[String: NIOSSLContext]>([:])

    public static func clientContext(caFile: String?) throws(TransportFailure) -> NIOSSLContext {
        if let caFile { try CAFileOwnership.check(caFile) }
        let modified = caFile.flatMap { try? FileManager.default.attributesOfItem(atPath: $0)[.modificationDate] as? Date }
        let key = "\(caFile ?? "")\u{0}\(modified?.timeIntervalSince1970 ?? 0)"
        if let cached = contexts.withLockedValue({ $0[key] }) { return cached }
        let context = try makeContext(caFile: caFile)
        contexts.withLockedValue { $0[key] = context }
        return context
    }

    /// The same rules for HTTPS (issue 36's one-click unsubscribe): TLS 1.2 at least, full
    /// verification against the system's roots plus an optional CA file.
    public static func clientConfiguration(caFile: String?) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.certificateVerification = .fullVerification
        if let caFile {
            configuration.additionalTrustRoots = [.file(caFile)]
        }
        return configuration
    }

    static func makeContext(caFile: String?) throws(TransportFailure) -> NIOSSLContext {
        let configuration = clientConfiguration(caFile: caFile)
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw .tlsRefused("cannot use the CA file '\(caFile ?? "")': \(error)")
        }
    }

    /// SNI carries host names only (RFC 6066 section 3).
    public static func serverNameIndication(for host: String) -> String? {
        host.isIPAddress ? nil : host
    }
}

/// What went wrong below the protocol, in words a person can act on.
public enum TransportFailure: Error, Sendable, Hashable, CustomStringConvertible {
    case tlsRefused(String)
    case timeout(String)
    case network(String)
    case closed

    public var description: String {
        switch self {
        case .tlsRefused(let text): "TLS refused: \(text)"
        case .timeout(let text): "timed out: \(text)"
        case .network(let text): "network error: \(text)"
        case .closed: "the server closed the connection"
        }
    }

    /// An error of the connection itself (NIO, TLS, compression), as opposed to one the code using
    /// the connection threw (a credential that could not be had, a store that is full): only the
    /// former is the network's, to be worded and retried as such.
    public static func isTransport(_ error: any Error) -> Bool {
        error is TransportFailure || error is ChannelError || error is IOError || error is NIOSSLError || error is BoringSSLError
            || error is DeflateFailure || error is NIOConnectionError
    }

    /// The words of a refusal of a certificate no trusted root vouches for: the one refusal a person
    /// may overrule by trusting the certificate's fingerprint (issue 35).
    static let untrustedChain = "the server's certificate is not trusted"

    public static func isUntrustedChain(_ detail: String) -> Bool { detail.contains(untrustedChain) }

    /// Turns NIO and BoringSSL errors into failures that say what happened.
    public static func classify(_ error: any Error, host: String, port: Int, connectTimeout: Duration) -> TransportFailure {
        if let failure = error as? TransportFailure { return failure }
        let text = String(describing: error)
        let place = "\(host):\(port)"
        if error is NIOSSLError || error is BoringSSLError || text.contains("SSL") || text.contains("certificate") {
            if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate verify failed") {
                return .tlsRefused("\(place): \(untrustedChain) (self-signed, or signed by an unknown CA); use --ca-file to trust a private CA")
            }
            if text.contains("UNSUPPORTED_PROTOCOL") || text.contains("unsupported protocol") || text.contains("TLSV1_ALERT_PROTOCOL_VERSION")
                || text.contains("WRONG_VERSION_NUMBER")
            {
                return .tlsRefused("\(place): the server does not offer TLS 1.2 or newer")
            }
            if text.contains("failedToValidateHostname") || text.contains("hostname") {
                return .tlsRefused("\(place): the certificate is not for this host name")
            }
            if text.contains("uncleanShutdown") { return .closed }
            return .tlsRefused("\(place): TLS handshake failed (\(text))")
        }
        if let channelError = error as? ChannelError {
            switch channelError {
            case .connectTimeout: return .timeout("connecting to \(place) took over \(connectTimeout)")
            case .ioOnClosedChannel, .alreadyClosed, .eof, .outputClosed: return .closed
            default: return .network("\(place): \(channelError)")
            }
        }
        if let ioError = error as? IOError { return .network("\(place): \(ioError.description)") }
        if text.contains("Connection refused") { return .network("\(place): connection refused") }
        if text.contains("Name or service not known") || text.contains("Temporary failure in name resolution") {
            return .network("\(place): host name not found")
        }
        return .network("\(place): \(text)")
    }
}

extension Duration {
    /// For NIO's `TimeAmount`.
    public var timeAmount: TimeAmount {
        .nanoseconds(components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000)
    }
}

extension String {
    public var isIPAddress: Bool {
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        return withCString { inet_pton(AF_INET, $0, &ipv4) == 1 || inet_pton(AF_INET6, $0, &ipv6) == 1 }
    }
}
