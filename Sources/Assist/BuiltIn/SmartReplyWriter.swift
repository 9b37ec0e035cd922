import TernCore

/// Why a thread gets no smart reply: FR-COMP-03 suggestions are only for mail that expects an
/// answer from the user, in a language Tern writes (Gmail also stays silent on bulk mail).
enum NoReplyReason: String, Sendable, Hashable {
    case userWroteLast
    /// `List-Unsubscribe`, `List-Id`, `Precedence: bulk` or `Auto-Submitted`.
    case bulkHeaders
    /// A no-reply or machine sender (`no-reply@`, `notifications@`, `mailer-daemon@`).
    case automatedSender
    /// The text says it is machine-written or bulk ("do not reply to this email", "unsubscribe").
    case automatedText
    /// The user is neither in To nor in Cc: a list or a Bcc copy.
    case notAddressedToUser
    case unsupportedLanguage
    case nothingToAnswer
}

/// The last message's intents, read from its own text (FR-COMP-03).
struct ReplyIntentDetector: Sendable {
    func intents(of text: MessageText, lexicon: Lexicon) -> [ReplyIntent] {
        var found: [ReplyIntent] = []
        let questions = text.segments.filter { $0.isQuestion && !lexicon.courtesyQuestions.occur(in: $0.words) }
        let all = text.segments.flatMap(\.words)
        let schedulingSegments = text.segments.filter { lexicon.scheduling.occur(in: $0.words) }
        // A meeting word with a question, a request or a date; or a day with a time ("Friday at 10
        // is better for me"): a time proposed or chosen.
        let proposesTime = text.segments.contains { segment in
            !segment.isListLine && lexicon.dateWords.occur(in: segment.words) && Self.namesTimeOfDay(segment.words)
        }
        if proposesTime
            || schedulingSegments.contains(where: { segment in
                segment.isQuestion || lexicon.requests.occur(in: segment.words)
            })
        {
            found.append(.scheduling)
        }
        if !questions.isEmpty { found.append(.question) }
        if text.segments.contains(where: { !$0.isListLine && lexicon.requests.occur(in: $0.words) && !lexicon.pleasantries.occur(in: $0.words) }) {
            found.append(.actionRequest)
        }
        if text.segments.contains(where: { lexicon.thanks.occur(in: $0.words) && !lexicon.pleasantries.occur(in: $0.words) }) {
            found.append(.thanks)
        }
        if lexicon.goodNews.occur(in: all) || found.isEmpty { found.append(.announcement) }
        return found
    }
}

extension ReplyIntentDetector {
    /// "14:00", "10 am", "9 Uhr", "14 h", "at 10", "um 9", "à 14", "a las 5".
    static func namesTimeOfDay(_ words: [Substring]) -> Bool {
        for (index, word) in words.enumerated() where word.first?.isNumber == true {
            if word.count <= 2, index + 1 < words.count, word.allSatisfy(\.isNumber) {
                if ["am", "pm", "uhr", "h", "heures", "horas", "hrs"].contains(words[index + 1]) { return true }
                if words[index + 1].first?.isNumber == true, words[index + 1].count == 2 { return true } // "14:00" splits in two
            }
            if index > 0, word.count <= 2, ["at", "um", "à", "a", "las"].contains(words[index - 1]) { return true }
        }
        return false
    }
}

/// Up to three short replies in the thread's language, one per intent first (FR-COMP-03).
struct SmartReplyWriter: Sendable {
    func replies(for intents: [ReplyIntent], text: MessageText, lexicon: Lexicon) -> [SmartReply] {
        guard let templates = lexicon.replies else { return [] }
        let formal = Self.isFormal(text, lexicon: lexicon)
        let yesNo = text.segments.contains { $0.isQuestion && lexicon.yesNoOpeners.open(Self.questionWords($0)) }
        let goodNews = lexicon.goodNews.occur(in: text.segments.flatMap(\.words))
        var first: [SmartReply] = []
        var second: [SmartReply] = []
        for intent in intents {
            switch intent {
            case .scheduling:
                first.append(SmartReply(text: templates.schedulingYes, intent: .scheduling))
                second.append(SmartReply(text: pick(templates.schedulingOther, formal), intent: .scheduling))
            case .question:
                if yesNo {
                    first.append(SmartReply(text: templates.yes, intent: .question))
                    second.append(SmartReply(text: pick(templates.willCheck, formal), intent: .question))
                    second.append(SmartReply(text: templates.no, intent: .question))
                } else {
                    first.append(SmartReply(text: pick(templates.willCheck, formal), intent: .question))
                }
            case .actionRequest:
                first.append(SmartReply(text: pick(templates.willDo, formal), intent: .actionRequest))
                second.append(SmartReply(text: templates.done, intent: .actionRequest))
            case .thanks:
                first.append(SmartReply(text: pick(templates.welcome, formal), intent: .thanks))
                second.append(SmartReply(text: templates.gladToHelp, intent: .thanks))
            case .announcement:
                first.append(SmartReply(text: goodNews ? templates.congratulations : pick(templates.noted, formal), intent: .announcement))
            }
        }
        var chosen: [SmartReply] = []
        for reply in first + second where !chosen.contains(where: { $0.text == reply.text }) && chosen.count < 3 { chosen.append(reply) }
        return chosen
    }

