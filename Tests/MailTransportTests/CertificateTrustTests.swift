import Foundation
import NIOSSL
import Testing

@testable import MailTransport

/// Issue 35: a pinned certificate is accepted only when the leaf's SHA-256 is the pin and it is
/// within its validity dates; an inspection accepts nothing and records what was presented; a
/// refused pin is worded with both fingerprints.
struct CertificateTrustTests {
    static func certificate() throws -> NIOSSLCertificate? {
        guard let path = ProcessInfo.processInfo.environment["TERN_MAILSERVERS_DIR"].map({ $0 + "/tls/server.crt" }),
            FileManager.default.fileExists(atPath: path)
        else { return nil }
        return try NIOSSLCertificate.fromPEMFile(path).first
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["TERN_MAILSERVERS_DIR"] != nil))
    func onlyThePinnedLeafWithinItsDatesIsAccepted() throws {
        guard let leaf = try Self.certificate() else { return }
        let presented = try PresentedCertificate(leaf)
        #expect(presented.subject.contains("CN="))
        #expect(presented.issuer == "CN=Tern Test CA")
        #expect(presented.sha256.count == 64)
        let now = Date()
        let record = PresentedCertificateRecord()
        #expect(TLSPolicy.judge(leaf, trust: .pinned(sha256: presented.sha256.uppercased()), record: record, now: now) == .certificateVerified)
        #expect(record.certificate == presented)
        let other = String(repeating: "0", count: 64)
        #expect(TLSPolicy.judge(leaf, trust: .pinned(sha256: other), record: record, now: now) == .failed)
        #expect(TLSPolicy.judge(leaf, trust: .pinned(sha256: presented.sha256), record: record, now: presented.notValidAfter + 1) == .failed)
        #expect(TLSPolicy.judge(leaf, trust: .inspect, record: PresentedCertificateRecord(), now: now) == .failed)
        #expect(TLSPolicy.judge(nil, trust: .pinned(sha256: presented.sha256), record: record, now: now) == .failed)

        var server = MailServer(host: "127.0.0.1", port: 993, security: .implicitTLS, certificateTrust: .pinned(sha256: other))
        server.presentedCertificate.record(presented)
        let refusal = try #require(TLSPolicy.pinnedRefusal(server: server))
        #expect(refusal.contains(PresentedCertificate.fingerprintText(other)) && refusal.contains(presented.fingerprintText))
    }

    @Test func aServersCopiesShareWhatWasPresentedAndStayEqual() {
        let server = MailServer(host: "mail.example.org", port: 993, security: .implicitTLS)
        let copy = server
        #expect(server == copy && server.presentedCertificate === copy.presentedCertificate)
        #expect(MailServer(host: "mail.example.org", port: 993, security: .implicitTLS) == server)
    }

    @Test func namesAreReadFromDER() {
        // SEQUENCE { SET { SEQUENCE { OID 2.5.4.3, UTF8String "a" } }, SET { SEQUENCE { OID 2.5.4.10, PrintableString "Org" } } }
        let name: [UInt8] = [
            0x31, 0x0A, 0x30, 0x08, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0C, 0x01, 0x61,
            0x31, 0x0C, 0x30, 0x0A, 0x06, 0x03, 0x55, 0x04, 0x0A, 0x13, 0x03, 0x4F, 0x72, 0x67
        ]
        #expect(CertificateNames.name(name[...]) == "CN=a, O=Org")
        #expect(CertificateNames(der: [0x30, 0x03, 0x02, 0x01]) == nil)
    }
}
