import Foundation

/// A moment as a person types it for snooze and send later (issue 36): an ISO 8601 time
/// (`2026-12-01T08:00`, `2026-12-01 08:00`, with or without a zone; a date alone is 08:00 that
/// day), a day and a time (`today 17:00`, `tomorrow 08:00`, `mon 9:00`, `friday 5pm`; a day alone
/// is 08:00), or a span from now (`in 2h`, `in 30m`, `in 3d`, `in 1w`, `in 1h30m`). Parsing knows
/// no clock; `date(after:calendar:)` places it, in the calendar's time zone, strictly after `now`
/// (a weekday names the next one, never today; `today` at a time already past is refused).
public enum WhenExpression: Sendable, Hashable {
    /// An ISO time with its zone: that instant.
    case instant(Date)
    /// An ISO time without a zone: that wall-clock time where the person is.
    case wallClock(year: Int, month: Int, day: Int, hour: Int, minute: Int)
    /// `today` (0), `tomorrow` (1) at a time.
    case daysAhead(Int, hour: Int, minute: Int)
    /// The next such weekday (1 Sunday … 7 Saturday, as `Calendar` counts) at a time.
    case weekday(Int, hour: Int, minute: Int)
    /// `in …`: this many seconds from now.
    case after(seconds: Int)

    /// The time a day named without one stands for: the start of a working morning.
    public static let defaultHour = 8

    static let weekdays: [String: Int] = [
        "sun": 1, "sunday": 1, "mon": 2, "monday": 2, "tue": 3, "tues": 3, "tuesday": 3, "wed": 4, "wednesday": 4,
        "thu": 5, "thur": 5, "thurs": 5, "thursday": 5, "fri": 6, "friday": 6, "sat": 7, "saturday": 7
    ]

    static let units: [Character: Int] = ["m": 60, "h": 3600, "d": 86_400, "w": 604_800]

    public init(parsing text: String) throws(WhenExpressionError) {
        let words = text.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
        guard let first = words.first else { throw WhenExpressionError(text: text, reason: "say when: a time, a day or a span") }
        if first == "in" {
            guard words.count >= 2 else { throw WhenExpressionError(text: text, reason: "'in' needs a span such as 2h, 30m, 3d or 1w") }
            self = .after(seconds: try Self.span(words.dropFirst().joined(), text: text))
            return
        }
        if first.first?.isNumber == true, words.count <= 2, let iso = try Self.iso(words.joined(separator: "T"), text: text) {
            self = iso
            return
        }
        guard words.count <= 2 else { throw WhenExpressionError(text: text, reason: "expected a day and a time, such as 'tomorrow 08:00'") }
        let (hour, minute) = try words.count == 2 ? Self.clock(words[1], text: text) : (Self.defaultHour, 0)
        switch first {
        case "today": self = .daysAhead(0, hour: hour, minute: minute)
        case "tomorrow": self = .daysAhead(1, hour: hour, minute: minute)
        default:
            guard let weekday = Self.weekdays[first] else {
                throw WhenExpressionError(text: text, reason: "cannot read '\(first)': expected today, tomorrow, a weekday, 'in …' or an ISO time")
            }
            self = .weekday(weekday, hour: hour, minute: minute)
        }
    }

