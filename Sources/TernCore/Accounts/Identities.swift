import Foundation

/// Issue 35: an address the person sends from. Every account has its own address as its default
/// identity, and may have aliases (addresses that deliver to it), each with a display name and a
/// signature. A reply goes out from the identity the original was addressed to (`IdentityChoice`),
/// and Reply All leaves out every identity (`Account.ownAddresses` holds them all).
public struct Identity: Sendable, Hashable, Codable {
    public var accountId: Account.ID
    /// As the person typed it; compared case-insensitively (`key`).
    public var emailAddress: String
    public var displayName: String?
    /// The text below the `-- ` line (RFC 3676 section 4.3), without it; nil for none.
    public var signature: String?
    /// The account's own address: always there, never removed.
    public var isDefault: Bool

    public init(accountId: Account.ID, emailAddress: String, displayName: String? = nil, signature: String? = nil, isDefault: Bool = false) {
        self.accountId = accountId
        self.emailAddress = emailAddress
        self.displayName = displayName
        self.signature = signature
        self.isDefault = isDefault
    }

    /// The lowercased address: the one comparison of identities with addresses in mail.
    public var key: String { emailAddress.lowercased() }

    /// The From a message sent as this identity carries.
    public var sender: EmailAddress { EmailAddress(name: displayName, address: emailAddress) }

    /// The identities an account has without any stored: its address (with its display name) and
    /// its aliases, none with a signature. For a store written before identities, and for doubles.
    public static func implied(by account: Account) -> [Identity] {
        [Identity(accountId: account.id, emailAddress: account.emailAddress, displayName: account.displayName, isDefault: true)]
            + account.aliases.map { Identity(accountId: account.id, emailAddress: $0, displayName: account.displayName) }
    }
}

/// Where identities are kept. Implemented by `MailStore`: the account's own address is stored as
/// its default identity when the account is added, and the account's `aliases` (what the rest of
/// Tern reads as the person's addresses) follow every change in the same transaction.
public protocol IdentityRepository: Sendable {
    /// The account's identities, the default first, then in the order they were added.
    func identities(of accountId: Account.ID) async throws -> [Identity]
    /// Throws `TernError.alreadyExists` when the account has an identity with that address.
    func add(_ identity: Identity) async throws
    /// Replaces the name and signature of the identity with the same account and address; false when there is none.
    @discardableResult
    func update(_ identity: Identity) async throws -> Bool
    /// Removes a non-default identity; false when there is none.
    @discardableResult
    func remove(accountId: Account.ID, emailAddress: String) async throws -> Bool
}

/// One account with its identities, as `tern identity list` and Settings show them.
public struct AccountIdentities: Sendable, Hashable {
    public var account: Account
    public var identities: [Identity]

    public init(account: Account, identities: [Identity]) {
        self.account = account
        self.identities = identities
    }
}

/// What `tern identity edit` and the Settings form change: nil leaves a field as it is; an empty
/// text clears it.
public struct IdentityEdit: Sendable, Hashable {
    public var displayName: String?
    public var signature: String?

    public init(displayName: String? = nil, signature: String? = nil) {
        self.displayName = displayName
        self.signature = signature
    }
}

/// Issue 35: the identities of the accounts, checked before they are stored.
public struct IdentitiesUseCase: Sendable {
    /// A signature is a few lines under a message, not a second body (and it is shown in every composer).
    public static let maxSignatureLength = 4_000
    public static let maxDisplayNameLength = 200

    let accounts: any AccountRepository
    let identities: any IdentityRepository

    public init(accounts: any AccountRepository, identities: any IdentityRepository) {
        self.accounts = accounts
        self.identities = identities
    }

    /// Every account's identities (or the named account's), accounts by name.
    public func list(account name: AccountName? = nil) async throws -> [AccountIdentities] {
        let chosen: [Account]
        if let name {
            guard let account = try await accounts.account(named: name) else { throw TernError.notFound("account '\(name)'") }
            chosen = [account]
        } else {
            chosen = try await accounts.allAccounts().sorted { $0.name < $1.name }
        }
        var result: [AccountIdentities] = []
        for account in chosen { result.append(AccountIdentities(account: account, identities: try await identities(of: account))) }
        return result
    }

    /// The account's identities; those the account implies when the store has none for it.
    public func identities(of account: Account) async throws -> [Identity] {
        let stored = try await identities.identities(of: account.id)
        return stored.isEmpty ? Identity.implied(by: account) : stored
    }

