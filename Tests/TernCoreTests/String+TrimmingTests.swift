import Foundation
import TernCore
import Testing

struct StringTrimmingTests {
    @Test func trimmingMatchesFoundation() {
        for text in ["", "   ", " a ", "\n\t x y \r\n", "\u{00A0}\u{2003}word\u{3000}", "é ", "no-trim", " 🚀 "] {
            #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(text.debugDescription)")
        }
    }
}
