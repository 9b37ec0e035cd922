import Foundation

/// A search as a person typed it, read into a tree (issue 36): Gmail's operators, free words, quoted
/// phrases, `OR`, `-` for negation and parentheses. `SearchQueryParser` makes it; the store compiles
/// it into one parameterised statement, so no text of the person's ever reaches SQL or FTS5 syntax.
public indirect enum SearchQuery: Sendable, Hashable {
    case term(SearchTerm)
    /// Every part matches (words side by side).
    case all([SearchQuery])
    /// At least one part matches (`OR`).
    case any([SearchQuery])
    /// The part does not match (`-`).
    case not(SearchQuery)
}

/// One condition of a search.
public enum SearchTerm: Sendable, Hashable {
    /// A free word, matched as a whole word in subject, people and text; `prefix`: also as the start
    /// of a word (the last word typed, which may still be being typed).
    case word(String, prefix: Bool)
    /// `"…"`: these words next to each other, in this order.
    case phrase(String)
    /// `from:` the sender's name or address.
    case from(String)
    /// `to:` any recipient (To or Cc, as Gmail's `to:` does).
    case to(String)
    /// `cc:` a Cc recipient only.
    case cc(String)
    /// `subject:` words of the subject.
    case subject(String)
    /// `filename:` part of an attachment's file name.
    case filename(String)
    /// `has:attachment`.
    case hasAttachment
    /// `is:unread`, `is:read`, `is:starred`.
    case flag(SearchFlag)
    /// `in:…`.
    case folder(SearchFolder)
    /// `before:`, `after:`, `older_than:`, `newer_than:`.
    case received(SearchDateBound)
    /// `larger:`, `smaller:`.
    case size(SearchSizeBound)
}

public enum SearchFlag: String, Sendable, Hashable, CaseIterable {
    case unread, read, starred
}

/// Where `in:` looks: a folder role (so `in:inbox` finds the Inbox of every layout, `INBOX`,
/// `[Gmail]/Sent Mail` or `Sent`), the virtual Archive, or a folder named by its path.
public enum SearchFolder: Sendable, Hashable {
    case role(FolderType)
    /// FR-SYNC-10's Archive, as the Archive view lists it (`VirtualMailbox.archive`).
    case archive
    /// A folder's path, compared without regard to case (`in:Receipts`, `in:"Work/2024"`).
    case path(String)

    /// The names `in:` reads as roles rather than paths.
    public static let roleNames: [String: SearchFolder] = [
        "inbox": .role(.inbox), "sent": .role(.sent), "drafts": .role(.drafts), "draft": .role(.drafts),
        "trash": .role(.trash), "bin": .role(.trash), "spam": .role(.spam), "junk": .role(.spam), "archive": .archive
    ]
}

/// A calendar day as `before:` and `after:` name it.
public struct SearchDay: Sendable, Hashable {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Midnight starting the day in `calendar`'s time zone.
    public func start(in calendar: Calendar) -> Date {
        calendar.date(from: DateComponents(year: year, month: month, day: day)) ?? Date.distantPast
    }
}

/// `older_than:` / `newer_than:` amounts: `7d`, `2m`, `1y`.
public struct SearchAge: Sendable, Hashable {
    public enum Unit: Character, Sendable, Hashable {
        case day = "d"
        case month = "m"
        case year = "y"
    }

    public var amount: Int
    public var unit: Unit

    public init(amount: Int, unit: Unit) {
        self.amount = amount
        self.unit = unit
    }

    /// The instant `amount` units before `now`: calendar months and years (the same day of the month,
    /// clamped to the month's last), days of the calendar (a day across a DST change is 23 or 25 h).
    public func instant(before now: Date, calendar: Calendar) -> Date {
        let component: Calendar.Component =
            switch unit {
            case .day: .day
            case .month: .month
            case .year: .year
            }
        return calendar.date(byAdding: component, value: -amount, to: now) ?? Date.distantPast
    }
}

/// A bound on the date the message was received (the server's INTERNALDATE, as Gmail's operators use).
public enum SearchDateBound: Sendable, Hashable {
    /// Received before the day starts.
    case before(SearchDay)
    /// Received on the day or later.
    case after(SearchDay)
    /// Received more than the age ago.
    case olderThan(SearchAge)
    /// Received within the age.
    case newerThan(SearchAge)

    /// The bound as an instant: `received < instant` when `isUpperBound`, else `received >= instant`.
    public func instant(now: Date, calendar: Calendar) -> (instant: Date, isUpperBound: Bool) {
        switch self {
        case .before(let day): (day.start(in: calendar), true)
        case .after(let day): (day.start(in: calendar), false)
        case .olderThan(let age): (age.instant(before: now, calendar: calendar), true)
        case .newerThan(let age): (age.instant(before: now, calendar: calendar), false)
        }
    }
}

