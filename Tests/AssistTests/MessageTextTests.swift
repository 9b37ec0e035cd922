import Testing
@testable import Assist

@Suite struct MessageTextTests {
    @Test func sentencesKeepGermanDatesAndAbbreviations() {
        let sentences = MessageText.sentences("Wir treffen uns am 18. November um 9 Uhr. Bitte z. B. Kaffee mitbringen! Passt das?")
        #expect(sentences == ["Wir treffen uns am 18. November um 9 Uhr.", "Bitte z. B. Kaffee mitbringen!", "Passt das?"])
    }
}
