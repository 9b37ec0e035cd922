import Foundation

/// FR-COMP-01's prefill table as pure rules: recipients, subject, quoted body, forward header and
/// threading headers of a reply or forward, from the original alone.
public enum ComposePrefill {
    // MARK: Recipients

    /// Reply: the original's Reply-To when it has one (RFC 5322 section 3.6.2: where the author
    /// wants replies), else its From. A message the user sent themself is answered to its
    /// recipients instead, as mail clients do, so a reply never goes only to the user.
    public static func replyRecipients(to original: Email, ownAddresses: Set<String>) -> [EmailAddress] {
        let author = original.replyTo.isEmpty ? [EmailAddress(name: original.fromName, address: original.fromAddress)] : original.replyTo
        let targets = deduplicated(author.filter { !$0.address.isEmpty }, excluding: [])
        if !targets.isEmpty, targets.allSatisfy({ ownAddresses.contains($0.address.lowercased()) }) {
            let recipients = deduplicated(original.toAddresses, excluding: ownAddresses)
            if !recipients.isEmpty { return recipients }
        }
        return targets
    }

    /// Reply All: To as for Reply; Cc every original To and Cc but the user's own addresses and
    /// those already in To (the spec's table: "All original To/CC recipients except self" in CC),
    /// compared case-insensitively.
    public static func replyAllRecipients(to original: Email, ownAddresses: Set<String>) -> (to: [EmailAddress], cc: [EmailAddress]) {
        let to = replyRecipients(to: original, ownAddresses: ownAddresses)
        let excluded = ownAddresses.union(to.map { $0.address.lowercased() })
        return (to, deduplicated(original.toAddresses + original.ccAddresses, excluding: excluded))
    }

    /// First occurrence of each address (case-insensitive), those in `excluding` left out.
    static func deduplicated(_ addresses: [EmailAddress], excluding: Set<String>) -> [EmailAddress] {
        var seen = excluding
        return addresses.filter { address in
            let key = address.address.lowercased()
            return address.address.contains("@") && seen.insert(key).inserted
        }
    }

    /// The address the reply is written from: the alias the original was addressed to, when it
    /// was one of the account's aliases, else the account's address.
    public static func sender(for account: Account, original: Email?) -> EmailAddress {
        let aliases = Set(account.aliases)
        let addressedAlias = original.flatMap { email in
            (email.toAddresses + email.ccAddresses).first { aliases.contains($0.address.lowercased()) }
        }
        return EmailAddress(name: account.displayName, address: addressedAlias?.address ?? account.emailAddress)
    }

    // MARK: Subject

    /// Reply prefixes the threading code knows, in every language it knows them in: a subject that
    /// starts with one gets no "Re: " in front (FR-COMP-01: never doubled).
    static let replyPrefixes: Set<String> = [
        "re", "aw", "sv", "antw", "réf", "ref", "rép", "r", "rif", "res", "odp", "ynt", "απ", "σχετ", "回复", "答复", "回覆", "השב",
        "ats", "vá"
    ]
    /// Forward prefixes, likewise, for "Fwd: ". "VS" is Danish and Norwegian for forwarded (and
    /// Finnish for a reply): it counts as a forward.
    static let forwardPrefixes: Set<String> = [
        "fw", "fwd", "wg", "vb", "doorst", "tr", "i", "rv", "enc", "pd", "ilt", "i̇lt", "πρθ", "转发", "轉寄", "הועבר", "vl", "vs", "továbbítás"
    ]

    public static func replySubject(_ original: String) -> String {
        prefixed(original, with: "Re: ", unlessStartsWith: replyPrefixes)
    }

    public static func forwardSubject(_ original: String) -> String {
        prefixed(original, with: "Fwd: ", unlessStartsWith: forwardPrefixes)
    }

    /// `prefix` and the subject, unless the subject already starts with one of `known` (after a
    /// mailing-list tag: "[dev] Re: x" is left as it is too). Surrounding whitespace is dropped.
    static func prefixed(_ subject: String, with prefix: String, unlessStartsWith known: Set<String>) -> String {
        let trimmed = subject.trimmingCharacters(in: .whitespacesAndNewlines)
        let scalars = Array(trimmed.lowercased().unicodeScalars)
        if let first = SubjectNormalizer.prefixEnd(scalars, from: 0), known.contains(first.word) { return trimmed }
        return prefix + trimmed
    }

