import Foundation

/// The `List-Unsubscribe`, `List-Unsubscribe-Post` and `List-Id` fields of one message, unfolded and
/// decoded, as the adapter read them from the message's header on the person's own server.
public struct ListHeaderFields: Sendable, Hashable {
    public var listUnsubscribe: String?
    public var listUnsubscribePost: String?
    public var listId: String?

    public init(listUnsubscribe: String? = nil, listUnsubscribePost: String? = nil, listId: String? = nil) {
        self.listUnsubscribe = listUnsubscribe
        self.listUnsubscribePost = listUnsubscribePost
        self.listId = listId
    }
}

/// The `mailto:` form of an unsubscribe (RFC 2369 section 3.2 over RFC 6068): one address, with the
/// subject and body the list asks for, each cleaned of line breaks and controls and capped, since a
/// stranger wrote them and they go out under the person's own name.
public struct MailtoUnsubscribe: Sendable, Hashable, Codable {
    public var address: String
    public var subject: String
    public var body: String

    public init(address: String, subject: String, body: String) {
        self.address = address
        self.subject = subject
        self.body = body
    }
}

/// What a message's list offers for leaving it (RFC 2369 section 3.2, RFC 8058), already judged:
/// only an `https` address with `List-Unsubscribe-Post: List-Unsubscribe=One-Click` is a one-click
/// unsubscribe; any other web address would need a browser, which Tern never opens for the person,
/// so it is kept only to be named (`webPage`).
public struct ListUnsubscribeMethods: Sendable, Hashable {
    /// RFC 8058's one-click address (https).
    public var oneClick: URL?
    public var mailto: MailtoUnsubscribe?
    /// A web page only a browser could use (no one-click), shown as text and never fetched.
    public var webPage: String?
    /// The list's identifier from `List-Id` (RFC 2919: the part between angle brackets), lowercased.
    public var listId: String?
    /// The phrase before the `List-Id`'s angle brackets, when the list named itself.
    public var listName: String?

    /// At most this many URIs are read from one field: real lists give one to three.
    public static let maxURIs = 8
    /// Longer URIs are ignored (RFC 8058 lists keep theirs short; a huge one is hostile).
    public static let maxURILength = 2_048
    static let maxSubjectLength = 200
    static let maxBodyLength = 2_000
    /// RFC 8058 section 3.1: the one value of `List-Unsubscribe-Post` that asks for one-click.
    public static let oneClickPostValue = "List-Unsubscribe=One-Click"

    public init(oneClick: URL? = nil, mailto: MailtoUnsubscribe? = nil, webPage: String? = nil, listId: String? = nil, listName: String? = nil) {
        self.oneClick = oneClick
        self.mailto = mailto
        self.webPage = webPage
        self.listId = listId
        self.listName = listName
    }

    /// Whether anything can be done by Tern (one-click or mail).
    public var isActionable: Bool { oneClick != nil || mailto != nil }

    /// Which the person gets: one-click where offered (RFC 8058 section 3.2 prefers it: it needs no
    /// mail from the person), else the mail.
    public var preferred: UnsubscribeMethod? {
        if let oneClick { return .oneClick(oneClick) }
        if let mailto { return .mailto(mailto) }
        return nil
    }

    /// Reads the fields; nil when there is no `List-Unsubscribe` or nothing in it can be read.
    /// Linear in the input, and total: any bytes give an answer, never a crash.
    public static func parse(_ fields: ListHeaderFields) -> ListUnsubscribeMethods? {
        guard let value = fields.listUnsubscribe else { return nil }
        let uris = bracketedURIs(value)
        let postIsOneClick =
            fields.listUnsubscribePost.map {
                $0.filter { !$0.isWhitespace }.caseInsensitiveCompare(oneClickPostValue) == .orderedSame
            } ?? false
        var methods = ListUnsubscribeMethods()
        for uri in uris {
            let lower = uri.lowercased()
            if lower.hasPrefix("mailto:") {
                if methods.mailto == nil { methods.mailto = parseMailto(uri) }
            } else if lower.hasPrefix("https:") {
                if postIsOneClick, methods.oneClick == nil, let url = oneClickURL(uri) {
                    methods.oneClick = url
                } else if methods.webPage == nil, methods.oneClick == nil {
                    methods.webPage = visible(uri)
                }
            } else if lower.hasPrefix("http:"), methods.webPage == nil {
                methods.webPage = visible(uri)
            }
        }
        if let listId = fields.listId {
            let parsed = parseListId(listId)
            methods.listName = parsed.name
            methods.listId = parsed.id
        }
        guard methods.isActionable || methods.webPage != nil else { return nil }
        return methods
    }

