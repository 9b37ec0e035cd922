import Foundation
import Testing

@testable import MIME

/// The canonical Date form is read by a fast path; it must agree with the general parser on every
/// input it accepts, and leave the rest to it.
struct DateFastPathTests {
    @Test(arguments: [
        "Mon, 5 Jan 2026 10:00:00 +0000", "Mon, 05 Jan 2026 10:00:00 -0800", "5 Jan 2026 10:00 +0100",
        "Tue, 31 Dec 2030 23:59:60 +1400", "Wed,  1 Feb 1999 00:00:00 +0000 (UTC)", "Thu, 29 Feb 2024 12:30:45 +0530",
        "sat, 3 MAR 2001 01:02:03 -0000", " Fri, 7 Aug 2026 08:09:10 +0200  ", "Sun, 15 Sep 2030 14:15:16\t+0945"
    ])
    func canonicalDatesAgreeWithTheGeneralParser(text: String) throws {
        let fast = try #require(DateParser.parseCanonical(text))
        #expect(fast == DateParser.parseAnyForm(text))
    }

    @Test(arguments: [
        "Mon, 5 Jan 26 10:00:00 +0000", "Mon Jan  5 10:00:00 2026", "2026-01-05T10:00:00Z", "Mon, 5 Jan 2026 10:00:00 GMT",
        "Mon, 5 Jan 2026 10:00:00", "Mon, 5 Foo 2026 10:00:00 +0000", "Mon, 32 Jan 2026 10:00:00 +0000", "Mon, 5 Jan 2026 10:00:00 +0000 x",
        "Mon, 5 Jan 2026 25:00:00 +0000", "", "Montag, 5 Jan 2026 10:00:00 +0000"
    ])
    func otherFormsGoTheLongWay(text: String) {
        #expect(DateParser.parseCanonical(text) == nil)
        #expect(DateParser.parse(text) == DateParser.parseAnyForm(text))
    }
}