    /// The identity of `account` with address `address` (any case), or nil.
    public func identity(of account: Account, address: String) async throws -> Identity? {
        let key = address.trimmingCharacters(in: .whitespaces).lowercased()
        return try await identities(of: account).first { $0.key == key }
    }

    public func add(account name: AccountName, emailAddress: String, displayName: String?, signature: String?) async throws -> Identity {
        let account = try await named(name)
        let address = emailAddress.trimmingCharacters(in: .whitespaces)
        guard AddAccountUseCase.looksLikeAddress(address) else { throw TernError.invalidInput("'\(emailAddress)' is not an email address") }
        if try await identity(of: account, address: address) != nil {
            throw TernError.alreadyExists("an identity \(address) of account '\(account.name)'")
        }
        // Without a name of its own, an alias carries the account's, as its From did before identities.
        let identity = Identity(
            accountId: account.id, emailAddress: address, displayName: try Self.checkedName(displayName) ?? account.displayName,
            signature: try Self.checkedSignature(signature))
        try await identities.add(identity)
        return identity
    }

    public func edit(account name: AccountName, emailAddress: String, _ edit: IdentityEdit) async throws -> Identity {
        let account = try await named(name)
        guard var identity = try await identity(of: account, address: emailAddress) else {
            throw TernError.notFound("identity \(emailAddress) of account '\(account.name)'")
        }
        if let displayName = edit.displayName { identity.displayName = try Self.checkedName(displayName) }
        if let signature = edit.signature { identity.signature = try Self.checkedSignature(signature) }
        try await identities.update(identity)
        return identity
    }

    public func remove(account name: AccountName, emailAddress: String) async throws {
        let account = try await named(name)
        guard let identity = try await identity(of: account, address: emailAddress) else {
            throw TernError.notFound("identity \(emailAddress) of account '\(account.name)'")
        }
        guard !identity.isDefault else {
            throw TernError.invalidInput("\(identity.emailAddress) is the address of account '\(account.name)': it cannot be removed")
        }
        try await identities.remove(accountId: account.id, emailAddress: identity.emailAddress)
    }

    /// The account named, its implied identities stored first when the store has none for it (a
    /// store that never held identities for it), so a change never loses the others.
    func named(_ name: AccountName) async throws -> Account {
        guard let account = try await accounts.account(named: name) else { throw TernError.notFound("account '\(name)'") }
        if try await identities.identities(of: account.id).isEmpty {
            for identity in Identity.implied(by: account) { try await identities.add(identity) }
        }
        return account
    }

    /// A display name goes into a From header: one line, not too long; empty means none.
    static func checkedName(_ name: String?) throws -> String? {
        guard let trimmed = name?.trimmingCharacters(in: .whitespaces), !trimmed.isEmpty else { return nil }
        guard trimmed.count <= maxDisplayNameLength, !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw TernError.invalidInput("a display name is one line of at most \(maxDisplayNameLength) characters")
        }
        return trimmed
    }

    /// A signature: lines of text (line breaks normalized, trailing blank lines dropped), no other
    /// control character, at most `maxSignatureLength`; a `-- ` line typed at its top is the
    /// separator Tern writes anyway, so it is dropped. Empty means none.
    static func checkedSignature(_ signature: String?) throws -> String? {
        guard let signature else { return nil }
        var lines = signature.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let first = lines.first, first == "-- " || first == "--" { lines.removeFirst() }
        while let last = lines.last, last.allSatisfy(\.isWhitespace) { lines.removeLast() }
        while let first = lines.first, first.allSatisfy(\.isWhitespace) { lines.removeFirst() }
        let text = lines.joined(separator: "\n")
        guard !text.isEmpty else { return nil }
        guard text.count <= maxSignatureLength else { throw TernError.invalidInput("a signature is at most \(maxSignatureLength) characters") }
        if text.unicodeScalars.contains(where: { $0 != "\n" && $0 != "\t" && $0.properties.generalCategory == .control }) {
            throw TernError.invalidInput("a signature is text: no control characters")
        }
        return text
    }
}

