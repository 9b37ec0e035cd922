/// The words the built-in provider reads mail by, per language (issue 19: at least the languages of
/// the seeded mail's greetings: English, German, French, Spanish). Phrases are lowercased word
/// sequences; a word ending in `*` matches any word it begins. Italian, Portuguese, Dutch and
/// Polish are known only by their common words, so that mail in them is recognised and gets no
/// suggestion rather than one in the wrong language (FR-COMP-03).
struct Lexicon: Sendable {
    var language: AssistLanguage
    /// Frequent function words, for language identification.
    var commonWords: Set<String>
    /// A first line that opens the message ("hi anna,", "sehr geehrte frau …").
    var greetings: PhraseSet = []
    /// A short line that closes it ("best,", "viele grüße"); what follows is the signature.
    var closings: PhraseSet = []
    /// Sentences that are about the mail rather than its content: unsubscribe footers, legal
    /// lines, "do not reply", "sent from my phone".
    var boilerplate: PhraseSet = []
    /// Pleasantries that carry nothing a summary needs ("hope you are well").
    var pleasantries: PhraseSet = []
    /// Words that mark a decision, a commitment or a change ("approved", "verschoben").
    var decisions: PhraseSet = []
    /// Month and weekday names and relative days ("tomorrow", "lundi").
    var dateWords: PhraseSet = []
    var requests: PhraseSet = []
    var scheduling: PhraseSet = []
    var thanks: PhraseSet = []
    /// Good news worth a congratulation ("got the job", "est né").
    var goodNews: PhraseSet = []
    /// A question that expects yes or no starts with one of these (`can`, `kannst`, `est-ce que`).
    var yesNoOpeners: PhraseSet = []
    /// Questions asked out of courtesy ("how are you?").
    var courtesyQuestions: PhraseSet = []
    /// Words that mark the polite form of address (German Sie, French vous, Spanish usted).
    var formalMarkers: Set<String> = []
    var informalMarkers: Set<String> = []
    var replies: ReplyTemplates? = nil
}

/// The languages the built-in provider identifies; `supported` ones get summaries' word lists and
/// smart replies.
enum AssistLanguage: String, Sendable, Hashable, CaseIterable {
    case en, de, fr, es, it, pt, nl, pl
    var isSupported: Bool { self == .en || self == .de || self == .fr || self == .es }
}

/// FR-COMP-03's texts, per intent: the first of each list is the best answer, the second an
/// alternative; `formal` variants are used when the sender addressed the user formally.
struct ReplyTemplates: Sendable {
    var yes: String
    var no: String
    var willCheck: (informal: String, formal: String)
    var schedulingYes: String
    var schedulingOther: (informal: String, formal: String)
    var willDo: (informal: String, formal: String)
    var done: String
    var welcome: (informal: String, formal: String)
    var gladToHelp: String
    var noted: (informal: String, formal: String)
    var congratulations: String
}

/// A lowercased word sequence; a final `*` on a word makes it a prefix.
struct Phrase: Sendable, Hashable, ExpressibleByStringLiteral {
    var words: [Substring]
    init(stringLiteral value: String) { words = value.split(separator: " ") }

    /// Whether the phrase stands in `text` from `position`.
    func matches(_ text: [Substring], at position: Int) -> Bool {
        guard !words.isEmpty, position + words.count <= text.count else { return false }
        for (offset, word) in words.enumerated() where !Self.matches(word, text[position + offset]) { return false }
        return true
    }

    private static func matches(_ pattern: Substring, _ word: Substring) -> Bool {
        pattern.last == "*" ? word.hasPrefix(pattern.dropLast()) : word == pattern
    }
}

/// A list of phrases looked up by their first word: a sentence is read word by word against a hash
/// table instead of against every phrase (issue 19's 20 ms budget for a 20-message thread).
struct PhraseSet: Sendable, ExpressibleByArrayLiteral {
    let phrases: [Phrase]
    /// Phrases by their exact first word.
    private let byFirstWord: [Substring: [Phrase]]
    /// Phrases whose first word is a prefix pattern (`appreciate*`).
    private let byPrefix: [Phrase]

