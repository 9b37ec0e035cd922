import Foundation

/// A moment as a person types it for Send later (issue 36): an ISO 8601 time (`2026-12-01T08:00`,
/// with `Z` or an offset, or local), a day with an optional time (`today 17:00`, `tomorrow`,
/// `tomorrow 08:00`, `mon 9:00`, `friday 5pm`), a time alone (`9:30`: the next one to come), or a
/// delay (`in 2h`, `in 90 min`, `in 1h30m`, `in 3 days`).
///
/// A day without a time means 08:00, Gmail's "tomorrow morning" that people already know. A
/// weekday is the next such day whose time is still ahead (today's, if it is). Parsing keeps the
/// expression's form; `date(now:calendar:)` resolves it, so the same text means the same moment
/// to every front end and the tests run on a fixed clock and time zone.
public struct WhenExpression: Sendable, Hashable {
    /// What the text says, before a clock and a calendar give it a moment.
    enum Form: Sendable, Hashable {
        /// An ISO time with `Z` or an offset: one moment everywhere.
        case instant(Date)
        /// An ISO date and time without an offset: in the calendar's time zone.
        case local(year: Int, month: Int, day: Int, time: TimeOfDay)
        /// `in …`: seconds from now.
        case after(seconds: Int)
        /// A day named relative to today, at a time.
        case day(DayReference, TimeOfDay)
        /// A time alone: the next time the clock shows it.
        case nextTime(TimeOfDay)
    }

    enum DayReference: Sendable, Hashable {
        case today, tomorrow
        /// `Calendar`'s numbering: 1 is Sunday.
        case weekday(Int)
    }

    struct TimeOfDay: Sendable, Hashable {
        var hour: Int
        var minute: Int
        var second = 0
        /// Gmail's "morning" for a day named without a time.
        static let morning = TimeOfDay(hour: 8, minute: 0)
    }

    /// The text as typed (trimmed).
    public let text: String
    let form: Form

    /// The longest delay `in …` takes: a year (a longer one is a typing slip).
    public static let longestDelaySeconds = 366 * 24 * 3600

