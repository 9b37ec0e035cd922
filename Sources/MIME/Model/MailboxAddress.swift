/// An RFC 5322 mailbox (section 3.4): an address with its optional display name, as the parsers
/// read it from a header or a typed recipient list and as the builder writes it. MIME's own type,
/// so the module depends on nothing of the app's domain; Sync and the runtime convert it.
public struct MailboxAddress: Sendable, Hashable, Codable {
    public var name: String?
    public var address: String

    public init(name: String? = nil, address: String) {
        self.name = name
        self.address = address
    }
}