    init(arrayLiteral elements: Phrase...) {
        phrases = elements
        var index: [Substring: [Phrase]] = [:]
        var prefixed: [Phrase] = []
        for phrase in elements {
            guard let first = phrase.words.first else { continue }
            if first.last == "*" { prefixed.append(phrase) } else { index[first, default: []].append(phrase) }
        }
        byFirstWord = index
        byPrefix = prefixed
    }

    var isEmpty: Bool { phrases.isEmpty }

    /// The phrases that can start at `position` of `text`, whole.
    private func matches(_ text: [Substring], at position: Int) -> Int {
        var count = 0
        for phrase in byFirstWord[text[position]] ?? [] where phrase.matches(text, at: position) { count += 1 }
        for phrase in byPrefix where phrase.matches(text, at: position) { count += 1 }
        return count
    }

    func occur(in text: [Substring]) -> Bool {
        text.indices.contains { matches(text, at: $0) > 0 }
    }

    func open(_ text: [Substring]) -> Bool { !text.isEmpty && matches(text, at: 0) > 0 }

    /// How many distinct phrases occur anywhere in `text`.
    func count(in text: [Substring]) -> Int {
        var found: Set<[Substring]> = []
        for position in text.indices {
            for phrase in (byFirstWord[text[position]] ?? []) + byPrefix where phrase.matches(text, at: position) { found.insert(phrase.words) }
        }
        return found.count
    }

    /// Whether a phrase of at least `minimumWords` words opens `text`.
    func open(_ text: [Substring], minimumWords: Int) -> Bool {
        guard let first = text.first else { return false }
        return ((byFirstWord[first] ?? []) + byPrefix).contains { $0.words.count >= minimumWords && $0.matches(text, at: 0) }
    }
}

extension Lexicon {
    static func of(_ language: AssistLanguage) -> Lexicon { all.first { $0.language == language }! }

    /// Words every language's mail shares: boilerplate is often English in otherwise German mail.
    static let sharedBoilerplate: PhraseSet = [
        "unsubscribe*", "view in browser", "view this email", "privacy policy", "manage preferences", "manage notifications",
        "manage your", "you are receiving", "you're receiving", "you received this", "this email was sent", "this message was sent",
        "do not reply", "don't reply", "please do not reply", "no-reply", "noreply", "automatically generated", "automated message",
        "sent from my", "confidential", "intended recipient", "all rights reserved", "terms of service", "get outlook for"
    ]

    static let all: [Lexicon] = [english, german, french, spanish, italian, portuguese, dutch, polish]