    // MARK: Body

    /// "On [date], [sender name] wrote:" and the original's text with `>` before each line; lines
    /// already quoted get one more `>` without a space, so their levels stay readable (RFC 3676
    /// section 4.5's quote marks, which format=flowed text keeps after decoding).
    public static func quotedReply(body: String, senderName: String, date: Date, timeZone: TimeZone) -> String {
        let header = "On \(attributionDate(date, timeZone: timeZone)), \(senderName) wrote:"
        return "\n\n" + header + "\n" + quoted(body)
    }

    /// Each line of `text` quoted one level deeper; trailing empty lines dropped.
    public static func quoted(_ text: String) -> String {
        var lines = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false)
        while let last = lines.last, last.allSatisfy(\.isWhitespace) { lines.removeLast() }
        return lines.map { line in
            if line.hasPrefix(">") { return ">" + line }
            return line.isEmpty ? ">" : "> " + line
        }.joined(separator: "\n")
    }

    /// The forward header (the spec's "---------- Forwarded message ----------" with From, Date,
    /// Subject and To; Cc too when there was one) and the original's text below it.
    public static func forwardedBody(original: Email, body: String, timeZone: TimeZone) -> String {
        var lines = [
            "---------- Forwarded message ----------",
            "From: \(mailboxText(EmailAddress(name: original.fromName, address: original.fromAddress)))",
            "Date: \(attributionDate(original.displayDate, timeZone: timeZone))",
            "Subject: \(original.subject)",
            "To: \(original.toAddresses.map(mailboxText).joined(separator: ", "))"
        ]
        if !original.ccAddresses.isEmpty { lines.append("Cc: \(original.ccAddresses.map(mailboxText).joined(separator: ", "))") }
        return "\n\n" + lines.joined(separator: "\n") + "\n\n" + body
    }

    /// `Name <address>`, or the address alone when there is no name.
    static func mailboxText(_ address: EmailAddress) -> String {
        guard let name = address.name?.trimmingCharacters(in: .whitespaces), !name.isEmpty else { return address.address }
        return "\(name) <\(address.address)>"
    }

    /// "Mon, 23 Nov 2026 at 21:46" in the given time zone, English whatever the locale: the line
    /// goes to other people, in a message whose other fixed words are English.
    static func attributionDate(_ date: Date, timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "EEE, d MMM yyyy 'at' HH:mm"
        return formatter.string(from: date)
    }

    // MARK: Threading headers

    /// At most this many ids in a reply's References: the first (the thread's root) and the
    /// latest, as RFC 5322 section 3.6.4 allows trimming, so a hostile chain cannot grow every reply.
    public static let maxReferences = 50

    /// In-Reply-To and References of a reply (RFC 5322 section 3.6.4): the parent's id; its
    /// References (or, without them, its single In-Reply-To) followed by its id. Ids `isValid`
    /// refuses are dropped; without a valid parent id both are empty.
    public static func threadingHeaders(of original: Email, isValid: (String) -> Bool) -> (inReplyTo: String?, references: [String]) {
        guard let parent = original.headerMessageId.map(bracketed), isValid(parent) else { return (nil, []) }
        var chain = (original.references ?? "").split(whereSeparator: \.isWhitespace).map { bracketed(String($0)) }
        if chain.isEmpty, let inReplyTo = original.inReplyTo.map(bracketed), !inReplyTo.contains(" ") { chain = [inReplyTo] }
        var seen = Set<String>()
        var references = (chain + [parent]).filter { isValid($0) && seen.insert($0).inserted }
        if references.count > maxReferences {
            references = [references[0]] + references.suffix(maxReferences - 1)
        }
        return (parent, references)
    }

    static func bracketed(_ id: String) -> String {
        let trimmed = id.trimmingCharacters(in: .whitespaces)
        return trimmed.hasPrefix("<") ? trimmed : "<\(trimmed)>"
    }
}