    private func pick(_ pair: (informal: String, formal: String), _ formal: Bool) -> String { formal ? pair.formal : pair.informal }

    /// German Sie, French vous, Spanish usted: counted in the text and the greeting ("Sehr geehrte"
    /// is formal whatever follows); English has one form.
    static func isFormal(_ text: MessageText, lexicon: Lexicon) -> Bool {
        guard !lexicon.formalMarkers.isEmpty else { return false }
        if let greeting = text.greeting?.lowercased(),
            ["sehr geehrte", "madame", "monsieur", "estimad", "guten tag"].contains(where: greeting.hasPrefix)
        {
            return true
        }
        var formal = 0
        var informal = 0
        for segment in text.segments {
            // German "Sie" is formal only when capitalised inside a sentence; the word list cannot tell.
            for word in segment.words {
                if lexicon.formalMarkers.contains(String(word)) { formal += 1 }
                if lexicon.informalMarkers.contains(String(word)) { informal += 1 }
            }
        }
        if lexicon.language == .de {
            formal = text.segments.reduce(0) { count, segment in
                count
                    + segment.text.split(separator: " ").dropFirst().filter {
                        ["Sie", "Ihnen", "Ihr", "Ihre", "Ihrer", "Ihren", "Ihrem"].contains($0)
                    }.count
            }
        }
        return formal > informal
    }

    /// The question's words from its first word, after an opening "¿" and any "so," or "and".
    static func questionWords(_ segment: MessageText.Segment) -> [Substring] {
        var words = segment.words[...]
        while let first = words.first, ["so", "and", "also", "und", "also", "et", "alors", "y", "entonces", "oh", "ok", "okay"].contains(first),
            words.count > 2
        {
            words = words.dropFirst()
        }
        return Array(words)
    }
}

/// Whether the last message expects an answer from the user, and if not why.
struct NoReplyDetector: Sendable {
    static let automatedLocalParts = [
        "noreply", "no-reply", "no_reply", "donotreply", "do-not-reply", "do_not_reply", "ne-pas-repondre", "nepasrepondre",
        "no-responder", "noresponder", "no-responda", "keine-antwort", "mailer-daemon", "postmaster", "bounce", "notification",
        "notifications", "notify", "alert", "alerts", "alertes", "newsletter", "news", "updates", "receipts", "receipt", "billing",
        "invoice", "invoices", "facturas", "factures", "rechnung", "rechnungen", "calendar", "kalender", "automated", "system"
    ]

    /// What machine-written and bulk mail says of itself, in the supported languages.
    static let automatedPhrases: PhraseSet = [
        "unsubscribe*", "do not reply", "don't reply", "you are receiving", "you're receiving", "you received this", "automatically generated",
        "automated message", "this is an automated", "manage notifications", "manage preferences", "update your preferences",
        "view in browser", "automatisch erstellt", "automatisch generiert", "bitte antworten sie nicht", "abmelden", "abbestellen",
        "sie erhalten diese", "du erhältst diese", "ne pas répondre", "ne répondez pas", "message automatique", "généré automatiquement",
        "désinscri*", "désabonne*", "vous recevez ce", "vous recevez cet", "ne vous demandera jamais", "no respondas", "no responda",
        "mensaje automático", "generado automáticamente", "darte de baja", "darse de baja", "dar de baja", "no quieres recibir",
        "recibes este", "nunca te pedirá", "nunca le pedirá"
    ]

    func reason(_ thread: AssistThread, last: AssistMessage, text: MessageText) -> NoReplyReason? {
        if thread.isFromUser(last) { return .userWroteLast }
        if !last.bulkMarkers.isEmpty { return .bulkHeaders }
        let local = last.from.address.lowercased().split(separator: "@").first.map(String.init) ?? ""
        let parts = local.split(whereSeparator: { "-_.+".contains($0) }).map(String.init)
        if Self.automatedLocalParts.contains(local)
            || parts.contains(where: {
                [
                    "noreply", "donotreply", "notification", "notifications", "alerts",
                    "alertes", "newsletter", "bounce", "bounces"
                ].contains($0)
            })
            || local.contains("noreply") || local.contains("no-reply") || local.contains("nepasrepondre") || local.contains("ne-pas-repondre")
            || local.contains("no-responder") || local.contains("noresponder")
        {
            return .automatedSender
        }
        if text.lines.contains(where: { Self.automatedPhrases.occur(in: Tokens.words($0)) }) {
            return .automatedText
        }
        if !thread.userAddresses.isEmpty, !(last.to + last.cc).contains(where: { thread.userAddresses.contains($0.address.lowercased()) }) {
            return .notAddressedToUser
        }
        return nil
    }
}
