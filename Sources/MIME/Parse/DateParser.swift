import Foundation

/// The Date header (RFC 5322 section 3.3 and the obsolete syntax of 4.3), and the malformed forms
/// real mail carries: missing day of week or seconds, two- and three-digit years, named and military
/// zones, `+hh:mm` zones, a missing zone, asctime order (`Mon Jan  5 10:00:00 2026`), ISO 8601.
/// Returns nil when nothing sensible can be read: the caller falls back to INTERNALDATE.
public enum DateParser {
    static let months: [String: Int] = [
        "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
        "mär": 3, "mrz": 3, "okt": 10, "dez": 12, "mai": 5, "juin": 6, "juil": 7, "févr": 2, "janv": 1, "avr": 4, "sept": 9
    ]
    static let zones: [String: Int] = [
        "ut": 0, "utc": 0, "gmt": 0, "z": 0, "est": -5 * 60, "edt": -4 * 60, "cst": -6 * 60, "cdt": -5 * 60,
        "mst": -7 * 60, "mdt": -6 * 60, "pst": -8 * 60, "pdt": -7 * 60, "cet": 60, "cest": 120, "bst": 60, "ist": 330,
        "jst": 540, "kst": 540, "eet": 120, "eest": 180, "met": 60, "mest": 120, "wet": 0, "west": 60
    ]

    public static func parse(_ text: String) -> Date? {
        parseCanonical(text) ?? parseAnyForm(text)
    }

