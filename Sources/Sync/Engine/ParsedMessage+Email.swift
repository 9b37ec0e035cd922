import Foundation
import MIME
import TernCore

/// Issue 33: MIME parses a message; the domain's `Email` is made of it here, on the adapter side.
extension ParsedMessage {
    /// The `Email` a synced message becomes (FR-SYNC-01 steps 6-8). `internalDate` is the server's
    /// INTERNALDATE: it is `dateReceived`, and it stands in for a missing or unreadable Date header
    /// (never "now"). `messageIdIsReliable` is false when another message of the account already
    /// carries this Message-ID: the identity then falls back to the canonical key alone.
    public func email(accountId: Account.ID, internalDate: Date, sizeBytes: Int64, messageIdIsReliable: Bool = true) -> Email {
        let plainSnippet = bodyPlain.map { Self.previewSnippet(from: $0) }
        var email = Email(
            accountId: accountId, messageId: messageIdIsReliable ? messageId : nil, headerMessageId: messageId,
            dedupKey: dedupKey, inReplyTo: inReplyTo.last, references: references.isEmpty ? nil : references.joined(separator: " "),
            subject: subject, fromName: from.first?.name, fromAddress: from.first?.address ?? sender?.address ?? "",
            toAddresses: to.map(EmailAddress.init), ccAddresses: cc.map(EmailAddress.init), bccAddresses: bcc.map(EmailAddress.init),
            replyTo: replyTo.map(EmailAddress.init), dateSent: date, dateReceived: internalDate,
            snippet: plainSnippet ?? (bodyPlain == nil && bodyHTML == nil ? nil : ""), bodyPlain: bodyPlain, bodyHTML: bodyHTML,
            bodyTruncated: bodyTruncated, bodiesFetched: true, sizeBytes: sizeBytes,
            hasAttachments: attachments.contains { !$0.isInline })
        email.bulkMarkers = BulkMailMarkers.from { headers.first($0.lowercased())?.decodedValue }
        email.deliveredTo = Self.deliveredTo(headers)
        // Issue 32: whether the user's provider vouched for the From is decided when the thread is read.
        email.authenticationResults = AuthenticationResultsParser.parse(fields: headers.fields).map { AuthenticationResults($0).evidence }
        email.readReceiptTo = readReceiptAddresses.map(EmailAddress.init)
        if !email.readReceiptTo.isEmpty { email.originalRecipient = originalRecipient }
        return email
    }

    /// Issue 37: the address of an `Original-Recipient: rfc822;ADDRESS` field (RFC 8098 section
    /// 2.3, written by an MTA from the envelope's ORCPT), for the MDN to repeat; nil for any other
    /// address type, or a value that is no single plain address.
    var originalRecipient: String? {
        guard let field = headers.first("original-recipient") else { return nil }
        let value = String(decoding: field.rawValue, as: UTF8.self)
        guard let semicolon = value.firstIndex(of: ";"),
            value[..<semicolon].trimmingCharacters(in: .whitespacesAndNewlines).lowercased() == "rfc822"
        else { return nil }
        let address = value[value.index(after: semicolon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        guard address.contains("@"), address.utf8.count <= 254,
            address.unicodeScalars.allSatisfy({ $0.value > 32 && $0.value < 127 && !"<>()[]\\,;:\"".unicodeScalars.contains($0) })
        else { return nil }
        return address
    }

    /// Issue 35: the addresses of the `Delivered-To` fields, then of the `X-Original-To` fields
    /// (Postfix writes both; Gmail one `Delivered-To` per hop), each once, at most `maxDeliveredTo`:
    /// a hostile header section's thousand fields are not stored with every message.
    static func deliveredTo(_ headers: HeaderSection) -> [String] {
        var seen = Set<String>()
        var addresses: [String] = []
        for name in ["delivered-to", "x-original-to"] {
            for field in headers.all(name) {
                for mailbox in AddressParser.parse(field.decodedValue) where mailbox.address.contains("@") {
                    guard addresses.count < maxDeliveredTo else { return addresses }
                    if seen.insert(mailbox.address.lowercased()).inserted { addresses.append(mailbox.address) }
                }
            }
        }
        return addresses
    }

    static let maxDeliveredTo = 10

    /// Issue 37: where a read receipt would go: `Disposition-Notification-To` (RFC 8098 section
    /// 2.1), else the older `Return-Receipt-To`; at most `maxReceiptAddresses` (a request naming
    /// dozens would make a receipt a way to send mail to strangers).
    var readReceiptAddresses: [MailboxAddress] {
        for name in ["disposition-notification-to", "return-receipt-to"] {
            let addresses = headers.all(name).flatMap { AddressParser.parse(String(decoding: $0.rawValue, as: UTF8.self)) }
                .filter { $0.address.contains("@") }
            if !addresses.isEmpty { return Array(addresses.prefix(Self.maxReceiptAddresses)) }
        }
        return []
    }

    static let maxReceiptAddresses = 3
}

extension AuthenticationResults {
    /// The domain's record of a field MIME read (issue 32's sender check reads it).
    public init(_ field: AuthenticationResultsField) {
        self.init(
            authservId: field.authservId,
            results: field.results.map { MethodResult(method: $0.method, result: $0.result, properties: $0.properties) })
    }
}
