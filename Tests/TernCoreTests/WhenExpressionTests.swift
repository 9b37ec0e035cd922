import Foundation
import Testing

@testable import TernCore

/// Issue 36: the times snooze and send later read, placed on a fixed clock in Paris (a zone with
/// summer time, so wall-clock times are not a fixed offset from UTC).
struct WhenExpressionTests {
    let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Paris")!
        return calendar
    }()
    /// Wednesday 2026-11-25 14:30 in Paris (13:30 UTC).
    let now = Date(timeIntervalSince1970: 1_795_613_400)

    func local(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
        calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
    }

    func when(_ text: String) throws -> Date { try WhenExpression(parsing: text).date(after: now, calendar: calendar) }

    @Test func theClockIsWhatTheTestsSayItIs() {
        #expect(local(2026, 11, 25, 14, 30) == now)
        #expect(calendar.component(.weekday, from: now) == 4)
    }

    @Test func daysAndTimes() throws {
        #expect(try when("tomorrow 08:00") == local(2026, 11, 26, 8))
        #expect(try when("Tomorrow") == local(2026, 11, 26, 8))
        #expect(try when("today 17:00") == local(2026, 11, 25, 17))
        #expect(try when("today 5pm") == local(2026, 11, 25, 17))
        #expect(try when("mon 9:00") == local(2026, 11, 30, 9))
        #expect(try when("friday 5:30pm") == local(2026, 11, 27, 17, 30))
        #expect(try when("wed 9am") == local(2026, 12, 2, 9), "today's weekday names next week's")
        #expect(try when("tomorrow 12am") == local(2026, 11, 26, 0))
        #expect(try when("tomorrow 12pm") == local(2026, 11, 26, 12))
        #expect(try when("sat 17h") == local(2026, 11, 28, 17))
    }

    @Test func spansFromNow() throws {
        #expect(try when("in 2h") == now.addingTimeInterval(7200))
        #expect(try when("in 30m") == now.addingTimeInterval(1800))
        #expect(try when("in 1h30m") == now.addingTimeInterval(5400))
        #expect(try when("in 3d") == now.addingTimeInterval(3 * 86_400))
        #expect(try when("in 1 w") == now.addingTimeInterval(604_800))
    }

    @Test func isoTimes() throws {
        #expect(try when("2026-12-01T08:00") == local(2026, 12, 1, 8))
        #expect(try when("2026-12-01 08:00") == local(2026, 12, 1, 8))
        #expect(try when("2026-12-01") == local(2026, 12, 1, 8))
        #expect(try when("2026-12-01T08:00:00Z") == Date(timeIntervalSince1970: 1_796_112_000))
        #expect(try when("2026-12-01T09:00+01:00") == Date(timeIntervalSince1970: 1_796_112_000))
        #expect(try when("2026-12-01T03:00-05:00") == Date(timeIntervalSince1970: 1_796_112_000))
        // Summer time: the wall clock in Paris is UTC+2 in July.
        #expect(try when("2027-07-01T08:00") == Date(timeIntervalSince1970: 1_814_421_600))
    }

    @Test(arguments: [
        "", "soon", "in", "in 2x", "in h", "in 0h", "tomorrow 25:00", "tomorrow 8:7", "tomorrow 13pm", "mon 9:00 extra",
        "2026-13-01", "2026-12-01T8", "2026-12-01X08:00", "2026-12-01T08:00+99"
    ])
    func whatCannotBeReadSaysSo(text: String) {
        #expect(throws: WhenExpressionError.self) { try when(text) }
    }

    @Test func aTimeAlreadyPastIsRefused() {
        #expect(throws: WhenExpressionError.self) { try when("today 08:00") }
        #expect(throws: WhenExpressionError.self) { try when("2020-01-01T00:00Z") }
    }
}
