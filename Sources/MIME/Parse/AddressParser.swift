/// Address lists (RFC 5322 section 3.4): mailboxes and groups, quoted and encoded display names,
/// comments, and the broken forms real mail carries (missing angle brackets, unquoted commas in
/// names followed by an address, stray semicolons). A group contributes its members.
public enum AddressParser {
    enum Token: Equatable {
        case word(String, quoted: Bool)
        case comment(String)
        case angle(String)
        case special(UInt8)
    }

    public static func parse(_ text: String) -> [MailboxAddress] {
        var problems: [String] = []
        return parse(Array(text.utf8)[...], problems: &problems)
    }

    static func parse(_ bytes: ArraySlice<UInt8>, problems: inout [String]) -> [MailboxAddress] {
        let tokens = tokenize(bytes, problems: &problems)
        var result: [MailboxAddress] = []
        var phrase: [Token] = []
        var angle: String?

        func finishMailbox() {
            defer { phrase.removeAll(); angle = nil }
            if let angle {
                let address = angle.trimmingSpaces()
                let name = displayName(from: phrase, problems: &problems)
                if address.isEmpty && name == nil { return }
                result.append(MailboxAddress(name: name, address: address))
                return
            }
            let words = phrase.compactMap { token -> (String, Bool)? in
                if case .word(let text, let quoted) = token { return (text, quoted) }
                return nil
            }
            guard !words.isEmpty else { return }
            // addr-spec, possibly with a trailing comment name: `john@example.com (John)`.
            let comments = phrase.compactMap { token -> String? in
                if case .comment(let text) = token { return text }
                return nil
            }
            if let addressIndex = words.lastIndex(where: { $0.0.contains("@") && !$0.1 }) {
                let joinedAddress = words.count == 1 || words[addressIndex].0.hasPrefix("@") == false
                    ? words[addressIndex].0 : words.map(\.0).joined()
                var name: String? = nil
                if addressIndex > 0 {
                    problems.append("address without angle brackets after a name")
                    name = EncodedWordDecoder.decode(words[..<addressIndex].map(\.0).joined(separator: " "))
                } else if let comment = comments.last, !comment.isEmpty {
                    name = EncodedWordDecoder.decode(comment)
                }
                result.append(MailboxAddress(name: name?.isEmpty == true ? nil : name, address: joinedAddress))
            } else {
                // A bare name or local part, such as `undisclosed-recipients` or `postmaster`.
                let text = words.map(\.0).joined(separator: words.count > 1 && words.allSatisfy({ !$0.1 }) ? " " : "")
                if !text.isEmpty { result.append(MailboxAddress(name: nil, address: text)) }
            }
        }

        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            switch token {
            case .special(ASCII.comma):
                finishMailbox()
            case .special(ASCII.colon) where angle == nil:
                // Group: the phrase so far is the group's name; its members follow.
                phrase.removeAll()
            case .special(ASCII.semicolon):
                finishMailbox()
            case .angle(let address):
                if angle != nil { finishMailbox() }
                angle = address
            case .word, .comment:
                if angle != nil {
                    // Text after `<addr>` without a comma: a comment-like trailer (`<a@b> (work)`) or a
                    // missing comma before the next mailbox.
                    if case .word = token { finishMailbox(); phrase.append(token) }
                } else {
                    phrase.append(token)
                }
            case .special(let byte):
                // `@` between words belongs to an unbracketed address: glue it to the phrase.
                if byte == ASCII.at, case .word(let last, let quoted)? = phrase.last {
                    var glued = last + String(UnicodeScalar(byte))
                    if index + 1 < tokens.count, case .word(let next, _) = tokens[index + 1] {
                        glued += next
                        index += 1
                    }
                    phrase[phrase.count - 1] = .word(glued, quoted: quoted)
                }
            }
            index += 1
        }
        finishMailbox()
        return result
    }

    static func displayName(from phrase: [Token], problems: inout [String]) -> String? {
        var parts: [String] = []
        var encodedRun = false
        for token in phrase {
            switch token {
            case .word(let text, let quoted):
                let isEncoded = !quoted && text.hasPrefix("=?") && text.hasSuffix("?=")
                if isEncoded && encodedRun, let last = parts.popLast() {
                    parts.append(last + text)  // adjacent encoded words: whitespace between them goes
                } else {
                    parts.append(text)
                }
                encodedRun = isEncoded
            case .comment:
                continue
            default:
                continue
            }
        }
        let joined = parts.joined(separator: " ")
        if joined.isEmpty {
            // Only a comment: `<a@b> (Name)` style names sometimes sit in a comment before the address.
            for case .comment(let text) in phrase where !text.isEmpty { return EncodedWordDecoder.decode(text) }
            return nil
        }
        let decoded = EncodedWordDecoder.decode(joined).trimmingSpaces()
        return decoded.isEmpty ? nil : decoded
    }

    static func tokenize(_ bytes: ArraySlice<UInt8>, problems: inout [String]) -> [Token] {
        var tokens: [Token] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            switch byte {
            case _ where ASCII.isWhitespace(byte):
                index += 1
            case ASCII.quote:
                var value: [UInt8] = []
                index += 1
                var closed = false
                while index < bytes.endIndex {
                    let current = bytes[index]
                    if current == ASCII.backslash, index + 1 < bytes.endIndex {
                        value.append(bytes[index + 1])
                        index += 2
                        continue
                    }
                    if current == ASCII.quote { closed = true; index += 1; break }
                    if current != ASCII.cr && current != ASCII.lf { value.append(current) }
                    index += 1
                }
                if !closed { problems.append("unterminated quoted string in address") }
                tokens.append(.word(String(headerBytes: value), quoted: true))
            case ASCII.openParen:
                var depth = 0
                var value: [UInt8] = []
                while index < bytes.endIndex {
                    let current = bytes[index]
                    if current == ASCII.backslash, index + 1 < bytes.endIndex {
                        value.append(bytes[index + 1])
                        index += 2
                        continue
                    }
                    if current == ASCII.openParen {
                        depth += 1
                        if depth > 1 { value.append(current) }
                    } else if current == ASCII.closeParen {
                        depth -= 1
                        if depth == 0 { index += 1; break }
                        value.append(current)
                    } else {
                        value.append(current)
                    }
                    index += 1
                }
                if depth > 0 { problems.append("unterminated comment in address") }
                tokens.append(.comment(String(headerBytes: value)))
            case ASCII.lessThan:
                index += 1
                let start = index
                while index < bytes.endIndex, bytes[index] != ASCII.greaterThan { index += 1 }
                var address = bytes[start..<index]
                if index < bytes.endIndex { index += 1 } else { problems.append("unterminated angle address") }
                // Obsolete route syntax: `<@relay:user@host>`.
                if address.first == ASCII.at, let colon = address.firstIndex(of: ASCII.colon) {
                    address = address[(colon + 1)...]
                }
                let text = String(headerBytes: address.filter { !ASCII.isWhitespace($0) })
                tokens.append(.angle(unquoteLocalPart(text)))
            case ASCII.comma, ASCII.colon, ASCII.semicolon, ASCII.at:
                tokens.append(.special(byte))
                index += 1
            default:
                let start = index
                while index < bytes.endIndex {
                    let current = bytes[index]
                    if ASCII.isWhitespace(current) || current == ASCII.quote || current == ASCII.openParen
                        || current == ASCII.lessThan || current == ASCII.comma || current == ASCII.semicolon
                        || (current == ASCII.colon && !isInsideEncodedWord(bytes, start: start, at: index))
                    { break }
                    index += 1
                }
                if index == start { index += 1; continue }
                tokens.append(.word(String(headerBytes: bytes[start..<index]), quoted: false))
            }
        }
        return tokens
    }

    /// Encoded words may not contain `:` in theory, but their text can; a `:` inside `=?…?=` is not a group.
    static func isInsideEncodedWord(_ bytes: ArraySlice<UInt8>, start: Int, at index: Int) -> Bool {
        bytes[start..<index].starts(with: [ASCII.equals, ASCII.question])
    }

    /// `"john smith"@example.com` stays quoted only where it must.
    static func unquoteLocalPart(_ text: String) -> String {
        guard text.hasPrefix("\""), let closing = text.dropFirst().firstIndex(of: "\"") else { return text }
        let local = text[text.index(after: text.startIndex)..<closing]
        let rest = text[text.index(after: closing)...]
        return local.contains(" ") ? "\"\(local)\"\(rest)" : "\(local)\(rest)"
    }
}
