import Foundation
import TernCore

/// Issue 35: a certificate no trusted root vouches for, shown so a person can judge it: the server,
/// subject, issuer, validity and SHA-256 fingerprint, and "Trust this certificate", which sends the
/// form again with the certificate pinned for that host and port only. Drawn hidden and empty when
/// there is none yet, for `account.js` to fill from the setup's stream.
struct CertificateJudgementView: Sendable {
    var certificate: ServerCertificate?
    var headingLevel: Int

    static func fieldValue(_ pin: PinnedCertificate) -> String { "\(pin.host) \(pin.port) \(pin.fingerprint.hex)" }

    static func pin(fieldValue: String) -> PinnedCertificate? {
        let fields = fieldValue.split(separator: " ")
        guard fields.count == 3, let port = Int(fields[1]), let fingerprint = CertificateFingerprint(String(fields[2])) else { return nil }
        return PinnedCertificate(host: String(fields[0]), port: port, fingerprint: fingerprint)
    }

    static func date(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: date)
    }

    func render() -> HTMLText {
        let place = certificate.map { "\($0.host):\($0.port)" } ?? ""
        let level = String(headingLevel)
        return """
            <section id="setup-certificate" class="certificate-judgement" aria-labelledby="setup-certificate-title"\(html: certificate == nil ? " hidden" : "")>
            <h\(level) id="setup-certificate-title">Certificate of <span data-field="place">\(place)</span></h\(level)>
            <p>No authority this computer trusts vouches for this server. Trust it only if its fingerprint matches what the server's \
            administrator gives you: Tern then accepts this certificate for this server alone, and refuses any other one it presents later.</p>
            <dl class="certificate-fields">
            <dt>Subject</dt><dd data-field="subject">\(certificate?.subject ?? "")</dd>
            <dt>Issued by</dt><dd data-field="issuer">\(certificate?.issuer ?? "")</dd>
            <dt>Valid from</dt><dd data-field="not-before">\(certificate.map { Self.date($0.notValidBefore) } ?? "")</dd>
            <dt>Valid until</dt><dd data-field="not-after">\(certificate.map { Self.date($0.notValidAfter) } ?? "")</dd>
            <dt>SHA-256 fingerprint</dt><dd data-field="fingerprint" class="fingerprint">\(certificate?.fingerprint.description ?? "")</dd>
            </dl>
            <p><button type="submit" form="account-setup" class="button" name="trusted-certificate" \
            value="\(certificate.map { Self.fieldValue($0.pin) } ?? "")">Trust this certificate</button></p>
            </section>
            """
    }
}