    static let english = Lexicon(
        language: .en,
        commonWords: [
            "the", "and", "to", "of", "a", "is", "it", "you", "that", "for", "on", "with", "we", "this", "be", "are", "have", "i",
            "can", "will", "your", "at", "if", "not", "our", "me", "please", "thanks", "would", "could", "just", "was", "from",
            "about", "let", "know", "what", "there", "they", "so", "but", "my", "all", "do", "by", "an", "or", "hi", "get"
        ],
        greetings: ["hi", "hello", "hey", "dear", "good morning", "good afternoon", "good evening", "morning", "hiya", "greetings"],
        closings: [
            "best", "best regards", "best wishes", "kind regards", "regards", "warm regards", "warmly", "cheers", "thanks", "thank you",
            "many thanks", "thanks again", "all the best", "love", "lots of love", "sincerely", "yours", "take care", "talk soon",
            "speak soon", "see you", "xx", "x"
        ],
        boilerplate: [
            "you can reply", "if you have questions", "click here", "this is an automated", "follow us", "update your preferences",
            "was sent to", "help centre", "help center", "why did i get this", "view the log", "in your settings"
        ],
        pleasantries: [
            "hope you", "hope this", "hope all", "i hope", "how are you", "how's it going", "happy holidays", "have a great",
            "have a nice", "have a good", "enjoy your", "let me know if you have", "feel free", "thanks in advance", "many thanks",
            "thanks so much", "thank you so much", "looking forward", "happy friday", "just checking in", "quick one"
        ],
        decisions: [
            "approved", "approve", "agreed", "agree", "decided", "decision", "confirmed", "confirm", "cancelled", "canceled", "moved",
            "postponed", "rescheduled", "will be", "will", "deadline", "due", "signed", "accepted", "declined", "rejected",
            "booked", "paid", "ships", "shipped", "delivered", "failed", "fixed", "released", "closed", "reopens", "starts",
            "need", "needs", "must", "going with", "final", "instead", "only", "budget", "price", "cost", "total"
        ],
        dateWords: [
            "today", "tonight", "tomorrow", "yesterday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
            "sunday", "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
            "november", "december", "next week", "this week", "weekend", "end of", "by", "noon", "am", "pm"
        ],
        requests: [
            "please", "could you", "can you", "would you", "will you", "could we", "can we", "let me know", "let us know",
            "need you to", "i need", "send me", "send us", "get back to me", "confirm", "approve", "sign", "review", "check",
            "would it be possible", "are you able", "do you mind", "would you mind", "make sure", "remember to", "don't forget",
            "kindly", "can i ask", "could i ask", "shout if", "give me a call", "call me"
        ],
        scheduling: [
            "meet", "meeting", "call", "available", "availability", "free on", "free at", "slot", "reschedule", "move the",
            "push the", "works for you", "work for you", "suit you", "suits you", "what time", "which day", "when can",
            "when are you", "catch up", "coffee", "lunch", "dinner", "appointment", "calendar", "invite", "schedule", "session",
            "come over", "drop by", "join us", "see you on"
        ],
        thanks: ["thank", "thanks", "grateful", "appreciate*", "cheers for", "thx"],
        goodNews: [
            "got the job", "got the offer", "engaged", "married", "was born", "baby", "promoted", "promotion", "passed", "we did it",
            "good news", "great news", "excited to", "thrilled", "happy to announce", "accepted", "new job", "moved into",
            "i made it", "we won"
        ],
        yesNoOpeners: [
            "can", "could", "do", "does", "did", "is", "are", "was", "were", "will", "would", "shall", "should", "have", "has",
            "any chance", "ok", "okay", "fancy", "want", "happy to", "are you", "is it", "would you", "any objection*", "up for"
        ],
        courtesyQuestions: [
            "how are you", "how are things", "how's it going", "how have you been", "how was your", "hope you're well",
            "any questions", "you know what i mean", "right?"
        ],
        replies: ReplyTemplates(
            yes: "Yes, that works for me.", no: "Sorry, that won't work for me.",
            willCheck: ("Let me check and get back to you.", "Let me check and get back to you."),
            schedulingYes: "That time works for me.",
            schedulingOther: ("Could we find another time?", "Could we find another time?"),
            willDo: ("Sure, I'll take care of it.", "Certainly, I'll take care of it."),
            done: "Done.",
            welcome: ("You're welcome!", "You're very welcome."),
            gladToHelp: "Glad I could help!",
            noted: ("Thanks for letting me know!", "Thank you for letting me know."),
            congratulations: "Congratulations, that's great news!"))

