import Foundation
import Testing
import TernCore

struct TextHelpersTests {
    @Test func trimmingMatchesFoundation() {
        for text in ["", "   ", " a ", "\n\t x y \r\n", "\u{00A0}\u{2003}word\u{3000}", "é ", "no-trim", " 🚀 "] {
            #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(text.debugDescription)")
        }
    }

    @Test func messageIDsFromHeaderValues() {
        #expect(ThreadingHeaders.ids("<a@b> <c@d>") == ["a@b", "c@d"])
        #expect(ThreadingHeaders.ids("<a@b>,<c@d>\r\n\t<e@f>") == ["a@b", "c@d", "e@f"])
        #expect(ThreadingHeaders.ids("a@b c@d") == ["a@b", "c@d"])
        #expect(ThreadingHeaders.ids("<> , ") == [])
        #expect(ThreadingHeaders.ids(nil) == [])
    }
}
