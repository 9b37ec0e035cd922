import TernCore

/// FR-ED-02's summary, written on this machine without a model: the few sentences of the thread
/// that carry its decision, open question, dates and amounts, in the order they were written.
///
/// Each sentence of each message's own text (`MessageText`: no quotes, signatures, greetings or
/// footers) is scored by where it stands (the latest message weighs most, the one that opened the
/// thread next), by what it holds (numbers, amounts, dates, decisions, requests, questions, words
/// the thread keeps using) and by what it lacks (pleasantries, fragments). The best are kept up to
/// about `wordBudget` words, at most three.
struct ExtractiveSummarizer: Sendable {
    var wordBudget = 48
    var maxSegments = 3

    func summarize(_ thread: AssistThread, texts: [MessageText], lexicon: Lexicon) -> String? {
        let candidates = scoredSegments(thread, texts: texts, lexicon: lexicon)
        guard !candidates.isEmpty else { return nil }
        var chosen: [Candidate] = []
        var words = 0
        for candidate in candidates.sorted(by: { $0.score > $1.score }) where candidate.score > 0.2 {
            let length = candidate.segment.words.count
            if !chosen.isEmpty, words + length > wordBudget + 8 { continue }
            if chosen.contains(where: { Self.overlap($0.segment.words, candidate.segment.words) > 0.6 }) { continue }
            chosen.append(candidate)
            words += length
            if chosen.count == maxSegments || words >= wordBudget { break }
        }
        guard !chosen.isEmpty else { return nil }
        let ordered = chosen.sorted { ($0.message, $0.index) < ($1.message, $1.index) }
        return ordered.map { Self.asSentence($0.segment) }.joined(separator: " ")
    }

    struct Candidate {
        var segment: MessageText.Segment
        var message: Int
        var index: Int
        var score: Double
    }

    func scoredSegments(_ thread: AssistThread, texts: [MessageText], lexicon: Lexicon) -> [Candidate] {
        let count = texts.count
        let frequencies = Self.contentFrequencies(texts, subject: thread.subject)
        var candidates: [Candidate] = []
        for (message, text) in texts.enumerated() {
            let position: Double
            if message == count - 1 {
                position = 1.0
            } else if message == 0 {
                position = 0.75
            } else {
                position = 0.45 + 0.35 * Double(message) / Double(max(1, count - 1))
            }
            let fromUser = thread.messages.indices.contains(message) && thread.isFromUser(thread.messages[message])
            for (index, segment) in text.segments.enumerated() {
                var score = content(segment, lexicon: lexicon, frequencies: frequencies)
                if index == 0 || segment.paragraph == 0 { score += 0.25 }
                score *= position * (fromUser && message != count - 1 ? 0.8 : 1)
                candidates.append(Candidate(segment: segment, message: message, index: index, score: score))
            }
        }
        return candidates
    }

    /// What one sentence holds, before its position in the thread counts.
    func content(_ segment: MessageText.Segment, lexicon: Lexicon, frequencies: [Substring: Int]) -> Double {
        let words = segment.words
        var score = 0.4
        let digits = words.contains { $0.contains(where: \.isNumber) }
        if digits { score += 0.5 }
        if Self.mentionsMoney(segment.text) { score += 0.35 }
        if lexicon.dateWords.occur(in: words) { score += 0.3 }
        score += min(0.6, 0.3 * Double(lexicon.decisions.count(in: words)))
        if lexicon.requests.occur(in: words) { score += 0.25 }
        if segment.isQuestion { score += 0.3 }
        let recurring = words.filter { (frequencies[$0] ?? 0) >= 2 }.count
        score += min(0.6, 0.12 * Double(recurring))
        if lexicon.pleasantries.occur(in: words) { score *= 0.25 }
        if words.count < 4 { score *= segment.isListLine && digits ? 0.8 : 0.35 }
        if words.count > 45 { score *= 0.75 }
        if segment.isListLine && !digits && !segment.text.contains(":") { score *= 0.6 }
        return score
    }

    /// How often each content word (not a common word of any language, three letters or more) is
    /// used across the thread's messages and subject: what the thread is about.
    static func contentFrequencies(_ texts: [MessageText], subject: String) -> [Substring: Int] {
        var frequencies: [Substring: Int] = [:]
        var lists = texts.map { Set($0.segments.flatMap(\.words)) }
        lists.append(Set(Tokens.words(subject)))
        for words in lists {
            for word in words where word.count >= 3 && !Self.isCommon(word) { frequencies[word, default: 0] += 1 }
        }
        return frequencies
    }

    static func isCommon(_ word: Substring) -> Bool { allCommonWords.contains(String(word)) }

    /// Every language's common words in one set: looked up once per word of the thread.
    static let allCommonWords: Set<String> = Lexicon.all.reduce(into: []) { $0.formUnion($1.commonWords) }

    static func mentionsMoney(_ text: String) -> Bool {
        ["€", "$", "£", " eur", " usd", " gbp", " chf", "euro"].contains { text.lowercased().contains($0) }
    }

    /// The share of the shorter sentence's words the other has: near-repeats are kept once.
    static func overlap(_ a: [Substring], _ b: [Substring]) -> Double {
        let small = Set(a.count <= b.count ? a : b)
        let large = Set(a.count <= b.count ? b : a)
        guard !small.isEmpty else { return 0 }
        return Double(small.intersection(large).count) / Double(small.count)
    }

    /// A list line becomes a sentence: "Amount: 61,37 EUR" ends with a full stop.
    static func asSentence(_ segment: MessageText.Segment) -> String {
        var text = segment.text
        while let first = text.first, "-*•".contains(first) { text = String(text.dropFirst()).trimmingCharacters(in: .whitespaces) }
        if let last = text.last, !".!?…:;".contains(last) { text += "." }
        return text
    }
}