    /// RFC 2369 section 2: a comma-separated list of URIs in angle brackets; whitespace inside a
    /// URI is ignored (it may have been folded), anything outside brackets is a comment.
    static func bracketedURIs(_ value: String) -> [String] {
        var uris: [String] = []
        var current: [Character]?
        for character in value {
            if uris.count >= maxURIs { break }
            switch character {
            case "<": current = []
            case ">":
                if let uri = current, !uri.isEmpty, uri.count <= maxURILength { uris.append(String(uri)) }
                current = nil
            default:
                guard current != nil, !character.isWhitespace else { continue }
                if current!.count <= maxURILength { current!.append(character) }
            }
        }
        return uris
    }

    /// An https URL with a host and no user information (a `user@host` form would send credentials).
    static func oneClickURL(_ uri: String) -> URL? {
        guard uri.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }),
            let components = URLComponents(string: uri), components.scheme?.lowercased() == "https",
            let host = components.host, !host.isEmpty, components.user == nil, components.password == nil
        else { return nil }
        return components.url
    }

    /// RFC 6068: `mailto:addr[,addr]?subject=…&body=…`, percent-decoded. The first address with a
    /// plain `local@domain` shape is kept; every other header field a stranger may put in the URI
    /// (cc, bcc, in-reply-to …) is ignored: the message goes to the list alone.
    static func parseMailto(_ uri: String) -> MailtoUnsubscribe? {
        let rest = uri.dropFirst("mailto:".count)
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let addresses = (parts.first.map(String.init) ?? "").split(separator: ",").compactMap { decoded(String($0)) }
        var subject = ""
        var body = ""
        var extraTo: [String] = []
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let keyValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let key = keyValue.first.flatMap({ decoded(String($0)) })?.lowercased() else { continue }
                let value = keyValue.count == 2 ? (decoded(String(keyValue[1])) ?? "") : ""
                switch key {
                case "subject": subject = value
                case "body": body = value
                case "to": extraTo += value.split(separator: ",").map(String.init)
                default: continue
                }
            }
        }
        guard let address = (addresses + extraTo).map({ $0.trimmingCharacters(in: .whitespaces) }).first(where: isPlainAddress) else {
            return nil
        }
        let cleanSubject = String(oneLine(subject).prefix(maxSubjectLength))
        return MailtoUnsubscribe(
            address: address, subject: cleanSubject.isEmpty ? "unsubscribe" : cleanSubject,
            body: String(withoutControls(body).prefix(maxBodyLength)))
    }

    /// `local@domain`, printable, no spaces, angle brackets, quotes or a second `@`: what can be
    /// handed to the send path as an address without being read as anything else.
    static func isPlainAddress(_ text: String) -> Bool {
        guard text.count <= 254, text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else { return false }
        let pieces = text.split(separator: "@", omittingEmptySubsequences: false)
        guard pieces.count == 2, !pieces[0].isEmpty, pieces[1].contains("."), !pieces[1].hasPrefix("."), !pieces[1].hasSuffix(".") else {
            return false
        }
        return !text.contains(where: { "<>()[]\\,;:\"".contains($0) })
    }

    /// `List-Id: Name <id>` (RFC 2919 section 3).
    static func parseListId(_ value: String) -> (name: String?, id: String?) {
        guard let open = value.lastIndex(of: "<"), let close = value[open...].firstIndex(of: ">") else {
            let bare = value.trimmingCharacters(in: .whitespaces)
            return (nil, bare.isEmpty ? nil : String(oneLine(bare).prefix(255)).lowercased())
        }
        let id = oneLine(String(value[value.index(after: open)..<close])).trimmingCharacters(in: .whitespaces)
        var name = oneLine(String(value[..<open])).trimmingCharacters(in: .whitespaces)
        if name.hasPrefix("\""), name.hasSuffix("\""), name.count >= 2 { name = String(name.dropFirst().dropLast()) }
        return (name.isEmpty ? nil : String(name.prefix(200)), id.isEmpty ? nil : String(id.prefix(255)).lowercased())
    }

    static func decoded(_ text: String) -> String? { text.removingPercentEncoding }

    static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
    }

    /// Controls dropped except line breaks, which a body may have.
    static func withoutControls(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 == "\n" || $0.properties.generalCategory != .control }))
    }

    /// A web address as text to show (never a link): printable ASCII only, capped.
    static func visible(_ uri: String) -> String {
        String(String.UnicodeScalarView(uri.unicodeScalars.filter { $0.value > 0x20 && $0.value < 0x7F }.prefix(300)))
    }

    /// The key a result is remembered under: the `List-Id` where there is one, else the address
    /// the request goes to (so two messages of one list without `List-Id` still agree).
    public var listKey: String {
        if let listId { return listId }
        if let oneClick { return "https://\(oneClick.host?.lowercased() ?? "")\(oneClick.path)" }
        if let mailto { return "mailto:\(mailto.address.lowercased())" }
        return webPage ?? ""
    }
}