/// Issue 35: which identity a reply or forward is sent from, as a pure rule. The original's To,
/// then its Cc, then the addresses the delivering servers recorded (`Delivered-To`,
/// `X-Original-To`: mail that reached the person by Bcc or a list names them nowhere else); the
/// first address that is one of the aliases, compared without case (RFC 5321 section 2.4 lets a
/// server tell local parts by case; no mail server does, and a person does not). An alias is the
/// more particular address, so it wins over the account's own address addressed beside it (as
/// `ComposePrefill.sender` chose before identities). Nothing is guessed: `ana+lists@x` is not
/// `ana@x` unless the person added it. Without an alias the default identity: never an address the
/// person does not own. The original's From comes last, so the person's own message is answered
/// from the identity that sent it.
public enum IdentityChoice {
    public static func forReply(to original: Email?, identities: [Identity]) -> Identity? {
        let fallback = identities.first(where: \.isDefault) ?? identities.first
        guard let original else { return fallback }
        let byKey = Dictionary(identities.filter { !$0.isDefault }.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        // The From last: the person's own message (in Sent) is answered from the identity that wrote it.
        let candidates = original.toAddresses.map(\.address) + original.ccAddresses.map(\.address) + original.deliveredTo + [original.fromAddress]
        for address in candidates {
            let trimmed = address.trimmingCharacters(in: .whitespaces)
            if var identity = byKey[trimmed.lowercased()] {
                // As the original spelled it: the same mailbox, written as the correspondent wrote to it.
                identity.emailAddress = trimmed
                return identity
            }
        }
        return fallback
    }
}

/// Issue 35: a signature in the text of a message: below the person's text and above a reply's
/// quote or a forward's header, after the separator line `-- ` (dash, dash, space: RFC 3676
/// section 4.3, which format=flowed keeps as it is and mail readers fold away).
public enum SignatureBlock {
    public static let separator = "-- "

    /// The separator and the signature, as the composer's text carries it.
    public static func block(_ signature: String) -> String {
        separator + "\n" + signature
    }

    /// `prefilled` (empty, a reply's quote or a forward, each starting with a blank line) with the
    /// signature in front: a blank line for the person's text, the block, then what was prefilled.
    public static func inserting(_ signature: String?, into prefilled: String) -> String {
        guard let signature, !signature.isEmpty else { return prefilled }
        let rest = prefilled.hasPrefix("\n\n") ? String(prefilled.dropFirst(2)) : prefilled
        return "\n\n" + block(signature) + (rest.isEmpty ? "" : "\n\n" + rest)
    }

    /// `body` with the block of `old` replaced by that of `new` (the From picker changed identity);
    /// the block added above the quote when `old`'s is not found (the person edited it or there was
    /// none), and removed when `new` has none. A body that holds `new`'s block already (the page
    /// swapped it as the picker changed) is left as it is.
    public static func replacing(_ old: String?, with new: String?, in body: String) -> String {
        if old == new { return body }
        if let new, !new.isEmpty, body.hasPrefix(block(new)) || body.contains("\n" + block(new)) { return body }
        if let old, !old.isEmpty, let range = body.range(of: "\n" + block(old)) ?? (body.hasPrefix(block(old)) ? body.range(of: block(old)) : nil) {
            let leadingBreak = body[range].hasPrefix("\n") ? "\n" : ""
            guard let new, !new.isEmpty else {
                // The blank line before the block goes with it.
                var lower = range.lowerBound
                if lower > body.startIndex, body[body.index(before: lower)] == "\n" { lower = body.index(before: lower) }
                return String(body[..<lower]) + String(body[range.upperBound...])
            }
            return body.replacingCharacters(in: range, with: leadingBreak + block(new))
        }
        guard let new, !new.isEmpty else { return body }
        return insertingAboveQuote(new, in: body)
    }

    /// The block put in before the quote of a reply or the header of a forward, or at the end of a text without one.
    static func insertingAboveQuote(_ signature: String, in body: String) -> String {
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        let quoteStart = lines.firstIndex { line in
            line.hasPrefix("---------- Forwarded message ----------") || (line.hasPrefix("On ") && line.hasSuffix(" wrote:"))
        }
        guard let quoteStart else {
            let text = body.trimmingTrailingNewlines()
            return text + (text.isEmpty ? "\n\n" : "\n\n") + block(signature)
        }
        let above = lines[..<quoteStart].joined(separator: "\n").trimmingTrailingNewlines()
        let below = lines[quoteStart...].joined(separator: "\n")
        return above + "\n\n" + block(signature) + "\n\n" + below
    }
}

extension String {
    fileprivate func trimmingTrailingNewlines() -> String {
        var text = self
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