    static let german = Lexicon(
        language: .de,
        commonWords: [
            "der", "die", "das", "und", "ich", "sie", "ist", "nicht", "wir", "es", "zu", "mit", "den", "ein", "eine", "für", "auf",
            "dem", "des", "im", "bitte", "auch", "sind", "wie", "wird", "haben", "kann", "noch", "bis", "uns", "du", "dir", "dich",
            "ihnen", "mir", "hallo", "danke", "viele", "grüße", "schon", "aber", "oder", "wenn", "von", "wäre", "gibt", "beim"
        ],
        greetings: [
            "hallo", "hi", "hey", "liebe*", "lieber", "sehr geehrte*", "guten tag", "guten morgen", "guten abend", "moin", "servus",
            "grüß gott", "grüezi", "hallöchen"
        ],
        closings: [
            "viele grüße", "beste grüße", "liebe grüße", "herzliche grüße", "freundliche grüße", "mit freundlichen grüßen", "gruß",
            "grüße", "lg", "vg", "bg", "mfg", "danke", "vielen dank", "bis bald", "bis dann", "ciao", "tschüss", "schöne grüße",
            "sonnige grüße", "dein", "deine", "euer", "eure", "ihr", "ihre", "bis morgen", "herzlichst", "alles liebe"
        ],
        boilerplate: [
            "diese e-mail wurde automatisch", "automatisch erstellt", "automatisch generiert", "bitte antworten sie nicht",
            "nicht auf diese", "abmelden", "abbestellen", "newsletter abbestellen", "sie erhalten diese", "du erhältst diese",
            "amtsgericht", "geschäftsführer", "ust-idnr", "handelsregister", "von meinem iphone gesendet", "datenschutz",
            "impressum", "sie erhalten diese erinnerung", "hrb"
        ],
        pleasantries: [
            "ich hoffe", "hoffe es geht", "wie geht", "schönes wochenende", "schönen tag", "einen schönen", "frohe", "vielen dank im voraus",
            "danke im voraus", "bei fragen", "melde dich gern", "melden sie sich gern", "ich freue mich"
        ],
        decisions: [
            "genehmigt", "freigegeben", "freigabe", "entschieden", "entscheidung", "bestätigt", "bestätigen", "abgesagt", "verschoben",
            "vereinbart", "zugesagt", "abgelehnt", "wird", "werden", "frist", "fällig", "bezahlt", "abbuchung", "unterschrieben",
            "gebucht", "geliefert", "versandt", "muss", "müssen", "brauchen", "brauche", "stattdessen", "nur", "budget", "preis",
            "kosten", "betrag", "gesamt", "gekündigt", "kündigung", "endet", "beginnt", "ab"
        ],
        dateWords: [
            "heute", "morgen", "übermorgen", "gestern", "montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag",
            "sonntag", "januar", "jänner", "februar", "märz", "april", "mai", "juni", "juli", "august", "september", "oktober",
            "november", "dezember", "nächste woche", "diese woche", "wochenende", "uhr", "bis zum", "ende"
        ],
        requests: [
            "bitte", "könnten sie", "können sie", "könntest du", "kannst du", "würden sie", "würdest du", "gib mir bescheid",
            "geben sie mir bescheid", "sag bescheid", "sagen sie bescheid", "melde dich", "melden sie sich", "schick mir",
            "schicken sie", "senden sie", "bestätigen sie", "bestätige", "brauche ich", "ich bräuchte", "wäre es möglich",
            "ist es möglich", "wäre super", "wäre toll", "denk dran", "denken sie daran", "prüfen", "freigeben", "unterschreiben"
        ],
        scheduling: [
            "termin", "treffen", "besprechung", "meeting", "call", "telefonat", "passt", "passen", "zeit", "verfügbar", "verschieben",
            "kalender", "einladung", "uhrzeit", "wann", "vorbeikommen", "mittagessen", "kaffee", "abendessen", "sprechstunde"
        ],
        thanks: ["danke", "dank", "bedanke", "dankbar", "vielen dank", "herzlichen dank"],
        goodNews: [
            "geschafft", "bestanden", "geboren", "verlobt", "geheiratet", "neuen job", "die stelle", "zusage bekommen", "gute nachricht",
            "gute nachrichten", "freue mich", "freuen uns", "gewonnen", "beförder*"
        ],
        yesNoOpeners: [
            "kannst", "können", "könntest", "könnten", "hast", "haben", "hättest", "hätten", "ist", "bist", "sind", "seid", "gibt",
            "passt", "wäre", "wären", "würdest", "würden", "willst", "wollen", "magst", "möchtest", "möchten", "darf", "dürfen",
            "soll", "sollen", "machst", "kommst", "kommen", "geht", "wollt", "habt", "hat"
        ],
        courtesyQuestions: ["wie geht", "wie war", "alles gut", "alles klar"],
        formalMarkers: ["sie", "ihnen", "ihr", "ihre", "ihrer", "ihren", "ihrem"],
        informalMarkers: ["du", "dir", "dich", "dein", "deine", "deinen", "deinem", "euch", "ihr", "kannst", "hast", "bist"],
        replies: ReplyTemplates(
            yes: "Ja, das passt.", no: "Leider passt das nicht.",
            willCheck: ("Ich schaue nach und melde mich bei dir.", "Ich kläre das und melde mich bei Ihnen."),
            schedulingYes: "Der Termin passt mir.",
            schedulingOther: ("Können wir einen anderen Termin finden?", "Könnten wir einen anderen Termin finden?"),
            willDo: ("Klar, ich kümmere mich darum.", "Gerne, ich kümmere mich darum."),
            done: "Erledigt.",
            welcome: ("Gern geschehen!", "Sehr gern geschehen."),
            gladToHelp: "Freut mich, dass ich helfen konnte!",
            noted: ("Danke für die Info!", "Vielen Dank für die Information."),
            congratulations: "Herzlichen Glückwunsch, das ist eine tolle Nachricht!"))