    /// Every form this parser knows, the canonical one included.
    static func parseAnyForm(_ text: String) -> Date? {
        // ISO 8601 first: `2026-01-05T10:00:00Z` or `2026-01-05 10:00:00 +0100`.
        if let iso = parseISO(text) { return iso }
        var tokens: [Substring] = []
        var inComment = 0
        var tokenStart: String.Index?
        for index in text.indices {
            let character = text[index]
            if character == "(" { inComment += 1 }
            let isSeparator =
                character == " " || character == "," || character == "\t" || character == "\r" || character == "\n"
                || character == "(" || character == ")" || inComment > 0
            if character == ")" { inComment = max(0, inComment - 1) }
            if isSeparator {
                if let start = tokenStart {
                    tokens.append(text[start..<index])
                    tokenStart = nil
                }
            } else if tokenStart == nil {
                tokenStart = index
            }
        }
        if let start = tokenStart { tokens.append(text[start...]) }
        // `05-Jan-2026` (RFC 850 style) is three tokens.
        tokens = tokens.flatMap { token -> [Substring] in
            guard token.first?.isNumber == true, token.contains("-"), token.contains(where: \.isLetter) else { return [token] }
            return token.split(separator: "-")
        }

        var day: Int?
        var month: Int?
        var year: Int?
        var hour = 0
        var minute = 0
        var second = 0
        var sawTime = false
        var offsetMinutes: Int?
        for token in tokens {
            let lower = token.lowercased()
            if lower.contains(":"), !sawTime, lower.first?.isNumber == true {
                let pieces = lower.split(separator: ":")
                guard pieces.count >= 2, let h = Int(pieces[0]), let m = Int(pieces[1]) else { continue }
                hour = h
                minute = m
                if pieces.count >= 3 { second = Int(pieces[2].prefix(2)) ?? 0 }
                sawTime = true
                continue
            }
            if (lower.hasPrefix("+") || lower.hasPrefix("-")) && lower.count >= 3 {
                let sign = lower.hasPrefix("-") ? -1 : 1
                let digits = lower.dropFirst().filter(\.isNumber)
                guard let value = Int(digits) else { continue }
                let (h, m) = digits.count <= 2 ? (value, 0) : (value / 100, value % 100)
                if h <= 14 && m < 60 { offsetMinutes = sign * (h * 60 + m) }
                continue
            }
            if let zone = zones[lower] {
                offsetMinutes = offsetMinutes ?? zone
                continue
            }
            if lower.count == 1, let scalar = lower.unicodeScalars.first, scalar.properties.isAlphabetic {
                offsetMinutes = offsetMinutes ?? 0 // military zones: RFC 5322 says treat as unknown (-0000)
                continue
            }
            if month == nil, let monthNumber = months[String(lower.prefix(3))] ?? months[lower] ?? months[String(lower.prefix(4))] {
                month = monthNumber
                continue
            }
            if lower.allSatisfy({ $0.isNumber || $0 == "." }), let number = Int(lower.filter(\.isNumber)) {
                let digits = lower.filter(\.isNumber).count
                if digits >= 3, year == nil {
                    year = digits == 3 ? 1900 + number : number // obsolete three-digit years count from 1900
                } else if digits <= 2, day == nil {
                    day = number
                } else if digits <= 2, year == nil {
                    year = number < 50 ? 2000 + number : 1900 + number
                }
            }
        }
        guard let day, let month, let year, (1...31).contains(day), (1900...2200).contains(year),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86400 + hour * 3600 + minute * 60 + min(second, 59) - (offsetMinutes ?? 0) * 60
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// RFC 5322 section 3.3's own form, which nearly all mail carries (`Mon, 5 Jan 2026 10:00:00 +0000`,
    /// day of week and seconds optional, a trailing comment allowed), read straight from its bytes;
    /// anything else is nil and goes the long way.
    static func parseCanonical(_ text: String) -> Date? {
        guard text.utf8.count <= 200 else { return nil }
        let bytes = Array(text.utf8)
        var i = 0
        func at(_ byte: UInt8) -> Bool { i < bytes.count && bytes[i] == byte }
        func skipSpaces() -> Bool {
            let start = i
            while i < bytes.count, bytes[i] == 32 || bytes[i] == 9 { i += 1 }
            return i > start
        }
        func number(exactly count: ClosedRange<Int>) -> Int? {
            var value = 0
            var digits = 0
            while i < bytes.count, digits < count.upperBound, (48...57).contains(bytes[i]) {
                value = value * 10 + Int(bytes[i] - 48)
                i += 1
                digits += 1
            }
            return count.contains(digits) ? value : nil
        }
        func letters(_ count: Int) -> String? {
            guard i + count <= bytes.count, bytes[i..<i + count].allSatisfy({ (65...90).contains($0) || (97...122).contains($0) }) else { return nil }
            defer { i += count }
            return String(decoding: bytes[i..<i + count].map { $0 | 0x20 }, as: UTF8.self)
        }
        _ = skipSpaces()
        if i < bytes.count, bytes[i] > 57 {
            guard letters(3) != nil, at(44) else { return nil }
            i += 1
            _ = skipSpaces()
        }
        guard let day = number(exactly: 1...2), skipSpaces(), let monthName = letters(3), let month = months[monthName], skipSpaces(),
            let year = number(exactly: 4...4), skipSpaces(), let hour = number(exactly: 2...2), at(58)
        else { return nil }
        i += 1
        guard let minute = number(exactly: 2...2) else { return nil }
        var second = 0
        if at(58) {
            i += 1
            guard let value = number(exactly: 2...2) else { return nil }
            second = value
        }
        guard skipSpaces(), at(43) || at(45) else { return nil }
        let sign = at(45) ? -1 : 1
        i += 1
        guard let zone = number(exactly: 4...4) else { return nil }
        _ = skipSpaces()
        guard i == bytes.count || at(40) else { return nil }
        let (zoneHours, zoneMinutes) = (zone / 100, zone % 100)
        guard (1...31).contains(day), (1900...2200).contains(year), hour < 24, minute < 60, second <= 60, zoneHours <= 14, zoneMinutes < 60
        else { return nil }
        let offset = sign * (zoneHours * 60 + zoneMinutes)
        let seconds = daysFromCivil(year: year, month: month, day: day) * 86400 + hour * 3600 + minute * 60 + min(second, 59) - offset * 60
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    static func parseISO(_ text: String) -> Date? {
        let trimmed = text.trimmingSpaces()
        let utf8 = Array(trimmed.utf8)
        guard utf8.count >= 19, utf8[4] == 45, utf8[7] == 45, utf8[10] == 84 || utf8[10] == 32, utf8[13] == 58 else { return nil }
        func number(_ range: Range<Int>) -> Int? { Int(String(decoding: utf8[range], as: UTF8.self)) }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var offset = 0
        let zone = String(decoding: utf8[19...], as: UTF8.self).trimmingSpaces()
        if let signIndex = zone.firstIndex(where: { $0 == "+" || $0 == "-" }) {
            let digits = zone[zone.index(after: signIndex)...].filter { $0.isASCII && $0.isNumber }
            guard digits.count <= 4, let value = Int(digits) else { return nil }
            let minutes = digits.count <= 2 ? value * 60 : (value / 100) * 60 + value % 100
            guard minutes <= 14 * 60 else { return nil }
            offset = minutes * (zone[signIndex] == "-" ? -1 : 1)
        }
        guard (1900...2200).contains(year), hour < 24, minute < 60, second <= 60 else { return nil }
        let seconds = daysFromCivil(year: year, month: month, day: day) * 86400 + hour * 3600 + minute * 60 + second - offset * 60
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }
}
