import Foundation

/// Reads a search box's text into a `SearchQuery` (issue 36), Gmail's syntax:
///
/// - words are matched whole, the last word of the query also as the start of a word (as before the
///   operators: it may still be being typed); `"…"` is a phrase (an unclosed quote runs to the end);
/// - `name:value` for the operators in `operatorNames` (any case); `value` may be quoted
///   (`subject:"year end"`); a word with another colon (`re:`, a URL) is an ordinary word;
/// - parts side by side must all match; `OR` (in capitals) between two parts, either; `-` before a
///   part leaves it out; parentheses group; `OR` binds tighter than the space, as in Gmail
///   (`a b OR c` is `a (b OR c)`).
///
/// Pure: the same text always gives the same tree or the same `SearchQueryError`.
public struct SearchQueryParser: Sendable {
    /// Groups and negations nested deeper than this are refused rather than read by deeper recursion.
    public static let maximumDepth = 32
    /// More operators, `OR`s, `-`s and parentheses than this are refused: each becomes an SQL condition,
    /// and SQLite limits a statement's expression depth and bound values.
    public static let maximumOperators = 200

    /// Every operator, as the web app's suggestions offer them.
    public static let operatorNames = [
        "from", "to", "cc", "subject", "has", "filename", "is", "in", "before", "after", "older_than", "newer_than", "larger",
        "smaller"
    ]

    public init() {}

    public func parse(_ text: String) throws(SearchQueryError) -> ParsedSearch {
        let characters = Array(text)
        var reader = Reader(tokens: try Self.tokens(characters))
        let (query, mentions) = try reader.parseTop()
        let named = mentions.map { mention in
            SearchOperatorMention(
                text: String(characters[mention.offset..<(mention.offset + mention.length)]), offset: mention.offset, length: mention.length)
        }
        return ParsedSearch(text: text, query: query, operators: named)
    }

    // MARK: Tokens

    enum Token: Equatable {
        case open(offset: Int)
        case close(offset: Int)
        case or(offset: Int)
        case minus(offset: Int)
        case phrase(String, offset: Int, length: Int)
        case word(String, offset: Int, length: Int, last: Bool)
        case named(name: String, value: String, quoted: Bool, offset: Int, length: Int)

        var offset: Int {
            switch self {
            case .open(let offset), .close(let offset), .or(let offset), .minus(let offset): offset
            case .phrase(_, let offset, _), .word(_, let offset, _, _), .named(_, _, _, let offset, _): offset
            }
        }

        var end: Int {
            switch self {
            case .open(let offset), .close(let offset), .or(let offset), .minus(let offset): offset + 1
            case .phrase(_, let offset, let length), .word(_, let offset, let length, _), .named(_, _, _, let offset, let length):
                offset + length
            }
        }
    }

    static func tokens(_ characters: [Character]) throws(SearchQueryError) -> [Token] {
        var tokens: [Token] = []
        var index = 0
        func isBoundary(_ character: Character) -> Bool { character.isWhitespace || character == "(" || character == ")" }
        /// A quoted text from the quote at `start`: its contents and the index after it.
        func quoted(from start: Int) -> (String, Int) {
            var end = start + 1
            while end < characters.count, characters[end] != "\"" { end += 1 }
            return (String(characters[(start + 1)..<end]), min(end + 1, characters.count))
        }
        while index < characters.count {
            let character = characters[index]
            if character.isWhitespace {
                index += 1
            } else if character == "(" {
                tokens.append(.open(offset: index))
                index += 1
            } else if character == ")" {
                tokens.append(.close(offset: index))
                index += 1
            } else if character == "-", index + 1 < characters.count, !characters[index + 1].isWhitespace {
                tokens.append(.minus(offset: index))
                index += 1
            } else if character == "\"" {
                let (text, end) = quoted(from: index)
                tokens.append(.phrase(text, offset: index, length: end - index))
                index = end
            } else {
                var end = index
                while end < characters.count, !isBoundary(characters[end]) { end += 1 }
                let run = String(characters[index..<end])
                if let colon = run.firstIndex(of: ":"), operatorNames.contains(run[..<colon].lowercased()) {
                    let name = run[..<colon].lowercased()
                    let valueStart = index + run.distance(from: run.startIndex, to: colon) + 1
                    if valueStart < characters.count, characters[valueStart] == "\"" {
                        let (value, quotedEnd) = quoted(from: valueStart)
                        end = quotedEnd
                        tokens.append(.named(name: name, value: value, quoted: true, offset: index, length: end - index))
                    } else {
                        tokens.append(
                            .named(name: name, value: String(characters[valueStart..<end]), quoted: false, offset: index, length: end - index))
                    }
                } else if run == "OR" {
                    tokens.append(.or(offset: index))
                } else {
                    tokens.append(.word(run, offset: index, length: end - index, last: false))
                }
                index = end
            }
        }
        if let excess = tokens.filter({ if case .word = $0 { false } else if case .phrase = $0 { false } else { true } })
            .dropFirst(maximumOperators).first
        {
            throw SearchQueryError(.tooManyOperators, part: String(characters[excess.offset..<excess.end]), offset: excess.offset)
        }
        if case .word(let text, let offset, let length, _) = tokens.last {
            tokens[tokens.count - 1] = .word(text, offset: offset, length: length, last: true)
        }
        return tokens
    }