/// `larger:` / `smaller:` in bytes (K = 1,024, M = 1,048,576, G = 1,073,741,824; a bare number is bytes).
public enum SearchSizeBound: Sendable, Hashable {
    case larger(Int64)
    case smaller(Int64)
}

/// What a search was read into: the tree, and the operators a front end shows as removable chips.
public struct ParsedSearch: Sendable, Hashable {
    /// The query as typed.
    public var text: String
    /// Nil when there is nothing to look for (only spaces).
    public var query: SearchQuery?
    /// The operators that stand alone in the query (not inside a group or beside an `OR`), in order.
    public var operators: [SearchOperatorMention]

    public init(text: String, query: SearchQuery?, operators: [SearchOperatorMention]) {
        self.text = text
        self.query = query
        self.operators = operators
    }

    /// The query without `mention` (what removing its chip searches for), spaces tidied.
    public func removing(_ mention: SearchOperatorMention) -> String {
        var characters = Array(text)
        let end = min(characters.count, mention.offset + mention.length)
        guard mention.offset >= 0, mention.offset < end else { return text }
        characters.removeSubrange(mention.offset..<end)
        return String(characters).split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}

/// An operator as it appears in the query text: `from:alice`, `-is:read`, `subject:"year end"`.
public struct SearchOperatorMention: Sendable, Hashable, Codable {
    /// Its text as typed.
    public var text: String
    /// Where it starts, in characters from the start of the query.
    public var offset: Int
    /// Its length in characters.
    public var length: Int

    public init(text: String, offset: Int, length: Int) {
        self.text = text
        self.offset = offset
        self.length = length
    }
}

/// A query that could not be read, with the part that could not and where it is, so a front end
/// can point at it. Never an SQL or FTS5 error: those cannot happen for a query that was read.
public struct SearchQueryError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        /// `before:` / `after:` without a real date (YYYY-MM-DD or YYYY/MM/DD).
        case unreadableDate
        /// `older_than:` / `newer_than:` without an amount of days, months or years (`7d`, `2m`, `1y`).
        case unreadableAge
        /// `larger:` / `smaller:` without a size (`200K`, `5M`).
        case unreadableSize
        /// `has:` or `is:` with a value they do not take; `accepted` lists those they do.
        case unknownValue(accepted: [String])
        /// An operator with nothing after its colon.
        case missingValue
        /// A `(` never closed.
        case unclosedParenthesis
        /// A `)` with no `(` before it.
        case unopenedParenthesis
        /// `()` with nothing inside.
        case emptyParentheses
        /// `OR` without something on both sides.
        case danglingOr
        /// A `-` with nothing after it to leave out.
        case danglingNegation
        /// More than `SearchQueryParser.maximumDepth` groups or negations inside one another.
        case tooDeep
        /// More than `SearchQueryParser.maximumOperators` operators, `OR`s, `-`s and parentheses.
        case tooManyOperators
    }

    public var reason: Reason
    /// The text that could not be read (`before:2024-13-01`).
    public var part: String
    /// Where the part starts, in characters from the start of the query.
    public var offset: Int

    public init(_ reason: Reason, part: String, offset: Int) {
        self.reason = reason
        self.part = part
        self.offset = offset
    }

    /// One neutral line naming the part.
    public var message: String {
        switch reason {
        case .unreadableDate: "cannot read the date in \(part) (write it as YYYY-MM-DD or YYYY/MM/DD)"
        case .unreadableAge: "cannot read the age in \(part) (write a number of days, months or years: 7d, 2m, 1y)"
        case .unreadableSize: "cannot read the size in \(part) (write a number of bytes, or with K or M: 200K, 5M)"
        case .unknownValue(let accepted): "cannot read \(part): it takes \(accepted.joined(separator: ", "))"
        case .missingValue: "nothing to look for after \(part)"
        case .unclosedParenthesis: "this ( is never closed"
        case .unopenedParenthesis: "this ) closes nothing"
        case .emptyParentheses: "nothing between the parentheses \(part)"
        case .danglingOr: "OR needs something to look for on both sides"
        case .danglingNegation: "nothing after the - to leave out"
        case .tooDeep: "too many parentheses or - inside one another"
        case .tooManyOperators: "too many operators: at most \(SearchQueryParser.maximumOperators) (the first one over is \(part))"
        }
    }

    public var description: String { message }
}
