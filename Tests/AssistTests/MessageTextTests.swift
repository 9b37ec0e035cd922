import TernCore
import Testing

@testable import Assist

@Suite struct MessageTextTests {
    let lexicons = BuiltInAssistProvider.cleaningLexicons

    @Test func sentencesKeepGermanDatesAndAbbreviations() {
        let sentences = MessageText.sentences("Wir treffen uns am 18. November um 9 Uhr. Bitte z. B. Kaffee mitbringen! Passt das?")
        #expect(sentences == ["Wir treffen uns am 18. November um 9 Uhr.", "Bitte z. B. Kaffee mitbringen!", "Passt das?"])
    }

    @Test(arguments: [
        "On Mon, 14 Sep 2026 at 08:02, Alice Martin <alice@tern.test> wrote:",
        "Am 09.11.2026 um 17:24 schrieb Lena Vogt:",
        "Le lun. 12 oct. 2026 à 10:00, Claire a écrit :",
        "El 3 oct 2026, a las 9:15, Lucía escribió:",
        "-----Original Message-----"
    ])
    func quotedHistoryEndsTheOwnText(attribution: String) {
        let body = "Approved, paid on Friday.\n\n\(attribution)\nThe old question that must not count?\n> quoted"
        let text = MessageText(body: body, lexicons: lexicons)
        #expect(text.segments.map(\.text) == ["Approved, paid on Friday."])
    }

    @Test func greetingClosingSignatureAndFootersAreLeftOut() {
        let body = """
            Hi Dave,

            The invoice is 2,340 EUR. Can you approve it?

            Best,
            Priya
            --
            Priya Nair, Ledgerly
            """
        let text = MessageText(body: body, lexicons: lexicons)
        #expect(text.greeting == "Hi Dave,")
        #expect(text.segments.map(\.text) == ["The invoice is 2,340 EUR.", "Can you approve it?"])
        #expect(text.segments[1].isQuestion)
        let footer = MessageText(
            body: "Your order ships today.\n\nYou are receiving this email because you have an account.",
            lexicons: lexicons)
        #expect(footer.segments.map(\.text) == ["Your order ships today."])
    }

    @Test func crlfBodiesReadAsLfBodies() {
        let body = "Hi Ana,\r\n\r\nThe budget is 1,200 EUR. Can you approve it?\r\n\r\nBest,\r\nTom\r\n\r\nOn Monday Ana wrote:\r\n> old"
        let text = MessageText(body: body, lexicons: lexicons)
        #expect(text.greeting == "Hi Ana,")
        #expect(text.segments.map(\.text) == ["The budget is 1,200 EUR.", "Can you approve it?"])
        #expect(MessageText.ownLines("From: Ana\r\nSent: Monday\r\nold", lexicons: lexicons).isEmpty, "an Outlook header block")
    }

    @Test func labelledLinesAreSegmentsOfTheirOwn() {
        let text = MessageText(body: "Erinnerung\n\nTeamfrühstück\nWann: Mittwoch, 18. November 2026, 9:00\nWo: Küche, 3. OG", lexicons: lexicons)
        #expect(text.segments.map(\.text).contains("Wann: Mittwoch, 18. November 2026, 9:00"))
        #expect(text.segments.allSatisfy { $0.isListLine || $0.text == "Erinnerung" })
    }

    @Test(arguments: [
        ("Could you send me the signed contract by Friday? Thanks a lot for your help with this.", AssistLanguage.en),
        ("Kannst du mir bitte bis Freitag den Vertrag schicken? Das wäre super, danke dir.", .de),
        ("Pourriez-vous m'envoyer le devis avant vendredi ? Merci beaucoup pour votre aide.", .fr),
        ("¿Puedes enviarme el presupuesto antes del viernes? Muchas gracias por tu ayuda.", .es),
        ("Potresti mandarmi il preventivo entro venerdì? Grazie mille per il tuo aiuto, ci sentiamo la prossima settimana.", .it),
        ("Czy możemy przełożyć spotkanie na przyszły tydzień? Pozdrawiam i dziękuję za odpowiedź.", .pl)
    ])
    func languageIsIdentifiedFromCommonWords(sample: String, language: AssistLanguage) {
        #expect(LanguageIdentifier.identify(Tokens.words(sample))?.language == language)
    }
}
