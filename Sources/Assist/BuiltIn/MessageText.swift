import Foundation
import TernCore

/// A message's own words, as the built-in provider reads them: quoted history, attribution lines,
/// signature, greeting, closing and machine-written footers removed (issue 19: "what to leave out
/// matters as much as what to keep"), then cut into segments: sentences, or the lines of a list
/// or of `Key: value` pairs, which are a sentence each in receipts and notifications.
struct MessageText: Sendable {
    var segments: [Segment]
    /// The last message's greeting, kept apart: it says how formally the sender writes.
    var greeting: String?
    /// The sender's own lines as written (greeting and boilerplate still in): what tells
    /// machine-written mail (`NoReplyDetector`).
    var lines: [String]

    struct Segment: Sendable {
        var text: String
        var words: [Substring]
        /// Its paragraph's position in the message (0 = first).
        var paragraph: Int
        var isQuestion: Bool
        /// A line of a list or a `Key: value` pair rather than a sentence of prose.
        var isListLine: Bool
    }

    init(body: String, lexicons: [Lexicon]) {
        let lines = Self.ownLines(body, lexicons: lexicons)
        var greeting: String?
        var remaining = lines[...]
        while let first = remaining.first, first.trimmingCharacters(in: .whitespaces).isEmpty { remaining = remaining.dropFirst() }
        if let first = remaining.first, Self.isGreeting(first, lexicons: lexicons) {
            greeting = first.trimmingCharacters(in: .whitespaces)
            remaining = remaining.dropFirst()
        }
        var segments: [Segment] = []
        var paragraph = 0
        for block in Self.paragraphs(Array(remaining)) {
            let listLike = block.count > 1 && block.filter(Self.looksLikeListLine).count * 2 >= block.count
            let pieces = listLike ? block.map { $0.trimmingCharacters(in: .whitespaces) } : Self.sentences(block.joined(separator: " "))
            var kept = 0
            for piece in pieces {
                let words = Tokens.words(piece)
                guard !words.isEmpty, !Self.isBoilerplate(words, lexicons: lexicons) else { continue }
                segments.append(
                    Segment(
                        text: piece, words: words, paragraph: paragraph,
                        isQuestion: piece.hasSuffix("?") || piece.contains("? ") || piece.hasPrefix("¿"),
                        isListLine: listLike))
                kept += 1
            }
            if kept > 0 { paragraph += 1 }
        }
        self.segments = segments
        self.greeting = greeting
        self.lines = lines
    }

    /// The lines the sender wrote: up to quoted history or the signature, without `>` lines, and
    /// without the closing and what follows it when only a short sign-off remains.
    static func ownLines(_ body: String, lexicons: [Lexicon]) -> [String] {
        // Read line by line and stop at the history: a reply deep in a thread quotes tens of
        // kilobytes that are never looked at.
        var lines: [String] = []
        var scanner = LineScanner(body)
        while let line = scanner.next() {
            let trimmed = line.trimmingWhitespace()
            if isSignatureDelimiter(trimmed) || isAttribution(trimmed) || isForwardedHeaderBlock(trimmed, following: scanner.peek(2)) { break }
            if trimmed.hasPrefix(">") { continue }
            lines.append(String(line))
        }
        // The closing: a short line like "Best," near the end, followed only by a few short lines.
        if let closing = lines.indices.last(where: { isClosing(lines[$0], lexicons: lexicons) }),
            lines.count - closing <= 7,
            lines[(closing + 1)...].allSatisfy({ $0.split(separator: " ").count <= 6 && !$0.hasSuffix(".") || $0.isEmpty })
        {
            lines.removeSubrange(closing...)
        }
        return lines
    }

    static func isSignatureDelimiter(_ line: String) -> Bool {
        line == "--" || line == "-- " || line == "—" || line == "__" || line.hasPrefix("________")
    }

