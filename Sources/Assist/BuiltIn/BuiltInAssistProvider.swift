import TernCore

/// The Assist provider that is always there (PLATFORM.md "On-device AI"): an extractive summary
/// and smart replies from the thread's intents, computed in the process from word lists, offline,
/// in English, German, French and Spanish. Nothing leaves the machine; a 20-message thread takes
/// well under a millisecond (`tern-bench assist`, BENCHMARKS.md).
public struct BuiltInAssistProvider: AssistProvider {
    public let name = "builtin"
    var summarizer = ExtractiveSummarizer()
    var detector = ReplyIntentDetector()
    var writer = SmartReplyWriter()
    var noReply = NoReplyDetector()

    public init() {}

    static let cleaningLexicons = AssistLanguage.allCases.filter(\.isSupported).map(Lexicon.of)

    public func summarize(_ thread: AssistThread) async throws -> String? { summary(of: thread) }

    public func suggestReplies(_ thread: AssistThread) async throws -> [SmartReply] { analyse(thread).replies }

    /// The summary, or nil when the thread's own text is empty or in a language the built-in
    /// provider does not read.
    public func summary(of thread: AssistThread) -> String? {
        let texts = thread.messages.map { MessageText(body: $0.text, lexicons: Self.cleaningLexicons) }
        // Unsupported languages get a summary from position, numbers and recurring words alone: the
        // sentences are the sender's own, so no wrong language is written.
        guard let language = Self.language(of: texts) else { return nil }
        return summarizer.summarize(thread, texts: texts, lexicon: .of(language))
    }

    /// What the last message asks of the user, the replies that answer it, and why there are none.
    public struct Analysis: Sendable {
        public var language: String?
        public var intents: [ReplyIntent]
        public var replies: [SmartReply]
        public var silentBecause: String?
    }

    public func analyse(_ thread: AssistThread) -> Analysis {
        guard let last = thread.messages.last else {
            return Analysis(language: nil, intents: [], replies: [], silentBecause: NoReplyReason.nothingToAnswer.rawValue)
        }
        let text = MessageText(body: last.text, lexicons: Self.cleaningLexicons)
        let guess = LanguageIdentifier.identify(text.segments.flatMap(\.words) + Tokens.words(text.greeting ?? ""))
        let language = guess?.language
        if let reason = noReply.reason(thread, last: last, text: text) {
            return Analysis(language: language?.rawValue, intents: [], replies: [], silentBecause: reason.rawValue)
        }
        guard let guess, guess.isConfident, guess.language.isSupported else {
            return Analysis(language: language?.rawValue, intents: [], replies: [], silentBecause: NoReplyReason.unsupportedLanguage.rawValue)
        }
        let lexicon = Lexicon.of(guess.language)
        let intents = detector.intents(of: text, lexicon: lexicon)
        let replies = writer.replies(for: intents, text: text, lexicon: lexicon)
        return Analysis(
            language: guess.language.rawValue, intents: intents, replies: replies,
            silentBecause: replies.isEmpty ? NoReplyReason.nothingToAnswer.rawValue : nil)
    }

    /// Why the last message expects no answer whatever the language (own, bulk, automated,
    /// not addressed to the user), or nil: the rule the endpoint provider follows too.
    public func noReplyReason(_ thread: AssistThread) -> String? {
        guard let last = thread.messages.last else { return NoReplyReason.nothingToAnswer.rawValue }
        return noReply.reason(thread, last: last, text: MessageText(body: last.text, lexicons: Self.cleaningLexicons))?.rawValue
    }

    /// The thread's language: the last message's when it is clear, else the whole thread's.
    static func language(of texts: [MessageText]) -> AssistLanguage? {
        if let last = texts.last, let guess = LanguageIdentifier.identify(last.segments.flatMap(\.words)), guess.isConfident {
            return guess.language
        }
        // Notifications of a few labelled lines may hold no common word at all: read them as English
        // (only numbers, position and recurring words then count).
        return LanguageIdentifier.identify(texts.flatMap { $0.segments.flatMap(\.words) })?.language
            ?? (texts.contains { !$0.segments.isEmpty } ? .en : nil)
    }
}
