import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// Which certificates a connection accepts (issue 35, "Certificates a person can judge").
public enum CertificateTrust: Sendable, Hashable {
    /// NFR-SYNC-05: the chain verified against the system's roots plus the account's CA file.
    case verified
    /// The person trusted this server's certificate by its SHA-256 fingerprint (lowercase hex of the
    /// DER leaf): only that leaf is accepted, within its validity dates, for the server's host name
    /// (checked as for any certificate). Nothing else is: a changed certificate is refused, never
    /// silently taken.
    case pinned(sha256: String)
    /// Accepts no certificate; the leaf the server presented is recorded, so a person can be shown
    /// what they are asked to trust. The handshake always fails, before a byte of the protocol.
    case inspect
}

/// A server's leaf certificate as a person judges it: who it names, who signed it, when it is
/// valid, and its SHA-256 fingerprint (what `tern account add --trust-certificate` takes).
public struct PresentedCertificate: Sendable, Hashable {
    public var subject: String
    public var issuer: String
    public var notValidBefore: Date
    public var notValidAfter: Date
    /// Lowercase hex of SHA-256 over the DER certificate.
    public var sha256: String

    public init(subject: String, issuer: String, notValidBefore: Date, notValidAfter: Date, sha256: String) {
        self.subject = subject
        self.issuer = issuer
        self.notValidBefore = notValidBefore
        self.notValidAfter = notValidAfter
        self.sha256 = sha256
    }

    init(_ certificate: NIOSSLCertificate) throws {
        let der = try certificate.toDERBytes()
        let names = CertificateNames(der: der)
        self.init(
            subject: names?.subject ?? "(unreadable)", issuer: names?.issuer ?? "(unreadable)",
            notValidBefore: Date(timeIntervalSince1970: TimeInterval(certificate.notValidBefore)),
            notValidAfter: Date(timeIntervalSince1970: TimeInterval(certificate.notValidAfter)),
            sha256: SHA256.hash(data: der).map { String(format: "%02x", $0) }.joined())
    }

    public func isValid(at date: Date) -> Bool { notValidBefore <= date && date <= notValidAfter }

    /// `SHA256:AB:CD:…`, the form people compare with what their server's administrator reads out.
    public var fingerprintText: String { Self.fingerprintText(sha256) }

    public static func fingerprintText(_ sha256: String) -> String {
        var pairs: [String] = []
        var index = sha256.startIndex
        while index < sha256.endIndex {
            let next = sha256.index(index, offsetBy: 2, limitedBy: sha256.endIndex) ?? sha256.endIndex
            pairs.append(sha256[index..<next].uppercased())
            index = next
        }
        return "SHA256:" + pairs.joined(separator: ":")
    }
}

/// The last certificate a server presented on a connection with a custom check (`.pinned`,
/// `.inspect`): what the refusal of a changed certificate names, and what an inspection returns.
/// A reference shared by the copies of one `MailServer`, and left out of its equality: it is what
/// was seen, not part of where or how to connect.
public final class PresentedCertificateRecord: Sendable, Hashable {
    private let latest = NIOLockedValueBox<PresentedCertificate?>(nil)

    public init() {}

    public var certificate: PresentedCertificate? { latest.withLockedValue { $0 } }

    func record(_ certificate: PresentedCertificate) { latest.withLockedValue { $0 = certificate } }

    public static func == (lhs: PresentedCertificateRecord, rhs: PresentedCertificateRecord) -> Bool { true }
    public func hash(into hasher: inout Hasher) {}
}

extension TLSPolicy {
    /// The TLS handler for `server`, for implicit TLS and STARTTLS alike: BoringSSL's verification
    /// for `.verified`; for `.pinned` and `.inspect`, a verification callback that accepts only the
    /// pinned leaf (swift-nio-ssl then still checks the host name, as the context asks for full
    /// verification) and records what was presented.
    public static func clientHandler(context: NIOSSLContext, serverHostname: String?, server: MailServer) throws -> NIOSSLClientHandler {
        switch server.certificateTrust {
        case .verified:
            return try NIOSSLClientHandler(context: context, serverHostname: serverHostname)
        case .pinned, .inspect:
            let trust = server.certificateTrust
            let record = server.presentedCertificate
            return try NIOSSLClientHandler(
                context: context, serverHostname: serverHostname,
                customVerificationCallback: { chain, promise in
                    promise.succeed(Self.judge(chain.first, trust: trust, record: record, now: Date()))
                })
        }
    }

