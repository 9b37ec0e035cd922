import Foundation

/// The machine-readable part of a read receipt (RFC 8098 section 3.2), which `MessageBuilder`
/// writes as the `message/disposition-notification` part of a `multipart/report`.
public struct DispositionNotificationFields: Sendable, Hashable {
    /// `Reporting-UA` (section 3.2.1).
    public var reportingUA: String
    /// `Original-Recipient` (section 3.2.3): only when the original carried the field (an MTA's
    /// record); never guessed.
    public var originalRecipient: String?
    /// `Final-Recipient: rfc822;` (section 3.2.4).
    public var finalRecipient: String
    /// `Original-Message-ID` (section 3.2.5), with its angle brackets.
    public var originalMessageId: String?
    /// `Disposition` (section 3.2.6): `action-mode/sending-mode; disposition-type`.
    public var disposition: String

    public init(reportingUA: String, originalRecipient: String? = nil, finalRecipient: String, originalMessageId: String?, disposition: String) {
        self.reportingUA = reportingUA
        self.originalRecipient = originalRecipient
        self.finalRecipient = finalRecipient
        self.originalMessageId = originalMessageId
        self.disposition = disposition
    }

    /// The fields, CRLF-terminated; a value holding a line break (header injection into the
    /// report) is refused.
    func encoded() throws(MessageBuildError) -> String {
        var lines = ["Reporting-UA: \(reportingUA)"]
        if let originalRecipient { lines.append("Original-Recipient: rfc822;\(originalRecipient)") }
        lines.append("Final-Recipient: rfc822;\(finalRecipient)")
        if let originalMessageId {
            let trimmed = originalMessageId.trimmingCharacters(in: .whitespaces)
            lines.append("Original-Message-ID: \(trimmed.hasPrefix("<") ? trimmed : "<\(trimmed)>")")
        }
        lines.append("Disposition: \(disposition)")
        // By bytes: "\r\n" is one Character, equal to neither "\r" nor "\n".
        for line in lines where line.utf8.contains(where: { $0 == ASCII.cr || $0 == ASCII.lf || $0 == 0 }) || line.utf8.count > 998 {
            throw .lineBreakInField(String(line.prefix(while: { $0 != ":" })))
        }
        return lines.map { $0 + "\r\n" }.joined()
    }
}