    public init(_ text: String) throws(WhenExpressionError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .empty }
        self.text = trimmed
        let words = trimmed.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
        form = try Self.form(words, text: trimmed)
    }

    /// The moment meant, seen from `now` in `calendar` (its time zone included).
    public func date(now: Date, calendar: Calendar) -> Date {
        switch form {
        case .instant(let date):
            return date
        case .local(let year, let month, let day, let time):
            let components = DateComponents(year: year, month: month, day: day, hour: time.hour, minute: time.minute, second: time.second)
            return calendar.date(from: components) ?? now
        case .after(let seconds):
            return now.addingTimeInterval(TimeInterval(seconds))
        case .day(.today, let time):
            return Self.at(time, onDayOf: now, calendar: calendar)
        case .day(.tomorrow, let time):
            let tomorrow = calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: now)) ?? now
            return Self.at(time, onDayOf: tomorrow, calendar: calendar)
        case .day(.weekday(let weekday), let time):
            var day = calendar.startOfDay(for: now)
            // Seven days ahead at most; today counts while its time is still to come.
            for _ in 0..<8 {
                if calendar.component(.weekday, from: day) == weekday {
                    let candidate = Self.at(time, onDayOf: day, calendar: calendar)
                    if candidate > now { return candidate }
                }
                day = calendar.date(byAdding: .day, value: 1, to: day) ?? day.addingTimeInterval(86_400)
            }
            return Self.at(time, onDayOf: day, calendar: calendar)
        case .nextTime(let time):
            let today = Self.at(time, onDayOf: now, calendar: calendar)
            if today > now { return today }
            let tomorrow = calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: now)) ?? now
            return Self.at(time, onDayOf: tomorrow, calendar: calendar)
        }
    }

    static func at(_ time: TimeOfDay, onDayOf day: Date, calendar: Calendar) -> Date {
        calendar.date(bySettingHour: time.hour, minute: time.minute, second: time.second, of: day) ?? day
    }

    // MARK: - Reading the text

    static func form(_ words: [String], text: String) throws(WhenExpressionError) -> Form {
        var words = words
        if words.first == "in" {
            words.removeFirst()
            guard !words.isEmpty else { throw .unreadable(part: "in", text: text) }
            return .after(seconds: try delay(words.joined(), text: text))
        }
        if let first = words.first, first.first?.isNumber == true, first.contains("-") {
            return try iso(words, text: text)
        }
        if let first = words.first, let day = dayReference(first) {
            words.removeFirst()
            if words.first == "at" { words.removeFirst() }
            guard !words.isEmpty else { return .day(day, .morning) }
            return .day(day, try timeOfDay(words, text: text))
        }
        if words.first == "at" { words.removeFirst() }
        guard !words.isEmpty else { throw .unreadable(part: "at", text: text) }
        return .nextTime(try timeOfDay(words, text: text))
    }

    static let weekdays: [(names: [String], number: Int)] = [
        (["sun", "sunday"], 1), (["mon", "monday"], 2), (["tue", "tues", "tuesday"], 3), (["wed", "wednesday"], 4),
        (["thu", "thur", "thurs", "thursday"], 5), (["fri", "friday"], 6), (["sat", "saturday"], 7)
    ]

    static func dayReference(_ word: String) -> DayReference? {
        switch word {
        case "today": return .today
        case "tomorrow", "tmrw", "tmr": return .tomorrow
        default:
            let name = word.hasSuffix(".") ? String(word.dropLast()) : word
            return weekdays.first { $0.names.contains(name) }.map { .weekday($0.number) }
        }
    }

    /// `9`, `09:30`, `17:45:10`, `9am`, `9:30 pm`, `12pm` (noon), `12am` (midnight).
    static func timeOfDay(_ words: [String], text: String) throws(WhenExpressionError) -> TimeOfDay {
        var joined = words.joined()
        var meridiem: String?
        for suffix in ["am", "pm", "a.m.", "p.m."] where joined.hasSuffix(suffix) {
            meridiem = String(suffix.prefix(1))
            joined.removeLast(suffix.count)
            break
        }
        let fields = joined.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count), fields.allSatisfy({ !$0.isEmpty && $0.count <= 2 && $0.allSatisfy(\.isASCII) }),
            let hour = Int(fields[0]), let minute = fields.count > 1 ? Int(fields[1]) : 0, let second = fields.count > 2 ? Int(fields[2]) : 0,
            (0..<60).contains(minute), (0..<60).contains(second)
        else { throw .unreadable(part: words.joined(separator: " "), text: text) }
        if fields.count > 1, fields[1].count != 2 { throw .unreadable(part: words.joined(separator: " "), text: text) }
        var hour24 = hour
        if let meridiem {
            guard (1...12).contains(hour) else { throw .badTime(words.joined(separator: " ")) }
            hour24 = hour % 12 + (meridiem == "p" ? 12 : 0)
        }
        guard (0..<24).contains(hour24) else { throw .badTime(words.joined(separator: " ")) }
        return TimeOfDay(hour: hour24, minute: minute, second: second)
    }

    static let units: [(names: [String], seconds: Int)] = [
        (["s", "sec", "secs", "second", "seconds"], 1), (["m", "min", "mins", "minute", "minutes"], 60),
        (["h", "hr", "hrs", "hour", "hours"], 3600), (["d", "day", "days"], 86_400), (["w", "wk", "week", "weeks"], 604_800)
    ]

    /// `2h`, `90min`, `1h30m`, `3days` (the words after `in`, spaces removed).
    static func delay(_ compact: String, text: String) throws(WhenExpressionError) -> Int {
        var total = 0
        var rest = Substring(compact)
        while !rest.isEmpty {
            let digits = rest.prefix(while: { $0.isASCII && $0.isNumber })
            let unitText = rest.dropFirst(digits.count).prefix(while: { $0.isLetter })
            guard !digits.isEmpty, digits.count <= 7, let count = Int(digits),
                let unit = units.first(where: { $0.names.contains(String(unitText)) })
            else { throw .unreadable(part: String(rest), text: text) }
            total += count * unit.seconds
            guard total <= longestDelaySeconds else { throw .tooFar(text) }
            rest = rest.dropFirst(digits.count + unitText.count)
        }
        guard total > 0 else { throw .unreadable(part: compact, text: text) }
        return total
    }

    /// `2026-12-01`, `2026-12-01T08:00`, `2026-12-01 08:00:30`, each with an optional `Z`, `+01:00` or `-0500`.
    static func iso(_ words: [String], text: String) throws(WhenExpressionError) -> Form {
        guard words.count <= 3 else { throw .unreadable(part: words.dropFirst(2).joined(separator: " "), text: text) }
        var datePart = words[0]
        var timePart: String?
        if let t = datePart.firstIndex(of: "t") {
            timePart = String(datePart[datePart.index(after: t)...])
            datePart = String(datePart[..<t])
            guard words.count == 1 else { throw .unreadable(part: words.dropFirst().joined(separator: " "), text: text) }
        } else if words.count > 1 {
            timePart = words.dropFirst().joined()
        }
        let fields = datePart.split(separator: "-", omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0].count == 4, fields[1].count == 2, fields[2].count == 2,
            let year = Int(fields[0]), let month = Int(fields[1]), let day = Int(fields[2]),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { throw .unreadable(part: datePart, text: text) }
        guard var time = timePart else { return .local(year: year, month: month, day: day, time: .morning) }
        var offsetSeconds: Int?
        if time.hasSuffix("z") {
            offsetSeconds = 0
            time.removeLast()
        } else if let sign = time.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let zone = time[time.index(after: sign)...].filter { $0 != ":" }
            guard zone.count == 4, zone.allSatisfy({ $0.isASCII && $0.isNumber }), let hours = Int(zone.prefix(2)), let minutes = Int(zone.suffix(2)),
                hours <= 14, minutes < 60
            else { throw .unreadable(part: String(time[sign...]), text: text) }
            offsetSeconds = (hours * 3600 + minutes * 60) * (time[sign] == "-" ? -1 : 1)
            time = String(time[..<sign])
        }
        // Fractions of a second are dropped.
        if let dot = time.firstIndex(of: ".") { time = String(time[..<dot]) }
        guard time.split(separator: ":").count >= 2 else { throw .unreadable(part: time, text: text) }
        let clock = try timeOfDay([time], text: text)
        guard let offsetSeconds else { return .local(year: year, month: month, day: day, time: clock) }
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(secondsFromGMT: 0)!
        let components = DateComponents(year: year, month: month, day: day, hour: clock.hour, minute: clock.minute, second: clock.second)
        guard let moment = utc.date(from: components) else { throw .unreadable(part: words.joined(separator: " "), text: text) }
        return .instant(moment.addingTimeInterval(TimeInterval(-offsetSeconds)))
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// Why a Send later time could not be read; each names what to type instead.
public enum WhenExpressionError: Error, Sendable, Hashable, CustomStringConvertible {
    case empty
    /// `part` of `text` is not a time, a day or a delay.
    case unreadable(part: String, text: String)
    /// An hour past the clock (`25:00`, `13pm`).
    case badTime(String)
    /// A delay over a year.
    case tooFar(String)

    static let examples = "an ISO time (2026-12-01T08:00), tomorrow 08:00, mon 9:00 or in 2h"

    public var description: String {
        switch self {
        case .empty: "give a time: \(Self.examples)"
        case .unreadable(let part, let text): "could not read '\(part)' in '\(text)': give \(Self.examples)"
        case .badTime(let part): "'\(part)' is not a time of day (00:00 to 23:59, or 1am to 12pm)"
        case .tooFar(let text): "'\(text)' is more than a year away"
        }
    }
}
