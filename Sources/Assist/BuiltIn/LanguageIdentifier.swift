/// Which language a text is in, from its share of each language's common words: enough for mail,
/// where a few dozen words decide it, and predictable (no model, no data leaves the process).
/// FR-COMP-03 asks for no suggestion rather than one in the wrong language, so a text whose best
/// language is unsupported or unclear is reported as such.
enum LanguageIdentifier {
    struct Guess: Sendable, Equatable {
        var language: AssistLanguage
        /// The winner's share of the words, and its lead over the runner-up.
        var share: Double
        var margin: Double
        var isConfident: Bool { share >= 0.12 && margin >= 0.03 }
    }

    static func identify(_ words: [Substring]) -> Guess? {
        guard words.count >= 3 else { return nil }
        let strings = words.map(String.init)
        let scored = Lexicon.all.map { lexicon in
            (lexicon.language, Double(strings.reduce(0) { $0 + (lexicon.commonWords.contains($1) ? 1 : 0) }) / Double(words.count))
        }.sorted { $0.1 > $1.1 }
        guard let best = scored.first, best.1 > 0 else { return nil }
        return Guess(language: best.0, share: best.1, margin: best.1 - (scored.dropFirst().first?.1 ?? 0))
    }
}
