/// Recipients as a person types them into the composer, read strictly (RFC 5322 section 3.4 and
/// 3.4.1, RFC 6532 for UTF-8): unlike `AddressParser`, which recovers what it can from received
/// mail, this keeps each address exactly as typed so that a wrong one is shown as wrong, and a
/// quoted local part (`"john smith"@example.org`) keeps its quotes and spaces.
public enum RecipientSyntax {
    /// One address's syntax.
    public enum Check: Sendable, Hashable {
        case valid(needsSMTPUTF8: Bool)
        /// Why it is not an address, in a few words ("no domain", "space in the local part").
        case invalid(String)
    }

    /// RFC 5321 section 4.5.3.1.1 and 4.5.3.1.2: what an SMTP server must accept.
    static let maxLocalPartBytes = 64
    static let maxAddressBytes = 254

    /// The mailboxes of `text`, split at commas outside quotes, comments and angle brackets:
    /// `Name <addr>`, `"Quoted, Name" <addr>` or a bare addr-spec (a trailing comment is dropped).
    public static func parseList(_ text: String) -> [MailboxAddress] {
        var result: [MailboxAddress] = []
        var piece: [Character] = []
        var inQuote = false, inAngle = false, commentDepth = 0, escaped = false
        func finish() {
            if let mailbox = mailbox(String(piece)) { result.append(mailbox) }
            piece.removeAll()
        }
        for character in text {
            if escaped { escaped = false; piece.append(character); continue }
            switch character {
            case "\\" where inQuote || commentDepth > 0: escaped = true
            case "\"" where commentDepth == 0 && !inAngle: inQuote.toggle()
            case "(" where !inQuote && !inAngle: commentDepth += 1
            case ")" where !inQuote && !inAngle && commentDepth > 0: commentDepth -= 1
            case "<" where !inQuote && commentDepth == 0: inAngle = true
            case ">" where !inQuote && commentDepth == 0: inAngle = false
            case ",", ";", "\n", "\r":
                if !inQuote && !inAngle && commentDepth == 0 { finish(); continue }
            default: break
            }
            piece.append(character)
        }
        finish()
        return result
    }