    /// The moment in `calendar`'s time zone, after `now`.
    public func date(after now: Date, calendar: Calendar) throws(WhenExpressionError) -> Date {
        let found: Date?
        switch self {
        case .instant(let date): found = date
        case .wallClock(let year, let month, let day, let hour, let minute):
            found = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))
        case .daysAhead(let days, let hour, let minute):
            found = calendar.date(byAdding: .day, value: days, to: calendar.startOfDay(for: now)).flatMap {
                calendar.date(bySettingHour: hour, minute: minute, second: 0, of: $0)
            }
        case .weekday(let weekday, let hour, let minute):
            let today = calendar.component(.weekday, from: now)
            let ahead = (weekday - today + 7) % 7
            found = calendar.date(byAdding: .day, value: ahead == 0 ? 7 : ahead, to: calendar.startOfDay(for: now)).flatMap {
                calendar.date(bySettingHour: hour, minute: minute, second: 0, of: $0)
            }
        case .after(let seconds): found = now.addingTimeInterval(TimeInterval(seconds))
        }
        guard let found else { throw WhenExpressionError(text: "\(self)", reason: "no such time in the calendar") }
        guard found > now else { throw WhenExpressionError(text: "\(self)", reason: "that time has already passed") }
        return found
    }

    /// `2h`, `30m`, `1h30m`, `3d`, `1w`.
    static func span(_ text: String, text whole: String) throws(WhenExpressionError) -> Int {
        var seconds = 0
        var digits = ""
        for character in text {
            if character.isASCII, character.isNumber {
                digits.append(character)
            } else if let unit = units[character], let number = Int(digits), number > 0, number <= 10_000 {
                seconds += number * unit
                digits = ""
            } else {
                throw WhenExpressionError(text: whole, reason: "cannot read the span '\(text)': use m, h, d or w, such as 2h or 30m")
            }
        }
        guard digits.isEmpty, seconds > 0 else {
            throw WhenExpressionError(text: whole, reason: "cannot read the span '\(text)': use m, h, d or w, such as 2h or 30m")
        }
        return seconds
    }

    /// `8`, `08:00`, `9:30`, `9am`, `5pm`, `5:30pm`, `17h`.
    static func clock(_ text: String, text whole: String) throws(WhenExpressionError) -> (Int, Int) {
        var body = Substring(text)
        var offset = 0
        if body.hasSuffix("am") || body.hasSuffix("pm") {
            offset = body.hasSuffix("pm") ? 12 : 0
            body = body.dropLast(2)
        } else if body.hasSuffix("h") {
            body = body.dropLast()
        }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let hour = Int(parts[0]), parts[0].count <= 2,
            let minute = parts.count == 2 && parts[1].count == 2 ? Int(parts[1]) : (parts.count == 1 ? 0 : nil), (0..<60).contains(minute)
        else { throw WhenExpressionError(text: whole, reason: "cannot read the time '\(text)': use 08:00, 9:30, 9am or 5pm") }
        if text.hasSuffix("m") {
            guard (1...12).contains(hour) else { throw WhenExpressionError(text: whole, reason: "'\(text)' is not a time on a 12-hour clock") }
            return (hour % 12 + offset, minute)
        }
        guard (0..<24).contains(hour) else { throw WhenExpressionError(text: whole, reason: "'\(text)' is not a time of day") }
        return (hour, minute)
    }

    /// `2026-12-01`, `2026-12-01T08:00[:00]`, with `Z` or `±hh:mm` for an instant.
    static func iso(_ text: String, text whole: String) throws(WhenExpressionError) -> WhenExpression? {
        let upper = text.uppercased()
        let date = upper.prefix(10)
        let parts = date.split(separator: "-")
        guard date.count == 10, parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var rest = upper.dropFirst(10)
        guard !rest.isEmpty else { return .wallClock(year: year, month: month, day: day, hour: defaultHour, minute: 0) }
        guard rest.first == "T" else { throw WhenExpressionError(text: whole, reason: "cannot read '\(text)' as an ISO time") }
        rest = rest.dropFirst()
        var zone: TimeZone?
        if rest.hasSuffix("Z") {
            zone = TimeZone(identifier: "UTC")
            rest = rest.dropLast()
        } else if let sign = rest.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let offset = rest[rest.index(after: sign)...].split(separator: ":")
            guard offset.count <= 2, let hours = Int(offset[0]), hours < 24, let minutes = offset.count == 2 ? Int(offset[1]) : 0 else {
                throw WhenExpressionError(text: whole, reason: "cannot read the time zone of '\(text)'")
            }
            zone = TimeZone(secondsFromGMT: (hours * 3600 + minutes * 60) * (rest[sign] == "-" ? -1 : 1))
            rest = rest[..<sign]
        }
        let clock = rest.split(separator: ":")
        guard (2...3).contains(clock.count), let hour = Int(clock[0]), let minute = Int(clock[1]), (0..<24).contains(hour),
            (0..<60).contains(minute), clock.count == 2 || Int(clock[2]).map({ (0..<60).contains($0) }) == true
        else { throw WhenExpressionError(text: whole, reason: "cannot read the time of '\(text)'") }
        guard let zone else { return .wallClock(year: year, month: month, day: day, hour: hour, minute: minute) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: clock.count == 3 ? Int(clock[2]) : 0)
        guard let instant = calendar.date(from: components) else { throw WhenExpressionError(text: whole, reason: "no such time: '\(text)'") }
        return .instant(instant)
    }
}

/// What could not be read in a `WhenExpression`, and why, for the front ends to show as is.
public struct WhenExpressionError: Error, Sendable, Hashable, CustomStringConvertible {
    public var text: String
    public var reason: String

    public init(text: String, reason: String) {
        self.text = text
        self.reason = reason
    }

    public var description: String { reason }
}
