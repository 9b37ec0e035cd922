import Foundation
import Testing

@testable import TernCore

/// FR-ED-05's paging, and page numbers from outside input (issue 32: `Int.max` trapped on a multiply
/// and killed `tern serve` with one GET).
@Suite struct ConversationWindowTests {
    static func entries(_ count: Int, unreadAt: Int? = nil) -> [ThreadOutline.Entry] {
        (0..<count).map {
            ThreadOutline.Entry(emailId: EmailID(Int64($0 + 1)), date: Date(timeIntervalSince1970: Double($0)), isRead: $0 != unreadAt)
        }
    }

    @Test func theFirstPageIsTheNewest25AndTheLatestUnread() {
        let window = ConversationWindow(entries: Self.entries(120, unreadAt: 3))
        #expect(window.indexes == [3] + Array(95..<120))
        #expect(window.earlierCount == 94)
        #expect(ConversationWindow(entries: Self.entries(50)).indexes == Array(0..<50))
    }

    @Test func earlierPagesStepBy25() {
        let entries = Self.entries(120)
        #expect(ConversationWindow.earlierPage(1, of: entries) == (Array(70..<95), 70))
        #expect(ConversationWindow.earlierPage(4, of: entries) == (Array(0..<20), 0))
        #expect(ConversationWindow(entries: entries, earlierPages: 2).indexes == Array(45..<120))
    }

    @Test func hugeAndNegativePageNumbersMeanTheEnds() {
        let entries = Self.entries(120)
        for huge in [Int.max, Int.max / 25 + 1, 1 << 62, 10_000] {
            #expect(ConversationWindow.earlierPage(huge, of: entries) == ([], 0), "\(huge)")
            #expect(ConversationWindow(entries: entries, earlierPages: huge).indexes == Array(0..<120), "\(huge)")
        }
        for negative in [Int.min, -1] {
            #expect(ConversationWindow.earlierPage(negative, of: entries).indexes.isEmpty)
            #expect(ConversationWindow(entries: entries, earlierPages: negative) == ConversationWindow(entries: entries))
        }
    }
}