/// How Tern unsubscribes.
public enum UnsubscribeMethod: Sendable, Hashable {
    /// RFC 8058's POST to this https address.
    case oneClick(URL)
    /// A message to the list's address through the person's own server.
    case mailto(MailtoUnsubscribe)

    public var kind: String {
        switch self {
        case .oneClick: "one-click"
        case .mailto: "mail"
        }
    }

    /// Where the request goes: the host of the address, or the mail address.
    public var target: String {
        switch self {
        case .oneClick(let url): url.host ?? url.absoluteString
        case .mailto(let mail): mail.address
        }
    }
}

/// The answer of RFC 8058's POST, as the poster saw it.
public enum OneClickResponse: Sendable, Hashable {
    /// Any 2xx.
    case accepted(status: Int)
    /// Any other status (a redirect to another host is never followed: `redirectRefused`).
    case refused(status: Int)
    /// A redirect to another host or scheme, not followed (RFC 8058 section 3.2: no redirects
    /// across hosts; the list's own host may move the request once).
    case redirectRefused(location: String)
    case unreachable(reason: String)
}

/// Posts RFC 8058's one-click request: `List-Unsubscribe=One-Click` as
/// `application/x-www-form-urlencoded`, no cookies, no referrer, no credentials.
public protocol OneClickUnsubscribePosting: Sendable {
    func post(to url: URL) async -> OneClickResponse
}

/// What happened, remembered per list and account.
public enum UnsubscribeOutcome: String, Sendable, Hashable, Codable {
    /// The list's server answered the one-click POST with success.
    case unsubscribed
    /// The unsubscribe message was handed to the person's server (or queued for it).
    case mailSent = "mail-sent"
    case mailQueued = "mail-queued"
    /// The list's server answered, but not with success.
    case refused
    /// The list's server could not be reached, or moved the request elsewhere.
    case failed
}

/// One list's last unsubscribe, as stored.
public struct UnsubscribeRecord: Sendable, Hashable, Codable {
    public var accountId: Account.ID
    public var listKey: String
    public var method: String
    public var target: String
    public var outcome: UnsubscribeOutcome
    /// The server's status, the reason it failed, or where the mail went: one line for the person.
    public var detail: String
    public var date: Date

    public init(
        accountId: Account.ID, listKey: String, method: String, target: String, outcome: UnsubscribeOutcome, detail: String, date: Date
    ) {
        self.accountId = accountId
        self.listKey = listKey
        self.method = method
        self.target = target
        self.outcome = outcome
        self.detail = detail
        self.date = date
    }

    /// Done: nothing more to ask of the list.
    public var succeeded: Bool { outcome == .unsubscribed || outcome == .mailSent || outcome == .mailQueued }
}

/// What the store gives and keeps for unsubscribing.
public protocol ListUnsubscribeStore: Sendable {
    /// Where the message is on the server, and whether it declared a `List-Unsubscribe` at sync.
    func unsubscribeSubject(_ emailId: EmailID) async throws -> (location: MessageSourceLocation, declaresList: Bool)?
    func unsubscribeRecord(accountId: Account.ID, listKey: String) async throws -> UnsubscribeRecord?
    func saveUnsubscribeRecord(_ record: UnsubscribeRecord) async throws
}

/// Reads a message's list fields from the person's own server (its header only).
public protocol ListHeaderFetching: Sendable {
    func listHeaders(_ location: MessageSourceLocation, account: Account, credentials: CredentialSupply) async throws -> ListHeaderFields
}

/// What the person is asked to confirm (nothing has left the machine for the list yet).
public struct UnsubscribeOffer: Sendable, Hashable {
    public var emailId: EmailID
    public var accountId: Account.ID
    public var methods: ListUnsubscribeMethods
    /// The list's earlier result, if the person unsubscribed from it before.
    public var previous: UnsubscribeRecord?

    /// The list as a person knows it: its name, else its id, else where the request goes.
    public var listLabel: String {
        methods.listName ?? methods.listId ?? methods.preferred?.target ?? methods.webPage ?? "this list"
    }
}