    // MARK: Grammar

    /// query := sequence ; sequence := either+ ; either := unary ("OR" unary)* ;
    /// unary := "-" unary | primary ; primary := "(" sequence ")" | phrase | word | name:value.
    struct Reader {
        let tokens: [Token]
        var position = 0

        var next: Token? { position < tokens.count ? tokens[position] : nil }

        /// The whole query, and the operators standing alone at its top (what chips show).
        mutating func parseTop() throws(SearchQueryError) -> (SearchQuery?, [SearchOperatorMention]) {
            guard !tokens.isEmpty else { return (nil, []) }
            let (query, mentions) = try parseSequence(depth: 0)
            if case .close(let offset) = next { throw SearchQueryError(.unopenedParenthesis, part: ")", offset: offset) }
            return (query, mentions)
        }

        /// Parts side by side, all of which must match; `mentions`: those that are an operator alone
        /// (or a negated one), not one side of an `OR`.
        mutating func parseSequence(depth: Int) throws(SearchQueryError) -> (SearchQuery, [SearchOperatorMention]) {
            var parts: [SearchQuery] = []
            var mentions: [SearchOperatorMention] = []
            while let token = next {
                if case .close = token { break }
                let start = token.offset
                let isOperator = Self.isOperator(at: position, in: tokens)
                let (part, alternatives) = try parseEither(depth: depth)
                parts.append(part)
                if isOperator, alternatives == 1 {
                    let end = tokens[position - 1].end
                    mentions.append(SearchOperatorMention(text: "", offset: start, length: end - start))
                }
            }
            return (parts.count == 1 ? parts[0] : .all(parts), mentions)
        }

        /// `a OR b OR c`: OR takes the parts next to it, so `x a OR b` is `x (a OR b)`, as in Gmail.
        mutating func parseEither(depth: Int) throws(SearchQueryError) -> (SearchQuery, count: Int) {
            if case .or(let offset) = next { throw SearchQueryError(.danglingOr, part: "OR", offset: offset) }
            var alternatives = [try parseUnary(depth: depth)]
            while case .or(let offset) = next {
                position += 1
                switch next {
                case nil, .or, .close: throw SearchQueryError(.danglingOr, part: "OR", offset: offset)
                default: alternatives.append(try parseUnary(depth: depth))
                }
            }
            return alternatives.count == 1 ? (alternatives[0], 1) : (.any(alternatives), alternatives.count)
        }

        /// An operator, or `-` and an operator.
        static func isOperator(at position: Int, in tokens: [Token]) -> Bool {
            var index = position
            if case .minus = tokens[index] { index += 1 }
            guard index < tokens.count, case .named = tokens[index] else { return false }
            return true
        }

        mutating func parseUnary(depth: Int) throws(SearchQueryError) -> SearchQuery {
            if case .minus(let offset) = next {
                position += 1
                switch next {
                case nil, .or, .close: throw SearchQueryError(.danglingNegation, part: "-", offset: offset)
                default:
                    guard depth < SearchQueryParser.maximumDepth else { throw SearchQueryError(.tooDeep, part: "-", offset: offset) }
                    return .not(try parseUnary(depth: depth + 1))
                }
            }
            return try parsePrimary(depth: depth)
        }

