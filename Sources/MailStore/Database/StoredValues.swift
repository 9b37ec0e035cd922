import CivilCalendar
import Foundation
import GRDB
import TernCore

/// A Date as GRDB stores it ("yyyy-MM-dd HH:mm:ss.SSS", UTC, to the nearest millisecond), written
/// without DateFormatter: formatting through ICU was a twentieth of a first sync. Read back as an
/// ordinary Date column.
struct StoredDate: DatabaseValueConvertible {
    let date: Date

    init(_ date: Date) { self.date = date }

    var databaseValue: DatabaseValue { Self.text(date).map { $0.databaseValue } ?? date.databaseValue }

    static func fromDatabaseValue(_ dbValue: DatabaseValue) -> StoredDate? { Date.fromDatabaseValue(dbValue).map(StoredDate.init) }

    /// The text, or nil outside years 1583...9999 (left to GRDB: its formatter switches to the
    /// Julian calendar before the Gregorian reform).
    static func text(_ date: Date) -> String? {
        // The millisecond CFDateFormatter formats: the absolute time in ms, plus a half, floored.
        let milliseconds = ((date.timeIntervalSinceReferenceDate + 978_307_200.0) * 1000.0 + 0.5).rounded(.down)
        guard milliseconds.isFinite, abs(milliseconds) < 2.5e14 else { return nil }
        let total = Int64(milliseconds)
        let (dayNumber, msOfDay) = floorDivide(total, 86_400_000)
        let (year, month, day) = CivilDate.fromDays(Int(dayNumber))
        guard (1583...9999).contains(year) else { return nil }
        let seconds = msOfDay / 1000
        var bytes = [UInt8]()
        bytes.reserveCapacity(23)
        func digits(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                bytes.append(UInt8(48 + rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(Int64(year), 4)
        bytes.append(45)
        digits(Int64(month), 2)
        bytes.append(45)
        digits(Int64(day), 2)
        bytes.append(32)
        digits(seconds / 3600, 2)
        bytes.append(58)
        digits(seconds / 60 % 60, 2)
        bytes.append(58)
        digits(seconds % 60, 2)
        bytes.append(46)
        digits(msOfDay % 1000, 3)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// SQL for a stored date column as seconds since 1970 (NULL stays NULL).
    static func secondsSQL(_ column: String) -> String { "(julianday(\(column)) - 2440587.5) * 86400.0" }

    /// The Date of `secondsSQL`, back on the millisecond the text held (julianday's double is
    /// exact to about 20 microseconds).
    static func date(seconds: Double) -> Date { Date(timeIntervalSince1970: (seconds * 1000).rounded() / 1000) }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let quotient = a / b
        let remainder = a % b
        return remainder < 0 ? (quotient - 1, remainder + b) : (quotient, remainder)
    }
}

extension Optional where Wrapped == Date {
    var stored: StoredDate? { map(StoredDate.init) }
}

extension Date {
    var stored: StoredDate { StoredDate(self) }
}

/// JSON arrays of addresses as the address columns hold them (`[{"address":…,"name":…}]`, what
/// JSONEncoder with sorted keys writes), written directly: the encoder's keyed containers were a
/// twentieth of a first sync.
enum AddressJSON {
    static func text(_ addresses: [EmailAddress]) -> String {
        guard !addresses.isEmpty else { return "[]" }
        var out = "["
        for (index, address) in addresses.enumerated() {
            if index > 0 { out += "," }
            out += "{\"address\":"
            appendString(address.address, to: &out)
            if let name = address.name {
                out += ",\"name\":"
                appendString(name, to: &out)
            }
            out += "}"
        }
        out += "]"
        return out
    }

    /// A JSON string literal (RFC 8259 section 7): quote, backslash and control characters escaped.
    static func appendString(_ value: String, to out: inout String) {
        out += "\""
        var plainStart = value.utf8.startIndex
        let utf8 = value.utf8
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == 0x22 || byte == 0x5C || byte < 0x20 {
                out += String(value[plainStart..<index])
                switch byte {
                case 0x22: out += "\\\""
                case 0x5C: out += "\\\\"
                case 0x0A: out += "\\n"
                case 0x0D: out += "\\r"
                case 0x09: out += "\\t"
                default:
                    let hex = String(byte, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
                plainStart = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        out += String(value[plainStart..<utf8.endIndex])
        out += "\""
    }
}

/// `email.authenticationResults` as JSON (what JSONEncoder writes for `[AuthenticationResults]`,
/// which the record's decoding reads back), written directly like the address columns: nearly every
/// synced message carries one such field (issue 32).
enum AuthenticationResultsJSON {
    static func text(_ headers: [AuthenticationResults]) -> String {
        var out = "["
        for (index, header) in headers.enumerated() {
            if index > 0 { out += "," }
            out += "{\"authservId\":"
            AddressJSON.appendString(header.authservId, to: &out)
            out += ",\"results\":["
            for (resultIndex, result) in header.results.enumerated() {
                if resultIndex > 0 { out += "," }
                out += "{\"method\":"
                AddressJSON.appendString(result.method, to: &out)
                out += ",\"result\":"
                AddressJSON.appendString(result.result, to: &out)
                out += ",\"properties\":{"
                for (propertyIndex, key) in result.properties.keys.sorted().enumerated() {
                    if propertyIndex > 0 { out += "," }
                    AddressJSON.appendString(key, to: &out)
                    out += ":"
                    AddressJSON.appendString(result.properties[key] ?? "", to: &out)
                }
                out += "}}"
            }
            out += "]}"
        }
        out += "]"
        return out
    }
}

/// `email.deliveredTo` as JSON (a list of strings, which the record's decoding reads back), written
/// directly like the address columns; most messages have one or none (issue 35).
enum DeliveredToJSON {
    static func text(_ addresses: [String]) -> String {
        var out = "["
        for (index, address) in addresses.enumerated() {
            if index > 0 { out += "," }
            AddressJSON.appendString(address, to: &out)
        }
        out += "]"
        return out
    }
}