/// RFC 2369 / RFC 8058's unsubscribe, only on the person's word (issue 36): `offer` reads what the
/// list offers from the message's header on the person's own server and contacts nobody else;
/// `unsubscribe`, called once the person confirmed, sends the one-click POST or the mail, and the
/// result is remembered for the list.
public struct UnsubscribeUseCase: Sendable {
    let store: any ListUnsubscribeStore
    let accounts: any AccountRepository
    let credentials: AccountCredentials
    let headers: any ListHeaderFetching
    let poster: any OneClickUnsubscribePosting
    let outbox: OutboxUseCase
    let clock: any WallClock

    public init(
        store: any ListUnsubscribeStore, accounts: any AccountRepository, credentials: AccountCredentials, headers: any ListHeaderFetching,
        poster: any OneClickUnsubscribePosting, outbox: OutboxUseCase, clock: any WallClock = SystemClock()
    ) {
        self.store = store
        self.accounts = accounts
        self.credentials = credentials
        self.headers = headers
        self.poster = poster
        self.outbox = outbox
        self.clock = clock
    }

    /// What the list offers; `TernError.unsubscribeUnavailable` when it offers nothing Tern does.
    public func offer(_ emailId: EmailID) async throws -> UnsubscribeOffer {
        guard let subject = try await store.unsubscribeSubject(emailId) else { throw TernError.notFound("message \(emailId)") }
        guard subject.declaresList else { throw TernError.unsubscribeUnavailable(.notAList) }
        let account = try await account(subject.location.accountId)
        let fields = try await headers.listHeaders(subject.location, account: account, credentials: credentials.supply(for: account))
        guard let methods = ListUnsubscribeMethods.parse(fields) else { throw TernError.unsubscribeUnavailable(.notAList) }
        guard methods.isActionable else { throw TernError.unsubscribeUnavailable(.webPageOnly(methods.webPage ?? "")) }
        let previous = try await store.unsubscribeRecord(accountId: account.id, listKey: methods.listKey)
        return UnsubscribeOffer(emailId: emailId, accountId: account.id, methods: methods, previous: previous)
    }

    /// Unsubscribes by the offer's preferred method. Only after the person confirmed.
    public func unsubscribe(_ emailId: EmailID) async throws -> UnsubscribeRecord {
        let offer = try await offer(emailId)
        guard let method = offer.methods.preferred else { throw TernError.unsubscribeUnavailable(.notAList) }
        let account = try await account(offer.accountId)
        let (outcome, detail) = try await carryOut(method, account: account)
        let record = UnsubscribeRecord(
            accountId: account.id, listKey: offer.methods.listKey, method: method.kind, target: method.target, outcome: outcome, detail: detail,
            date: clock.now())
        try await store.saveUnsubscribeRecord(record)
        return record
    }

    /// The POST or the mail, and what came of it in one line.
    func carryOut(_ method: UnsubscribeMethod, account: Account) async throws -> (UnsubscribeOutcome, String) {
        switch method {
        case .oneClick(let url):
            let host = url.host ?? "the list"
            switch await poster.post(to: url) {
            case .accepted(let status): return (.unsubscribed, "\(host) answered \(status)")
            case .refused(let status): return (.refused, "\(host) answered \(status)")
            case .redirectRefused(let location):
                return (.failed, "the list sent the request on to \(ListUnsubscribeMethods.visible(location)), which Tern does not follow")
            case .unreachable(let reason): return (.failed, "\(host) could not be reached: \(reason)")
            }
        case .mailto(let mail):
            let message = OutgoingMessage(
                from: EmailAddress(name: account.displayName, address: account.emailAddress), to: [EmailAddress(address: mail.address)],
                subject: mail.subject, date: clock.now(), bodyPlain: mail.body.isEmpty ? "unsubscribe" : mail.body)
            let sent = try await outbox.send(message, from: account)
            switch sent.state {
            case .sent, .none: return (.mailSent, "sent to \(mail.address) from \(account.emailAddress)")
            case .queued, .sending: return (.mailQueued, "queued for \(mail.address): it goes when the server can be reached")
            case .failed: return (.failed, "the mail to \(mail.address) failed: \(sent.error ?? "the server refused it")")
            }
        }
    }

    func account(_ id: Account.ID) async throws -> Account {
        guard let account = try await accounts.account(id: id) else { throw TernError.notFound("account") }
        return account
    }
}

/// Why a message offers no unsubscribe Tern can carry out.
public enum UnsubscribeUnavailable: Sendable, Hashable {
    /// No `List-Unsubscribe` (or nothing readable in it).
    case notAList
    /// Only a web page, which would need a browser; Tern never opens one for the person.
    case webPageOnly(String)

    public var sentence: String {
        switch self {
        case .notAList: "this message offers no way to unsubscribe"
        case .webPageOnly(let page): "this list offers only a web page (\(page)), which Tern does not open"
        }
    }
}