    /// "On … wrote:", "Am … schrieb …:", "Le … a écrit :", "El … escribió:", and the separators
    /// mail programs put above a quoted or forwarded original.
    static func isAttribution(_ line: String) -> Bool {
        let lower = line.lowercased()
        if lower.hasPrefix("-----")
            && (lower.contains("original") || lower.contains("ursprüngliche") || lower.contains("message d'origine")
                || lower.contains("mensaje original") || lower.contains("forwarded") || lower.contains("weitergeleitet"))
        {
            return true
        }
        guard lower.hasSuffix(":") || lower.hasSuffix(": ") else { return false }
        let opens = ["on ", "am ", "le ", "el ", "il ", "op ", "em ", "dnia "].contains { lower.hasPrefix($0) }
        let says = [" wrote", " schrieb", " a écrit", " escribió", " ha scritto", " schreef", " escreveu", " napisał"].contains { lower.contains($0) }
        return opens && says || lower.hasSuffix(" wrote:") || lower.hasSuffix(" a écrit :") || lower.hasSuffix(" escribió:")
    }

    /// Outlook's quoted header block: "From:" then "Sent:"/"Date:" (and their German, French and
    /// Spanish names) on the next lines.
    static func isForwardedHeaderBlock(_ line: String, following: [Substring]) -> Bool {
        let fromNames = ["from:", "von:", "de :", "de:"]
        let dateNames = ["sent:", "date:", "gesendet:", "datum:", "envoyé :", "envoyé:", "date :", "enviado:", "fecha:"]
        let lower = line.lowercased()
        guard fromNames.contains(where: { lower.hasPrefix($0) }) else { return false }
        return following.contains { next in
            let nextLower = next.trimmingWhitespace().lowercased()
            return dateNames.contains { nextLower.hasPrefix($0) }
        }
    }

    static func isGreeting(_ line: String, lexicons: [Lexicon]) -> Bool {
        let words = Tokens.words(line)
        guard !words.isEmpty, words.count <= 7 else { return false }
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasSuffix(",") || trimmed.hasSuffix(":") || trimmed.hasSuffix("!") || words.count <= 4 else { return false }
        return lexicons.contains { $0.greetings.open(words) }
    }

    static func isClosing(_ line: String, lexicons: [Lexicon]) -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        let words = Tokens.words(trimmed)
        guard !words.isEmpty, words.count <= 5, !trimmed.hasSuffix("?"), !trimmed.hasSuffix(".") || words.count <= 2 else { return false }
        return lexicons.contains { $0.closings.open(words, minimumWords: words.count - 2) }
    }

    static func isBoilerplate(_ words: [Substring], lexicons: [Lexicon]) -> Bool {
        Lexicon.sharedBoilerplate.occur(in: words) || lexicons.contains { $0.boilerplate.occur(in: words) }
            || words.count <= 3 && words.allSatisfy { $0.hasPrefix("http") || $0.contains("www") }
    }

    static func paragraphs(_ lines: [String]) -> [[String]] {
        var blocks: [[String]] = [[]]
        for line in lines {
            if line.trimmingCharacters(in: .whitespaces).isEmpty {
                if !blocks[blocks.count - 1].isEmpty { blocks.append([]) }
            } else {
                blocks[blocks.count - 1].append(line)
            }
        }
        return blocks.filter { !$0.isEmpty }
    }

    /// `Key: value`, a bullet, a numbered item, or a short line without a full stop.
    static func looksLikeListLine(_ line: String) -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("- ") || trimmed.hasPrefix("* ") || trimmed.hasPrefix("• ") { return true }
        if let colon = trimmed.firstIndex(of: ":"), trimmed.distance(from: trimmed.startIndex, to: colon) <= 30,
            trimmed.index(after: colon) < trimmed.endIndex
        {
            return true
        }
        if let first = trimmed.first, first.isNumber, trimmed.prefix(4).contains(where: { $0 == "." || $0 == ")" }) { return true }
        return trimmed.count <= 40 && !(trimmed.last.map { ".!?".contains($0) } ?? false)
    }

    /// Sentences of prose: split after `.`, `!`, `?` or `…` followed by a space and a capital, a
    /// digit or an opening mark, except after common abbreviations, initials and the day numbers
    /// of German dates ("am 18. November").
    static func sentences(_ text: String) -> [String] {
        let characters = Array(text)
        var sentences: [String] = []
        var start = 0
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if ".!?…".contains(character), index + 2 < characters.count {
                var end = index + 1
                while end < characters.count, "\"'”»)".contains(characters[end]) { end += 1 }
                if end < characters.count, characters[end] == " " {
                    var next = end
                    while next < characters.count, characters[next] == " " { next += 1 }
                    if next < characters.count, startsSentence(characters[next]),
                        character != "." || !endsAbbreviation(characters, dotAt: index)
                    {
                        appendTrimmed(String(characters[start..<end]), to: &sentences)
                        start = next
                        index = next
                        continue
                    }
                }
            }
            index += 1
        }
        appendTrimmed(String(characters[start...]), to: &sentences)
        return sentences
    }

    private static func appendTrimmed(_ text: String, to sentences: inout [String]) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty { sentences.append(trimmed) }
    }

    private static func startsSentence(_ character: Character) -> Bool {
        character.isUppercase || character.isNumber || "¿¡\"'“«(".contains(character)
    }

    private static let abbreviations: Set<String> = [
        "e.g", "i.e", "etc", "vs", "dr", "mr", "mrs", "ms", "st", "no", "nr", "z.b", "bzw", "ca", "usw", "inkl", "evtl", "ggf", "hr", "fr",
        "mme", "m", "mlle", "sr", "sra", "srta", "dra", "p.ej", "approx", "tel", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep",
        "sept", "oct", "okt", "nov", "dec", "dez", "str", "abs", "ref", "vol", "u.a", "d.h", "s", "p"
    ]

    private static func endsAbbreviation(_ characters: [Character], dotAt dot: Int) -> Bool {
        var begin = dot
        while begin > 0, !characters[begin - 1].isWhitespace { begin -= 1 }
        let word = String(characters[begin..<dot]).lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "(\"'"))
        if word.isEmpty { return false }
        if abbreviations.contains(word) { return true }
        if word.count == 1, word.first?.isLetter == true { return true } // an initial
        if word.count <= 2, word.allSatisfy(\.isNumber) { return true } // "18. November", "3. OG"
        return false
    }
}

