import Foundation
import Synchronization

/// Dates as a mail list shows them, in the server's time zone: the time today, "Yesterday", the
/// weekday within a week, the day and month within the year, else the full date. The exact date
/// and time go in `<time datetime>` and its title.
struct RelativeTime: Sendable {
    var now: Date
    var calendar: Calendar

    init(now: Date = Date(), calendar: Calendar = .current) {
        self.now = now
        self.calendar = calendar
    }

    func short(_ date: Date) -> String {
        let startOfToday = calendar.startOfDay(for: now)
        if date >= startOfToday { return Self.format("HH:mm", date, calendar) }
        if let yesterday = calendar.date(byAdding: .day, value: -1, to: startOfToday), date >= yesterday { return "Yesterday" }
        if let weekAgo = calendar.date(byAdding: .day, value: -6, to: startOfToday), date >= weekAgo { return Self.format("EEE", date, calendar) }
        if calendar.component(.year, from: date) == calendar.component(.year, from: now) { return Self.format("d MMM", date, calendar) }
        return Self.format("d MMM yyyy", date, calendar)
    }

    /// For screen readers and titles: "Tuesday 24 November 2026, 14:05".
    func full(_ date: Date) -> String { Self.format("EEEE d MMMM yyyy, HH:mm", date, calendar) }

    static func iso(_ date: Date) -> String { date.formatted(.iso8601) }

    /// A formatter per pattern and calendar, made once: making one (ICU's date format and its symbols)
    /// was the largest cost of the web app's list page, two for each of its 50 rows (issue 38).
    /// `DateFormatter` is not `Sendable`; each is only used under the lock.
    private static let formatters = Mutex<[FormatterKey: DateFormatter]>([:])

    private struct FormatterKey: Hashable {
        var pattern: String
        var calendar: Calendar
    }

    private static func format(_ pattern: String, _ date: Date, _ calendar: Calendar) -> String {
        formatters.withLock { cache in
            let key = FormatterKey(pattern: pattern, calendar: calendar)
            if let formatter = cache[key] { return formatter.string(from: date) }
            // A handful of patterns for the server's one calendar in practice; tests bring others.
            if cache.count >= 64 { cache.removeAll() }
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_GB")
            formatter.calendar = calendar
            formatter.timeZone = calendar.timeZone
            formatter.dateFormat = pattern
            cache[key] = formatter
            return formatter.string(from: date)
        }
    }
}