    static func judge(_ leaf: NIOSSLCertificate?, trust: CertificateTrust, record: PresentedCertificateRecord, now: Date)
        -> NIOSSLVerificationResult
    {
        guard let leaf, let presented = try? PresentedCertificate(leaf) else { return .failed }
        record.record(presented)
        guard case .pinned(let pin) = trust, presented.sha256 == pin.lowercased(), presented.isValid(at: now) else { return .failed }
        return .certificateVerified
    }

    /// The words for a refused pinned certificate: both fingerprints when it changed, the date when
    /// it expired. Nil when nothing was recorded (the handshake failed before a certificate).
    static func pinnedRefusal(server: MailServer) -> String? {
        guard case .pinned(let pin) = server.certificateTrust, let presented = server.presentedCertificate.certificate else { return nil }
        if presented.sha256 != pin.lowercased() {
            return "\(server.place): the server's certificate changed. Trusted: \(PresentedCertificate.fingerprintText(pin.lowercased())); "
                + "now presented: \(presented.fingerprintText) (subject \(presented.subject), issued by \(presented.issuer)). "
                + "Tern refuses it; trust the new one only if you know why it changed"
        }
        if !presented.isValid(at: Date()) {
            return "\(server.place): the trusted certificate is valid only from \(presented.notValidBefore) to \(presented.notValidAfter)"
        }
        return nil
    }
}

/// The subject and issuer of a DER certificate (RFC 5280 section 4.1), read as far as they go:
/// `CN=…, O=…` in the order the certificate lists them. Only for showing; nothing is decided on them.
struct CertificateNames {
    var subject: String
    var issuer: String

    init?(der: [UInt8]) {
        var reader = DERReader(der[...])
        guard let certificate = reader.next(), certificate.tag == 0x30 else { return nil }
        var certificateBody = DERReader(certificate.content)
        guard let tbs = certificateBody.next(), tbs.tag == 0x30 else { return nil }
        var fields = DERReader(tbs.content)
        var element = fields.next()
        if element?.tag == 0xA0 { element = fields.next() } // [0] version
        // serial (element), signature algorithm, issuer, validity, subject
        guard element?.tag == 0x02, fields.next()?.tag == 0x30, let issuer = fields.next(), fields.next() != nil,
            let subject = fields.next()
        else { return nil }
        self.subject = Self.name(subject.content)
        self.issuer = Self.name(issuer.content)
    }

    /// Name ::= SEQUENCE OF RelativeDistinguishedName (SET OF AttributeTypeAndValue).
    static func name(_ bytes: ArraySlice<UInt8>) -> String {
        var parts: [String] = []
        var sets = DERReader(bytes)
        while let set = sets.next() {
            var attributes = DERReader(set.content)
            while let attribute = attributes.next() {
                var pair = DERReader(attribute.content)
                guard let type = pair.next(), type.tag == 0x06, let value = pair.next() else { continue }
                let text = String(decoding: value.content, as: UTF8.self).filter { !$0.isASCIIControl }
                parts.append("\(attributeName(Array(type.content)))=\(text)")
            }
        }
        return parts.isEmpty ? "(empty)" : parts.joined(separator: ", ")
    }

    static func attributeName(_ oid: [UInt8]) -> String {
        let known: [[UInt8]: String] = [
            [0x55, 0x04, 0x03]: "CN", [0x55, 0x04, 0x0A]: "O", [0x55, 0x04, 0x0B]: "OU", [0x55, 0x04, 0x06]: "C",
            [0x55, 0x04, 0x07]: "L", [0x55, 0x04, 0x08]: "ST",
            [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x01]: "emailAddress"
        ]
        return known[oid] ?? "OID." + oid.map { String($0) }.joined(separator: ".")
    }
}

/// DER's tag-length-value elements, one after another; stops at the first malformed one.
struct DERReader {
    struct Element {
        var tag: UInt8
        var content: ArraySlice<UInt8>
    }

    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    mutating func next() -> Element? {
        guard bytes.count >= 2 else { return nil }
        var index = bytes.startIndex
        let tag = bytes[index]
        index += 1
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count >= 1, count <= 4, bytes.endIndex - index >= count else { return nil }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[index])
                index += 1
            }
        }
        guard length >= 0, bytes.endIndex - index >= length else { return nil }
        let content = bytes[index..<(index + length)]
        bytes = bytes[(index + length)...]
        return Element(tag: tag, content: content)
    }
}

extension Character {
    fileprivate var isASCIIControl: Bool { isASCII && (asciiValue ?? 0 < 0x20 || asciiValue == 0x7F) }
}