    static let french = Lexicon(
        language: .fr,
        commonWords: [
            "le", "la", "les", "de", "des", "du", "et", "est", "un", "une", "je", "vous", "tu", "nous", "pour", "que", "qui", "pas",
            "dans", "sur", "avec", "ce", "cette", "il", "elle", "au", "aux", "merci", "bonjour", "ne", "se", "en", "on", "mais",
            "ou", "si", "plus", "votre", "ton", "ta", "tes", "vos", "mon", "ma", "mes", "être", "avoir", "fait", "peux", "pouvez"
        ],
        greetings: ["bonjour", "bonsoir", "salut", "coucou", "cher", "chère", "chers", "chères", "madame", "monsieur", "hello"],
        closings: [
            "cordialement", "bien cordialement", "bien à vous", "bien à toi", "amicalement", "amitiés", "bises", "grosses bises", "bisous",
            "à bientôt", "a bientôt", "merci", "merci beaucoup", "belle journée", "bonne journée", "bonne soirée", "salutations",
            "sincères salutations", "très cordialement", "à plus", "à demain", "au plaisir", "je t'embrasse", "je vous embrasse"
        ],
        boilerplate: [
            "ne pas répondre", "ne répondez pas", "ne pas repondre", "message automatique", "généré automatiquement",
            "se désinscrire", "désinscri*", "désabonne*", "vous recevez ce", "vous recevez cet", "tu reçois", "mentions légales",
            "ne vous demandera jamais", "envoyé de mon", "politique de confidentialité", "siret", "rcs"
        ],
        pleasantries: [
            "j'espère que", "comment vas-tu", "comment allez-vous", "bon week-end", "bonne semaine", "bonne journée", "n'hésite pas",
            "n'hésitez pas", "merci d'avance", "merci par avance", "au plaisir"
        ],
        decisions: [
            "approuvé", "validé", "valider", "décidé", "décision", "confirmé", "confirmer", "annulé", "reporté", "déplacé", "accepté",
            "refusé", "signé", "réservé", "payé", "réglé", "livré", "expédié", "sera", "seront", "va", "date limite", "échéance",
            "avant le", "il faut", "doit", "devons", "besoin", "seulement", "budget", "prix", "coût", "montant", "total", "devis"
        ],
        dateWords: [
            "aujourd'hui", "demain", "hier", "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche", "janvier",
            "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre",
            "semaine prochaine", "cette semaine", "week-end", "h", "heures", "midi", "fin"
        ],
        requests: [
            "merci de", "pourriez-vous", "pouvez-vous", "pourrais-tu", "peux-tu", "veuillez", "je vous prie", "s'il vous plaît",
            "s'il te plaît", "svp", "dis-moi", "dites-moi", "tiens-moi", "tenez-moi", "envoie-moi", "envoyez-moi", "confirme",
            "confirmez", "valider", "j'aurais besoin", "j'ai besoin", "serait-il possible", "est-il possible", "pense à",
            "pensez à", "rappelle-moi", "rappelez-moi", "faites-moi savoir", "fais-moi signe", "relire"
        ],
        scheduling: [
            "rendez-vous", "réunion", "rencontrer", "se voir", "disponible", "disponibilité*", "créneau", "convient", "te va",
            "vous va", "reporter", "déplacer", "calendrier", "invitation", "quelle heure", "quand", "déjeuner", "dîner", "café",
            "appel", "visio", "passer"
        ],
        thanks: ["merci", "remercie", "remercier", "remerciements", "reconnaissant*"],
        goodNews: [
            "j'ai eu", "j'ai obtenu", "on a eu", "est né", "est née", "fiancé*", "marié*", "bonne nouvelle", "ravi*", "heureux de vous annoncer",
            "décroché", "réussi", "admis", "gagné"
        ],
        yesNoOpeners: [
            "est-ce", "peux-tu", "pouvez-vous", "pourrais-tu", "pourriez-vous", "as-tu", "avez-vous", "es-tu",
            "êtes-vous", "serais-tu", "seriez-vous", "veux-tu", "voulez-vous", "ça te", "ça vous", "tu peux", "vous pouvez",
            "tu veux", "vous voulez", "on", "c'est", "ok"
        ],
        courtesyQuestions: ["comment vas-tu", "comment allez-vous", "ça va", "tu vas bien", "vous allez bien"],
        formalMarkers: ["vous", "votre", "vos"],
        informalMarkers: ["tu", "te", "toi", "ton", "ta", "tes"],
        replies: ReplyTemplates(
            yes: "Oui, ça me va.", no: "Malheureusement, ça ne va pas être possible.",
            willCheck: ("Je vérifie et je reviens vers toi.", "Je vérifie et je reviens vers vous."),
            schedulingYes: "Ce créneau me convient.",
            schedulingOther: ("On peut trouver un autre créneau ?", "Pourrions-nous trouver un autre créneau ?"),
            willDo: ("Pas de souci, je m'en occupe.", "Entendu, je m'en occupe."),
            done: "C'est fait.",
            welcome: ("Avec plaisir !", "Je vous en prie, avec plaisir."),
            gladToHelp: "Content de pouvoir aider !",
            noted: ("Merci pour l'info !", "Merci pour l'information."),
            congratulations: "Félicitations, c'est une super nouvelle !"))

