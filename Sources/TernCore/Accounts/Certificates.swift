import Foundation

/// A certificate's SHA-256 fingerprint (over its DER bytes), as people read and type it:
/// `SHA256:AB:CD:…` (issue 35, "Certificates a person can judge"). Stored as lowercase hex.
public struct CertificateFingerprint: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 64 lowercase hex digits.
    public let hex: String

    /// Takes `SHA256:<hex>`, with or without colons between the pairs, any case; nil for anything else.
    public init?(_ text: String) {
        var body = Substring(text.trimmingCharacters(in: .whitespaces))
        if body.lowercased().hasPrefix("sha256:") { body = body.dropFirst("sha256:".count) }
        let hex = body.filter { $0 != ":" }.lowercased()
        guard hex.count == 64, hex.allSatisfy(\.isHexDigit) else { return nil }
        self.hex = hex
    }

    public var description: String {
        var pairs: [String] = []
        var rest = Substring(hex.uppercased())
        while !rest.isEmpty {
            pairs.append(String(rest.prefix(2)))
            rest = rest.dropFirst(2)
        }
        return "SHA256:" + pairs.joined(separator: ":")
    }
}

/// A certificate trusted for one server only: its host and port, and the leaf's fingerprint.
public struct PinnedCertificate: Sendable, Hashable, Codable {
    public var host: String
    public var port: Int
    public var fingerprint: CertificateFingerprint

    public init(host: String, port: Int, fingerprint: CertificateFingerprint) {
        self.host = host
        self.port = port
        self.fingerprint = fingerprint
    }

    public init(_ endpoint: ServerEndpoint, fingerprint: CertificateFingerprint) {
        self.init(host: endpoint.host, port: endpoint.port, fingerprint: fingerprint)
    }

    public func isFor(_ endpoint: ServerEndpoint) -> Bool {
        host.lowercased() == endpoint.host.lowercased() && port == endpoint.port
    }

    /// The stored form: one `host port hex` line each.
    public static func encodeList(_ pins: [PinnedCertificate]) -> String {
        pins.map { "\($0.host) \($0.port) \($0.fingerprint.hex)" }.joined(separator: "\n")
    }

    public static func decodeList(_ text: String) -> [PinnedCertificate] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 3, let port = Int(fields[1]), let fingerprint = CertificateFingerprint(String(fields[2])) else { return nil }
            return PinnedCertificate(host: String(fields[0]), port: port, fingerprint: fingerprint)
        }
    }
}

/// What a server presented that does not chain to a trusted root, for a person to judge: the
/// server, the certificate's subject, issuer, validity and fingerprint.
public struct ServerCertificate: Sendable, Hashable, Codable {
    public var host: String
    public var port: Int
    public var subject: String
    public var issuer: String
    public var notValidBefore: Date
    public var notValidAfter: Date
    public var fingerprint: CertificateFingerprint

    public init(
        host: String, port: Int, subject: String, issuer: String, notValidBefore: Date, notValidAfter: Date,
        fingerprint: CertificateFingerprint
    ) {
        self.host = host
        self.port = port
        self.subject = subject
        self.issuer = issuer
        self.notValidBefore = notValidBefore
        self.notValidAfter = notValidAfter
        self.fingerprint = fingerprint
    }

    public var pin: PinnedCertificate { PinnedCertificate(host: host, port: port, fingerprint: fingerprint) }

    public func isValid(at date: Date) -> Bool { notValidBefore <= date && date <= notValidAfter }
}

/// `tern account add … --trust-certificate SHA256:<hex>`: each fingerprint is pinned for the
/// account's servers that present it (IMAP, SMTP, or both when they share a certificate), so a pin
/// is never kept for a server that shows another certificate. A fingerprint no server presents is
/// refused with what each presented.
public struct TrustCertificatesUseCase: Sendable {
    let probe: any ServerProbe

    public init(probe: any ServerProbe) {
        self.probe = probe
    }

    public func pins(
        for fingerprints: [CertificateFingerprint], imap: ServerEndpoint, smtp: ServerEndpoint, caFile: String?
    ) async throws -> [PinnedCertificate] {
        guard !fingerprints.isEmpty else { return [] }
        async let imapCertificate = probe.presentedCertificate(of: imap, role: .imap, caFile: caFile)
        async let smtpCertificate = probe.presentedCertificate(of: smtp, role: .smtp, caFile: caFile)
        let presented = [(imap, await imapCertificate), (smtp, await smtpCertificate)]
        var pins: [PinnedCertificate] = []
        for fingerprint in fingerprints {
            let matching = presented.filter { $0.1?.fingerprint == fingerprint }
            guard !matching.isEmpty else {
                let seen = presented.map { endpoint, certificate in
                    let shown = certificate.map { "\($0.fingerprint) (\($0.subject))" } ?? "no certificate Tern could read"
                    return "\(endpoint.host):\(endpoint.port) presents \(shown)"
                }
                throw TernError.invalidInput("no server of the account presents the certificate \(fingerprint): " + seen.joined(separator: "; "))
            }
            pins += matching.map { PinnedCertificate($0.0, fingerprint: fingerprint) }
        }
        return pins
    }
}