/// A body's lines one at a time (LF or CRLF), with a look at the next few.
struct LineScanner {
    private var rest: Substring

    init(_ text: String) { rest = text[...] }

    mutating func next() -> Substring? {
        guard let (line, after) = Self.line(in: rest) else { return nil }
        rest = after
        return line
    }

    func peek(_ count: Int) -> [Substring] {
        var lines: [Substring] = []
        var remaining = rest
        while lines.count < count, let (line, after) = Self.line(in: remaining) {
            lines.append(line)
            remaining = after
        }
        return lines
    }

    private static func line(in text: Substring) -> (Substring, Substring)? {
        guard !text.isEmpty else { return nil }
        guard let newline = text.utf8.firstIndex(of: 0x0A) else { return (trimCR(text), text[text.endIndex...]) }
        return (trimCR(text[..<newline]), text[text.utf8.index(after: newline)...])
    }

    private static func trimCR(_ line: Substring) -> Substring {
        line.utf8.last == 0x0D ? line.dropLast() : line
    }
}

/// Lowercased word tokens: letters, digits and the apostrophes and hyphens inside words.
enum Tokens {
    static func words(_ text: String) -> [Substring] {
        let lower = Substring(text.lowercased())
        var words: [Substring] = []
        var start: Substring.Index?
        var index = lower.startIndex
        while index < lower.endIndex {
            let character = lower[index]
            let inWord =
                character.isLetter || character.isNumber
                || (start != nil && (character == "'" || character == "’" || character == "-") && lower.index(after: index) < lower.endIndex
                    && (lower[lower.index(after: index)].isLetter))
            if inWord {
                if start == nil { start = index }
            } else if let begin = start {
                words.append(lower[begin..<index])
                start = nil
            }
            index = lower.index(after: index)
        }
        if let begin = start { words.append(lower[begin...]) }
        // The typographic apostrophe is read as the ASCII one ("can’t" is "can't").
        return words.map { $0.contains("’") ? Substring($0.replacingOccurrences(of: "’", with: "'")) : $0 }
    }
}