    static let spanish = Lexicon(
        language: .es,
        commonWords: [
            "el", "la", "los", "las", "de", "del", "y", "que", "en", "un", "una", "es", "por", "para", "con", "no", "se", "te", "me",
            "lo", "le", "tu", "su", "al", "como", "más", "pero", "hola", "gracias", "muy", "ya", "si", "sí", "hay", "estoy",
            "nos", "vamos", "puedes", "puede", "este", "esta", "usted", "mi", "mis", "tus", "favor", "día", "qué"
        ],
        greetings: ["hola", "buenos días", "buenas tardes", "buenas noches", "buenas", "estimad*", "querid*", "hey", "apreciad*"],
        closings: [
            "saludos", "un saludo", "un abrazo", "abrazos", "un beso", "besos", "atentamente", "cordialmente", "gracias", "muchas gracias",
            "hasta pronto", "hasta luego", "nos vemos", "un abrazo enorme", "un fuerte abrazo", "saludos cordiales", "quedo atento",
            "quedo atenta", "quedo a la espera", "besitos", "chao"
        ],
        boilerplate: [
            "no respondas", "no responda", "no responder", "mensaje automático", "generado automáticamente", "darte de baja",
            "darse de baja", "dar de baja", "date de baja", "no quieres recibir", "recibes este", "has recibido",
            "enviado desde mi", "política de privacidad", "aviso legal", "nunca te pedirá", "nunca le pedirá"
        ],
        pleasantries: [
            "espero que", "qué tal", "cómo estás", "cómo está", "buen fin de semana", "feliz", "cualquier cosa", "cualquier duda",
            "gracias de antemano", "quedo a la espera", "un placer"
        ],
        decisions: [
            "aprobado", "aprobada", "aprobar", "decidido", "decisión", "confirmado", "confirmada", "confirmar", "cancelado", "aplazado",
            "movido", "aceptado", "rechazado", "firmado", "reservado", "pagado", "enviado", "entregado", "será", "serán", "va a",
            "vamos a", "plazo", "fecha límite", "antes del", "hay que", "tenemos que", "necesito", "necesitamos", "solo",
            "presupuesto", "precio", "coste", "importe", "total", "cargo"
        ],
        dateWords: [
            "hoy", "mañana", "ayer", "lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo", "enero", "febrero",
            "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "setiembre", "octubre", "noviembre", "diciembre",
            "la semana que viene", "próxima semana", "esta semana", "fin de semana", "h", "horas", "mediodía"
        ],
        requests: [
            "por favor", "podrías", "podéis", "puedes", "puede", "pueden", "podría", "me envías", "envíame", "mándame", "avísame",
            "avísanos", "confírmame", "confirma", "confirme", "dime", "dígame", "necesito que", "te pido", "le pido", "sería posible",
            "es posible", "no olvides", "recuerda", "revisa", "revisar", "aprueba", "firma", "hazme saber"
        ],
        scheduling: [
            "reunión", "reunirnos", "quedamos", "quedar", "cita", "disponible", "disponibilidad", "hueco", "te viene bien",
            "le viene bien", "os viene bien", "a qué hora", "qué día", "cuándo", "aplazar", "mover la", "calendario", "invitación",
            "comida", "cena", "café", "llamada", "videollamada", "nos vemos"
        ],
        thanks: ["gracias", "agradec*", "agradezco"],
        goodNews: [
            "me lo han dado", "me han dado", "conseguido", "nació", "ha nacido", "nos casamos", "prometid*", "buena noticia",
            "buenas noticias", "aprobé", "he aprobado", "ganamos", "nuevo trabajo", "el puesto"
        ],
        yesNoOpeners: [
            "puedes", "podrías", "puede", "podría", "podéis", "tienes", "tiene", "te", "le", "os", "estás", "está", "es", "hay",
            "vas", "va", "vienes", "viene", "quieres", "quiere", "sería", "te parece", "le parece", "nos", "me", "ok", "vale"
        ],
        courtesyQuestions: ["qué tal", "cómo estás", "cómo está", "cómo te va", "todo bien"],
        formalMarkers: ["usted", "ustedes", "le", "su", "sus"],
        informalMarkers: ["tú", "te", "ti", "tu", "tus", "os", "vosotros"],
        replies: ReplyTemplates(
            yes: "Sí, me parece bien.", no: "Lo siento, no va a poder ser.",
            willCheck: ("Lo miro y te digo algo.", "Lo reviso y le digo algo."),
            schedulingYes: "Me viene bien.",
            schedulingOther: ("¿Podemos buscar otro momento?", "¿Podríamos buscar otro momento?"),
            willDo: ("Claro, me encargo.", "Por supuesto, me encargo."),
            done: "Hecho.",
            welcome: ("¡De nada!", "No hay de qué."),
            gladToHelp: "¡Me alegro de haber ayudado!",
            noted: ("¡Gracias por avisar!", "Gracias por la información."),
            congratulations: "¡Enhorabuena, qué buena noticia!"))

