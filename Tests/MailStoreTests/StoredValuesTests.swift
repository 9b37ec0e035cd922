import Foundation
import GRDB
import TernCore
import Testing

@testable import MailStore

/// The hand-written encodings of the store's hot paths write exactly what GRDB and JSONEncoder
/// would, so rows written either way compare, sort and decode the same.
struct StoredValuesTests {
    @Test func datesAreWrittenAsGRDBWritesThem() throws {
        var generator = SystemRandomNumberGenerator()
        var samples: [Date] = [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -1), Date(timeIntervalSince1970: -0.0005),
            Date(timeIntervalSince1970: 951_782_400), Date(timeIntervalSince1970: 4_102_444_799.999),
            Date(timeIntervalSince1970: -62_135_596_800), Date(timeIntervalSince1970: 253_402_300_799.999),
            Date(timeIntervalSince1970: 1_779_000_000.123_456)
        ]
        for _ in 0..<2_000 {
            samples.append(Date(timeIntervalSince1970: Double.random(in: -5e10...5e10, using: &generator)))
        }
        for date in samples {
            #expect(StoredDate(date).databaseValue == date.databaseValue, "\(date.timeIntervalSince1970)")
        }
    }

    @Test func storedDatesReadBackAsDates() throws {
        let database = try TernDatabase.temporary()
        let date = Date(timeIntervalSince1970: 1_779_000_000.123)
        let (read, seconds) = try database.writer.read { db in
            (
                try Date.fetchOne(db, sql: "SELECT ?", arguments: [date.stored])!,
                try Double.fetchOne(db, sql: "SELECT \(StoredDate.secondsSQL("?"))", arguments: [date.stored])!
            )
        }
        #expect(abs(read.timeIntervalSince(date)) < 0.001)
        // The same stored text either way: what thread metadata writes back from it.
        #expect(abs(StoredDate.date(seconds: seconds).timeIntervalSince(read)) < 0.000_001)
        #expect(StoredDate(StoredDate.date(seconds: seconds)).databaseValue == read.databaseValue)
    }

    @Test func addressListsAreTheJSONTheEncoderWrites() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let lists: [[EmailAddress]] = [
            [],
            [EmailAddress(address: "a@example.com")],
            [EmailAddress(name: "Zoë \"Z\" O'Brien", address: "zoe@example.com"), EmailAddress(name: "Back\\slash\ttab\nline", address: "b@x")],
            [EmailAddress(name: "\u{01}\u{1F}control", address: "c/d@example.com"), EmailAddress(name: "日本語 🚀", address: "jp@example.jp")]
        ]
        for list in lists {
            let text = AddressJSON.text(list)
            #expect(try JSONDecoder().decode([EmailAddress].self, from: Data(text.utf8)) == list)
            if !list.isEmpty { #expect(text == String(decoding: try encoder.encode(list), as: UTF8.self)) }
        }
    }
}
