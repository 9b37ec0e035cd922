import Foundation
import Testing

@testable import TernCore

/// Issue 36: Gmail's search syntax read into a tree; every operator, OR, negation, groups, phrases,
/// and each malformed form with the part and position its error names.
struct SearchQueryParserTests {
    func query(_ text: String) throws -> SearchQuery? { try SearchQueryParser().parse(text).query }
    func term(_ text: String) throws -> SearchTerm? {
        guard case .term(let term) = try query(text) else { return nil }
        return term
    }
    func error(_ text: String) -> SearchQueryError? {
        do {
            _ = try SearchQueryParser().parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func freeWordsAsBefore() throws {
        #expect(try query("quarterly budg") == .all([.term(.word("quarterly", prefix: false)), .term(.word("budg", prefix: true))]))
        #expect(try query("budget ") == .term(.word("budget", prefix: true)))
        #expect(try query("   ") == nil)
        #expect(try query("") == nil)
        // Colons other than the operators' and hyphens inside words are text.
        #expect(try term("re:meeting") == .word("re:meeting", prefix: true))
        #expect(try term("http://example.com/a") == .word("http://example.com/a", prefix: true))
        #expect(try term("e-mail") == .word("e-mail", prefix: true))
        #expect(try query("AND") == .term(.word("AND", prefix: true)))
        #expect(try query("or") == .term(.word("or", prefix: true)))
    }

    @Test func phrases() throws {
        #expect(try term("\"budget review\"") == .phrase("budget review"))
        // An unclosed quote runs to the end, as Gmail reads it.
        #expect(try term("\"; DROP TABLE email; --") == .phrase("; DROP TABLE email; --"))
        #expect(try query("\"a b\" c") == .all([.term(.phrase("a b")), .term(.word("c", prefix: true))]))
    }

    @Test func everyOperator() throws {
        #expect(try term("from:alice") == .from("alice"))
        #expect(try term("From:Alice@Example.com") == .from("Alice@Example.com"))
        #expect(try term("from:\"Alice Arnold\"") == .from("Alice Arnold"))
        #expect(try term("to:bob") == .to("bob"))
        #expect(try term("cc:carol") == .cc("carol"))
        #expect(try term("subject:\"year end\"") == .subject("year end"))
        #expect(try term("has:attachment") == .hasAttachment)
        #expect(try term("filename:report.pdf") == .filename("report.pdf"))
        #expect(try term("is:unread") == .flag(.unread))
        #expect(try term("is:READ") == .flag(.read))
        #expect(try term("is:starred") == .flag(.starred))
        #expect(try term("in:inbox") == .folder(.role(.inbox)))
        #expect(try term("in:sent") == .folder(.role(.sent)))
        #expect(try term("in:trash") == .folder(.role(.trash)))
        #expect(try term("in:archive") == .folder(.archive))
        #expect(try term("in:Receipts") == .folder(.path("Receipts")))
        #expect(try term("in:\"Work/2024 Q1\"") == .folder(.path("Work/2024 Q1")))
        #expect(try term("before:2024-01-15") == .received(.before(SearchDay(year: 2024, month: 1, day: 15))))
        #expect(try term("after:2024/2/29") == .received(.after(SearchDay(year: 2024, month: 2, day: 29))))
        #expect(try term("older_than:7d") == .received(.olderThan(SearchAge(amount: 7, unit: .day))))
        #expect(try term("newer_than:2m") == .received(.newerThan(SearchAge(amount: 2, unit: .month))))
        #expect(try term("newer_than:1Y") == .received(.newerThan(SearchAge(amount: 1, unit: .year))))
        #expect(try term("larger:5M") == .size(.larger(5 << 20)))
        #expect(try term("smaller:200K") == .size(.smaller(200 << 10)))
        #expect(try term("larger:1000") == .size(.larger(1000)))
        #expect(try term("larger:2mb") == .size(.larger(2 << 20)))
    }

    @Test func orNegationAndGroups() throws {
        let alice = SearchQuery.term(.from("alice"))
        let bob = SearchQuery.term(.from("bob"))
        #expect(try query("from:alice OR from:bob") == .any([alice, bob]))
        #expect(try query("-from:alice") == .not(alice))
        #expect(try query("--from:alice") == .not(.not(alice)))
        // OR takes its neighbours: `budget from:alice OR from:bob` is budget AND (alice OR bob).
        #expect(try query("budget from:alice OR from:bob") == .all([.term(.word("budget", prefix: false)), .any([alice, bob])]))
        #expect(
            try query("(from:alice OR from:bob) -(is:read OR has:attachment) x")
                == .all([
                    .any([alice, bob]), .not(.any([.term(.flag(.read)), .term(.hasAttachment)])), .term(.word("x", prefix: true))
                ]))
        #expect(try query("((a))") == .term(.word("a", prefix: false)))
        #expect(
            try query("a OR b OR c") == .any([.term(.word("a", prefix: false)), .term(.word("b", prefix: false)), .term(.word("c", prefix: true))]))
        #expect(
            try query("(a b) OR c")
                == .any([.all([.term(.word("a", prefix: false)), .term(.word("b", prefix: false))]), .term(.word("c", prefix: true))]))
    }

    @Test func malformedFormsNameTheirPart() throws {
        let cases: [(String, SearchQueryError.Reason, String, Int)] = [
            ("before:2024-13-01", .unreadableDate, "before:2024-13-01", 0),
            ("budget after:2023-02-29", .unreadableDate, "after:2023-02-29", 7),
            ("before:yesterday", .unreadableDate, "before:yesterday", 0),
            ("before:24-01-01", .unreadableDate, "before:24-01-01", 0),
            ("older_than:7w", .unreadableAge, "older_than:7w", 0),
            ("newer_than:0d", .unreadableAge, "newer_than:0d", 0),
            ("newer_than:d", .unreadableAge, "newer_than:d", 0),
            ("larger:5T", .unreadableSize, "larger:5T", 0),
            ("smaller:-1", .unreadableSize, "smaller:-1", 0),
            ("larger:99999999999999G", .unreadableSize, "larger:99999999999999G", 0),
            ("has:pdf", .unknownValue(accepted: ["has:attachment"]), "has:pdf", 0),
            ("is:important", .unknownValue(accepted: ["is:unread", "is:read", "is:starred"]), "is:important", 0),
            ("from: alice", .missingValue, "from:", 0),
            ("a from:", .missingValue, "from:", 2),
            ("(from:alice", .unclosedParenthesis, "(", 0),
            ("a (b (c)", .unclosedParenthesis, "(", 2),
            ("a)", .unopenedParenthesis, ")", 1),
            ("()", .emptyParentheses, "()", 0),
            ("OR a", .danglingOr, "OR", 0),
            ("a OR", .danglingOr, "OR", 2),
            ("a OR OR b", .danglingOr, "OR", 2),
            ("(a OR) b", .danglingOr, "OR", 3),
            ("a -)", .danglingNegation, "-", 2)
        ]
        for (text, reason, part, offset) in cases {
            let found = error(text)
            #expect(found?.reason == reason, "\(text)")
            #expect(found?.part == part, "\(text)")
            #expect(found?.offset == offset, "\(text)")
        }
        #expect(error("before:2024-13-01")?.message.hasPrefix("cannot read the date in before:2024-13-01") == true)
        #expect(error(String(repeating: "(", count: 40) + "a" + String(repeating: ")", count: 40))?.reason == .tooDeep)
        #expect(error(String(repeating: "-", count: 40) + "a")?.reason == .tooDeep)
        #expect(error(String(repeating: "-", count: 100_000) + "a")?.reason == .tooManyOperators)
        #expect(error(Array(repeating: "is:read", count: 201).joined(separator: " OR "))?.reason == .tooManyOperators)
        #expect(try query(Array(repeating: "word", count: 5_000).joined(separator: " ")) != nil)
    }

    @Test func operatorsStandingAloneAreChips() throws {
        let parsed = try SearchQueryParser().parse("budget from:alice -is:read (a OR in:sent) subject:\"year end\"")
        #expect(parsed.operators.map(\.text) == ["from:alice", "-is:read", "subject:\"year end\""])
        #expect(parsed.removing(parsed.operators[0]) == "budget -is:read (a OR in:sent) subject:\"year end\"")
        #expect(parsed.removing(parsed.operators[2]) == "budget from:alice -is:read (a OR in:sent)")
        #expect(try SearchQueryParser().parse("from:a OR from:b").operators.isEmpty)
    }

    @Test func datesBecomeInstantsInTheCalendar() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Paris")!
        let now = Date(timeIntervalSince1970: 1_711_800_000) // 2024-03-30 12:00 UTC
        let before = SearchDateBound.before(SearchDay(year: 2024, month: 1, day: 15)).instant(now: now, calendar: calendar)
        #expect(before.isUpperBound && before.instant == Date(timeIntervalSince1970: 1_705_273_200)) // 2024-01-14 23:00 UTC
        // A calendar month back from March 30 is February 29 (clamped), not 30 days.
        let month = SearchDateBound.newerThan(SearchAge(amount: 1, unit: .month)).instant(now: now, calendar: calendar)
        #expect(!month.isUpperBound && month.instant == Date(timeIntervalSince1970: 1_709_208_000))
        // A day across the DST change (March 31 in Paris) is 23 hours.
        let later = Date(timeIntervalSince1970: 1_711_886_400) // 2024-03-31 12:00 UTC
        let day = SearchDateBound.olderThan(SearchAge(amount: 1, unit: .day)).instant(now: later, calendar: calendar)
        #expect(later.timeIntervalSince(day.instant) == 23 * 3600)
    }
}