    static let italian = Lexicon(
        language: .it,
        commonWords: [
            "il", "di", "che", "è", "non", "per", "una", "sono", "della", "del", "con", "gli", "le", "ci", "ti", "mi", "ciao",
            "grazie", "buongiorno", "anche", "come", "questo", "questa", "alla", "nel", "nella", "ho", "hai", "abbiamo", "possiamo",
            "potresti", "vorrei", "saluti", "cordiali", "preventivo", "settimana", "prossima"
        ])
    static let portuguese = Lexicon(
        language: .pt,
        commonWords: [
            "o", "os", "não", "uma", "com", "para", "você", "obrigado", "obrigada", "olá", "bom", "dia", "também", "muito", "isso",
            "está", "estou", "então", "vamos", "podemos", "você", "nós", "são", "ao", "à", "das", "dos", "na", "no", "pelo"
        ])
    static let dutch = Lexicon(
        language: .nl,
        commonWords: [
            "de", "het", "een", "en", "van", "ik", "je", "jij", "u", "niet", "is", "dat", "op", "te", "met", "voor", "zijn", "wij",
            "we", "hallo", "bedankt", "groeten", "alvast", "graag", "kun", "kunt", "wil", "ook", "maar", "nog", "naar", "dit"
        ])
    static let polish = Lexicon(
        language: .pl,
        commonWords: [
            "i", "w", "nie", "się", "na", "że", "z", "do", "to", "jest", "jak", "po", "czy", "dzień", "dobry", "pozdrawiam",
            "dziękuję", "proszę", "może", "możemy", "spotkanie", "przyszłym", "tygodniu", "pan", "pani", "mi", "ci", "jestem",
            "będzie", "już", "tak", "od", "za", "przez", "cześć"
        ])
}