    /// One mailbox: the address between the last `<…>` with the phrase before it as the name, or
    /// the whole text (without comments) as the address.
    static func mailbox(_ text: String) -> MailboxAddress? {
        let trimmed = text.trimmingSpaces()
        guard !trimmed.isEmpty else { return nil }
        if trimmed.hasSuffix(">"), let open = angleStart(trimmed) {
            let address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)]).trimmingSpaces()
            var name = String(trimmed[..<open]).trimmingSpaces()
            if name.hasPrefix("\""), name.hasSuffix("\""), name.count >= 2 {
                name = unescaped(String(name.dropFirst().dropLast()))
            }
            return MailboxAddress(name: name.isEmpty ? nil : name, address: address)
        }
        return MailboxAddress(address: withoutComments(trimmed).trimmingSpaces())
    }

    /// The `<` that opens the final angle address, outside quotes.
    static func angleStart(_ text: String) -> String.Index? {
        var inQuote = false, escaped = false
        var start: String.Index?
        for index in text.indices {
            let character = text[index]
            if escaped { escaped = false; continue }
            if character == "\\" && inQuote { escaped = true } else if character == "\"" { inQuote.toggle() } else if character == "<" && !inQuote { start = index }
        }
        return start
    }

    static func withoutComments(_ text: String) -> String {
        var output = ""
        var depth = 0, inQuote = false, escaped = false
        for character in text {
            if escaped { escaped = false; if depth == 0 { output.append(character) }; continue }
            if character == "\\" { escaped = true; if depth == 0 { output.append(character) }; continue }
            if character == "\"" && depth == 0 { inQuote.toggle() }
            if !inQuote && character == "(" { depth += 1; continue }
            if !inQuote && character == ")" && depth > 0 { depth -= 1; continue }
            if depth == 0 { output.append(character) }
        }
        return output
    }

    static func unescaped(_ text: String) -> String {
        var output = ""
        var escaped = false
        for character in text {
            if !escaped && character == "\\" { escaped = true; continue }
            escaped = false
            output.append(character)
        }
        return output
    }

    /// RFC 5322 addr-spec: a dot-atom or quoted-string local part, `@`, a domain name of letters,
    /// digits and hyphens (or UTF-8: an IDN) or an address literal. Non-ASCII anywhere needs SMTPUTF8.
    public static func check(_ address: String) -> Check {
        let bytes = Array(address.utf8)
        guard !bytes.isEmpty else { return .invalid("empty") }
        guard let at = bytes.lastIndex(of: ASCII.at) else { return .invalid("no @") }
        let local = bytes[..<at], domain = bytes[(at + 1)...]
        guard !local.isEmpty else { return .invalid("nothing before the @") }
        guard !domain.isEmpty else { return .invalid("no domain after the @") }
        guard bytes.count <= maxAddressBytes else { return .invalid("longer than \(maxAddressBytes) bytes") }
        guard local.count <= maxLocalPartBytes else { return .invalid("local part longer than \(maxLocalPartBytes) bytes") }
        if let problem = localPartProblem(local) { return .invalid(problem) }
        if let problem = domainProblem(domain) { return .invalid(problem) }
        return .valid(needsSMTPUTF8: bytes.contains { $0 >= 0x80 })
    }

    static func isAtext(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case _ where byte >= 0x80: true
        default: Array("!#$%&'*+-/=?^_`{|}~".utf8).contains(byte)
        }
    }

    static func localPartProblem(_ local: ArraySlice<UInt8>) -> String? {
        if local.first == ASCII.quote {
            guard local.count >= 2, local.last == ASCII.quote else { return "unterminated quoted local part" }
            var index = local.startIndex + 1
            while index < local.endIndex - 1 {
                let byte = local[index]
                if byte == ASCII.backslash {
                    guard index + 1 < local.endIndex - 1, local[index + 1] >= 0x20 || local[index + 1] == 0x09 else { return "bad escape in quoted local part" }
                    index += 2
                    continue
                }
                if byte == ASCII.quote { return "quote inside quoted local part" }
                if byte < 0x20 && byte != 0x09 || byte == 0x7F { return "control character in local part" }
                index += 1
            }
            return nil
        }
        if local.first == UInt8(ascii: ".") || local.last == UInt8(ascii: ".") { return "local part starts or ends with a dot" }
        var previous: UInt8 = 0
        for byte in local {
            if byte == UInt8(ascii: ".") {
                if previous == UInt8(ascii: ".") { return "two dots in a row in the local part" }
            } else if !isAtext(byte) {
                return byte == ASCII.space ? "space in the local part (quote it)" : "character '\(String(decoding: [byte], as: UTF8.self))' in the local part"
            }
            previous = byte
        }
        return nil
    }

    static func domainProblem(_ domain: ArraySlice<UInt8>) -> String? {
        if domain.first == UInt8(ascii: "[") {
            guard domain.last == UInt8(ascii: "]"), domain.count > 2 else { return "unterminated address literal" }
            let inner = domain.dropFirst().dropLast()
            let allowed = inner.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "[") && $0 != UInt8(ascii: "]") && $0 != ASCII.backslash }
            return allowed ? nil : "bad address literal"
        }
        let labels = domain.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        for label in labels {
            if label.isEmpty { return "empty label in the domain" }
            if label.count > 63 { return "domain label longer than 63 bytes" }
            if label.first == UInt8(ascii: "-") || label.last == UInt8(ascii: "-") { return "domain label starts or ends with a hyphen" }
            for byte in label where !(byte >= 0x80 || byte == UInt8(ascii: "-") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                                      || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)) {
                return "character '\(String(decoding: [byte], as: UTF8.self))' in the domain"
            }
        }
        return nil
    }
}