        mutating func parsePrimary(depth: Int) throws(SearchQueryError) -> SearchQuery {
            guard let token = next else { throw SearchQueryError(.danglingNegation, part: "-", offset: 0) }
            position += 1
            switch token {
            case .open(let offset):
                guard depth < SearchQueryParser.maximumDepth else { throw SearchQueryError(.tooDeep, part: "(", offset: offset) }
                if case .close = next { throw SearchQueryError(.emptyParentheses, part: "()", offset: offset) }
                guard next != nil else { throw SearchQueryError(.unclosedParenthesis, part: "(", offset: offset) }
                let (inner, _) = try parseSequence(depth: depth + 1)
                guard case .close = next else { throw SearchQueryError(.unclosedParenthesis, part: "(", offset: offset) }
                position += 1
                return inner
            case .close(let offset): throw SearchQueryError(.unopenedParenthesis, part: ")", offset: offset)
            case .or(let offset): throw SearchQueryError(.danglingOr, part: "OR", offset: offset)
            case .minus(let offset): throw SearchQueryError(.danglingNegation, part: "-", offset: offset)
            case .phrase(let text, _, _): return .term(.phrase(text))
            case .word(let text, _, _, let last): return .term(.word(text, prefix: last))
            case .named(let name, let value, let quoted, let offset, _):
                let part = "\(name):\(quoted ? "\"\(value)\"" : value)"
                return .term(try SearchQueryParser.term(name: name, value: value, part: part, offset: offset))
            }
        }
    }

    // MARK: Operators

    static func term(name: String, value: String, part: String, offset: Int) throws(SearchQueryError) -> SearchTerm {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw SearchQueryError(.missingValue, part: "\(name):", offset: offset) }
        switch name {
        case "from": return .from(trimmed)
        case "to": return .to(trimmed)
        case "cc": return .cc(trimmed)
        case "subject": return .subject(trimmed)
        case "filename": return .filename(trimmed)
        case "has":
            guard trimmed.lowercased() == "attachment" else {
                throw SearchQueryError(.unknownValue(accepted: ["has:attachment"]), part: part, offset: offset)
            }
            return .hasAttachment
        case "is":
            guard let flag = SearchFlag(rawValue: trimmed.lowercased()) else {
                throw SearchQueryError(.unknownValue(accepted: SearchFlag.allCases.map { "is:\($0.rawValue)" }), part: part, offset: offset)
            }
            return .flag(flag)
        case "in": return .folder(SearchFolder.roleNames[trimmed.lowercased()] ?? .path(trimmed))
        case "before", "after":
            guard let day = day(trimmed) else { throw SearchQueryError(.unreadableDate, part: part, offset: offset) }
            return .received(name == "before" ? .before(day) : .after(day))
        case "older_than", "newer_than":
            guard let age = age(trimmed) else { throw SearchQueryError(.unreadableAge, part: part, offset: offset) }
            return .received(name == "older_than" ? .olderThan(age) : .newerThan(age))
        default:
            guard let bytes = size(trimmed) else { throw SearchQueryError(.unreadableSize, part: part, offset: offset) }
            return .size(name == "larger" ? .larger(bytes) : .smaller(bytes))
        }
    }

    /// YYYY-MM-DD or YYYY/MM/DD (month and day of one or two digits), a day that exists.
    static func day(_ text: String) -> SearchDay? {
        let separator: Character = text.contains("/") ? "/" : "-"
        let fields = text.split(separator: separator, omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0].count == 4, (1...2).contains(fields[1].count), (1...2).contains(fields[2].count),
            fields.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
            let year = Int(fields[0]), let month = Int(fields[1]), let day = Int(fields[2]),
            year >= 1000, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        return SearchDay(year: year, month: month, day: day)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `7d`, `2m`, `1y`: a positive number of at most six digits and its unit.
    static func age(_ text: String) -> SearchAge? {
        guard let last = text.last, let unit = SearchAge.Unit(rawValue: Character(last.lowercased())) else { return nil }
        let digits = text.dropLast()
        guard (1...6).contains(digits.count), digits.allSatisfy(\.isASCIIDigit), let amount = Int(digits), amount > 0 else { return nil }
        return SearchAge(amount: amount, unit: unit)
    }

    /// `200K`, `5M`, `1G`, `5MB`, or bytes: at most 1 TiB.
    static func size(_ text: String) -> Int64? {
        var digits = Substring(text.uppercased())
        if digits.hasSuffix("B"), digits.count > 1, !(digits.dropLast().last?.isASCIIDigit ?? true) { digits = digits.dropLast() }
        var multiplier: Int64 = 1
        switch digits.last {
        case "K": multiplier = 1 << 10
        case "M": multiplier = 1 << 20
        case "G": multiplier = 1 << 30
        default: break
        }
        if multiplier > 1 { digits = digits.dropLast() }
        guard (1...13).contains(digits.count), digits.allSatisfy(\.isASCIIDigit), let amount = Int64(digits) else { return nil }
        let (bytes, overflow) = amount.multipliedReportingOverflow(by: multiplier)
        guard !overflow, bytes <= 1 << 40 else { return nil }
        return bytes
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
