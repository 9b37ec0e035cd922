import Foundation
import Testing

@testable import TernCore

/// Issue 36, Send later: each form a person types, resolved on a fixed clock in a fixed time zone,
/// and each unreadable form with the part its error names.
struct WhenExpressionTests {
    /// Wednesday 2026-11-25 14:30:15 in Paris (UTC+1 in November).
    let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Paris")!
        return calendar
    }()
    var now: Date { local(2026, 11, 25, 14, 30, 15) }

    func local(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int = 0) -> Date {
        calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
    }

    func when(_ text: String) throws -> Date { try WhenExpression(text).date(now: now, calendar: calendar) }

    func error(_ text: String) -> WhenExpressionError? {
        do {
            _ = try WhenExpression(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func isoTimesWithAnOffsetAreOneMomentAndWithoutOneAreLocal() throws {
        #expect(try when("2026-12-01T08:00:00Z") == Date(timeIntervalSince1970: 1_796_112_000))
        #expect(try when("2026-12-01T09:00+01:00") == Date(timeIntervalSince1970: 1_796_112_000))
        #expect(try when("2026-12-01T03:00-0500") == Date(timeIntervalSince1970: 1_796_112_000))
        #expect(try when("2026-12-01T08:00:00.250Z") == Date(timeIntervalSince1970: 1_796_112_000))
        #expect(try when("2026-12-01T08:00") == local(2026, 12, 1, 8, 0))
        #expect(try when("2026-12-01 17:45") == local(2026, 12, 1, 17, 45))
        #expect(try when("2026-12-01") == local(2026, 12, 1, 8, 0), "a day alone is the morning")
        #expect(try when("2028-02-29 10:00") == local(2028, 2, 29, 10, 0))
    }

    @Test func daysWithAndWithoutATime() throws {
        #expect(try when("tomorrow 08:00") == local(2026, 11, 26, 8, 0))
        #expect(try when("Tomorrow") == local(2026, 11, 26, 8, 0))
        #expect(try when("tomorrow at 5pm") == local(2026, 11, 26, 17, 0))
        #expect(try when("today 17:00") == local(2026, 11, 25, 17, 0))
        #expect(try when("mon 9:00") == local(2026, 11, 30, 9, 0))
        #expect(try when("Monday 9am") == local(2026, 11, 30, 9, 0))
        #expect(try when("fri") == local(2026, 11, 27, 8, 0))
        // Today's weekday while its time is to come, else a week on.
        #expect(try when("wed 18:00") == local(2026, 11, 25, 18, 0))
        #expect(try when("wed 9:00") == local(2026, 12, 2, 9, 0))
        #expect(try when("tomorrow 12am") == local(2026, 11, 26, 0, 0))
        #expect(try when("tomorrow 12pm") == local(2026, 11, 26, 12, 0))
    }

    @Test func aTimeAloneIsTheNextOneAndDelaysCountFromNow() throws {
        #expect(try when("17:30") == local(2026, 11, 25, 17, 30))
        #expect(try when("at 9:15") == local(2026, 11, 26, 9, 15))
        #expect(try when("in 2h") == now.addingTimeInterval(7200))
        #expect(try when("in 90 min") == now.addingTimeInterval(5400))
        #expect(try when("in 1h30m") == now.addingTimeInterval(5400))
        #expect(try when("in 3 days") == now.addingTimeInterval(3 * 86_400))
        #expect(try when("in 10s") == now.addingTimeInterval(10))
        #expect(try when("in 1 week") == now.addingTimeInterval(604_800))
    }

    @Test func unreadableFormsNameTheirPart() {
        #expect(error("") == .empty)
        #expect(error("  ") == .empty)
        #expect(error("soon") == .unreadable(part: "soon", text: "soon"))
        #expect(error("tomorrow noonish") == .unreadable(part: "noonish", text: "tomorrow noonish"))
        #expect(error("in 2 fortnights") == .unreadable(part: "2fortnights", text: "in 2 fortnights"))
        #expect(error("in") == .unreadable(part: "in", text: "in"))
        #expect(error("in 0h") == .unreadable(part: "0h", text: "in 0h"))
        #expect(error("in 2 years") == .unreadable(part: "2years", text: "in 2 years"))
        #expect(error("in 400d") == .tooFar("in 400d"))
        #expect(error("in 99999999999h") == .unreadable(part: "99999999999h", text: "in 99999999999h"))
        #expect(error("25:00") == .badTime("25:00"))
        #expect(error("13pm") == .badTime("13pm"))
        #expect(error("9:5") == .unreadable(part: "9:5", text: "9:5"))
        #expect(error("2026-02-30 10:00") == .unreadable(part: "2026-02-30", text: "2026-02-30 10:00"))
        #expect(error("2026-13-01") == .unreadable(part: "2026-13-01", text: "2026-13-01"))
        #expect(error("2026-12-01T08:00+99:00") == .unreadable(part: "+99:00", text: "2026-12-01T08:00+99:00"))
        #expect(error("2026-12-01T08") == .unreadable(part: "08", text: "2026-12-01T08"))
        #expect(error("tomorrow 08:00; rm -rf /") != nil)
        #expect(error("soon")?.description.contains("tomorrow 08:00") == true, "the error says what to type")
    }
}
