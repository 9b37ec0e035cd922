import Foundation

/// A stored message as the composer needs it to reply or forward: the row and its attachments.
public struct OriginalMessage: Sendable, Hashable {
    public var email: Email
    public var attachments: [Attachment]

    public init(email: Email, attachments: [Attachment]) {
        self.email = email
        self.attachments = attachments
    }
}

/// What the composer reads from the store.
public protocol ComposeStore: Sendable {
    func original(emailId: EmailID) async throws -> OriginalMessage?
}

/// Downloads an original's body that sync has not fetched yet (FR-SYNC-01 step 7's on-demand
/// path), so a reply can quote it.
public protocol OriginalBodyFetching: Sendable {
    func fetchBody(of email: Email) async throws
}

/// The RFC 5322 syntax the composer checks but does not own: the MIME module's parsers, behind a
/// protocol so TernCore stays free of them.
public protocol MailSyntax: Sendable {
    /// A msg-id the message builder will write (`<left@right>`).
    func isValidMessageID(_ id: String) -> Bool
    /// The mailboxes of an address list as a person types it (`Ana <ana@example.org>, bob@x`).
    /// Text that is not a mailbox comes back as an address that `checkAddress` refuses.
    func parseAddressList(_ text: String) -> [EmailAddress]
    /// Whether `address` is an RFC 5322 addr-spec (dot-atom or quoted local part; a domain name
    /// or address literal), and whether sending it needs SMTPUTF8 (RFC 6531).
    func checkAddress(_ address: String) -> AddressCheck
}

/// One address's syntax.
public enum AddressCheck: Sendable, Hashable {
    case valid(needsSMTPUTF8: Bool)
    /// Why it is not an address, in a few words ("no domain", "space in the local part").
    case invalid(String)
}

extension FetchThreadBodiesUseCase: OriginalBodyFetching {
    public func fetchBody(of email: Email) async throws {
        guard let threadId = email.threadId, let emailId = email.id else { return }
        _ = try await self(threadId: threadId, only: [emailId])
    }
}
