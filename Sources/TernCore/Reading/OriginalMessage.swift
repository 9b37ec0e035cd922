import Foundation

/// Where a message's bytes are on the server: the account, a folder holding it and its UID there.
public struct MessageSourceLocation: Sendable, Hashable {
    public var emailId: EmailID
    public var accountId: Account.ID
    public var folderPath: String
    public var uid: Int64

    public init(emailId: EmailID, accountId: Account.ID, folderPath: String, uid: Int64) {
        self.emailId = emailId
        self.accountId = accountId
        self.folderPath = folderPath
        self.uid = uid
    }
}

/// The store's side of "the original message": where each message is on the server.
public protocol MessageSourceStore: Sendable {
    /// One folder holding the message (the Inbox first); nil when it is in none (a local draft, an
    /// Outbox message, or an unknown id).
    func sourceLocation(of emailId: EmailID) async throws -> MessageSourceLocation?
    /// Every message of the folder with its UID, oldest UID first; the folder by its path (`INBOX`
    /// in any case), in the named account or in the one account that has such a folder.
    func sourceLocations(account: AccountName?, folderPath: String) async throws -> MessageSourceFolder
}

/// A folder's messages on the server.
public struct MessageSourceFolder: Sendable, Hashable {
    public var accountId: Account.ID
    public var path: String
    public var locations: [MessageSourceLocation]

    public init(accountId: Account.ID, path: String, locations: [MessageSourceLocation]) {
        self.accountId = accountId
        self.path = path
        self.locations = locations
    }
}

/// Fetches a message's bytes exactly as the server holds them (`BODY.PEEK[]`: reading them marks
/// nothing read), through the account's connection pool (FR-SYNC-09).
public protocol MessageSourceFetching: Sendable {
    func source(_ location: MessageSourceLocation, account: Account, credentials: CredentialSupply) async throws -> [UInt8]
    /// The folder's messages one at a time, in the order given; `each` is called with each one's
    /// bytes as it arrives, so a large folder is never held whole. A message gone from the server
    /// is skipped.
    func sources(
        _ locations: [MessageSourceLocation], folderPath: String, account: Account, credentials: CredentialSupply,
        each: @escaping @Sendable (MessageSourceLocation, [UInt8]) async throws -> Void
    ) async throws
}

/// One header field of an original, unfolded and decoded, for showing.
public struct HeaderLine: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Reads an original's header section (the adapter's MIME parser): its fields in order and its
/// `Authentication-Results` (RFC 8601) as read by the same parser sync uses.
public protocol MessageHeaderReading: Sendable {
    func header(of source: [UInt8]) -> (fields: [HeaderLine], authentication: [AuthenticationResults])
}

/// One `Received` field (RFC 5321 section 4.4) laid out: which server handed the message to which,
/// how, and when; the hops are listed in the order the message travelled (the field written last,
/// on top of the header, is the last hop).
public struct ReceivedHop: Sendable, Hashable {
    public var from: String?
    public var by: String?
    public var with: String?
    public var date: Date?
    /// Seconds since the hop before (nil for the first, or when a date is missing).
    public var delay: TimeInterval?

    /// `from X by Y with Z id I for F; date`: the clauses by their keywords; anything else is left out.
    public static func parse(_ value: String) -> ReceivedHop {
        let parts = value.split(separator: ";", omittingEmptySubsequences: false)
        let clauses = parts.count > 1 ? parts.dropLast().joined(separator: ";") : String(parts.first ?? "")
        // Words outside comments: a comment (`(using TLSv1.3 with cipher …)`) may hold a keyword.
        var words: [(text: String, inComment: Bool)] = []
        var depth = 0
        for word in clauses.split(whereSeparator: \.isWhitespace).prefix(400) {
            let startsInside = depth > 0 || word.hasPrefix("(")
            for character in word {
                if character == "(" { depth += 1 } else if character == ")" { depth = max(0, depth - 1) }
            }
            words.append((String(word), startsInside))
        }
        let keywords: Set<String> = ["from", "by", "with", "via", "id", "for"]
        func isKeyword(_ index: Int) -> Bool { !words[index].inComment && keywords.contains(words[index].text.lowercased()) }
        var hop = ReceivedHop()
        var index = 0
        while index < words.count {
            guard isKeyword(index) else {
                index += 1
                continue
            }
            var end = index + 1
            while end < words.count, !isKeyword(end) { end += 1 }
            let text = words[(index + 1)..<end].map(\.text).joined(separator: " ")
            switch words[index].text.lowercased() {
            case "from": hop.from = text
            case "by": hop.by = text
            case "with": hop.with = text
            default: break
            }
            index = end
        }
        if parts.count > 1 { hop.date = RFC5322Date.parse(String(parts.last!).trimmingCharacters(in: .whitespaces)) }
        return hop
    }

    /// The hops of a header, oldest first, each with its delay after the one before.
    public static func path(_ fields: [HeaderLine]) -> [ReceivedHop] {
        var hops = fields.filter { $0.name.caseInsensitiveCompare("Received") == .orderedSame }.prefix(100).map { parse($0.value) }.reversed()
            .map { $0 }
        for index in hops.indices.dropFirst() {
            if let date = hops[index].date, let before = hops[index - 1].date { hops[index].delay = date.timeIntervalSince(before) }
        }
        return hops
    }
}

/// The `date-time` of RFC 5322 section 3.3, as `Received` fields end: `[day ,] d mon yyyy hh:mm[:ss] zone`.
enum RFC5322Date {
    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    static func parse(_ text: String) -> Date? {
        var words = text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
        if let first = words.first, first.hasSuffix(",") || Int(first) == nil { words.removeFirst() }
        guard words.count >= 4, let day = Int(words[0]), let month = months.firstIndex(of: words[1].prefix(3).lowercased()),
            let year = Int(words[2])
        else { return nil }
        let time = words[3].split(separator: ":").compactMap { Int($0) }
        guard time.count >= 2 else { return nil }
        var offset = 0
        if words.count >= 5, let zone = Int(words[4]), words[4].count == 5 {
            offset = (zone / 100) * 3600 + (zone % 100) * 60
        }
        var components = DateComponents()
        (components.year, components.month, components.day) = (year < 100 ? 2000 + year : year, month + 1, day)
        (components.hour, components.minute, components.second) = (time[0], time[1], time.count > 2 ? time[2] : 0)
        components.timeZone = TimeZone(secondsFromGMT: 0)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        return calendar.date(from: components).map { $0.addingTimeInterval(TimeInterval(-offset)) }
    }
}

/// What Show original lays out (as Gmail does): the message's identity, its provider's
/// authentication results, the path through servers, then the source as text.
public struct OriginalMessageReport: Sendable {
    public var emailId: EmailID
    public var source: [UInt8]
    public var fields: [HeaderLine]
    public var authentication: [AuthenticationResults]
    public var hops: [ReceivedHop]

    /// The first field of that name.
    public func field(_ name: String) -> String? { fields.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value }
}

/// Issue 36, "the original message": `tern export`, Show original and Download message. The bytes
/// always come from the server (Tern keeps the parsed message, not its source), fetched on demand.
public struct OriginalMessageUseCase: Sendable {
    let store: any MessageSourceStore
    let accounts: any AccountRepository
    let credentials: AccountCredentials
    let fetcher: any MessageSourceFetching
    let headers: any MessageHeaderReading

    public init(
        store: any MessageSourceStore, accounts: any AccountRepository, credentials: AccountCredentials, fetcher: any MessageSourceFetching,
        headers: any MessageHeaderReading
    ) {
        self.store = store
        self.accounts = accounts
        self.credentials = credentials
        self.fetcher = fetcher
        self.headers = headers
    }

    /// Show original: the source with its header laid out.
    public func report(_ emailId: EmailID) async throws -> OriginalMessageReport {
        let source = try await source(emailId)
        let header = headers.header(of: source)
        return OriginalMessageReport(
            emailId: emailId, source: source, fields: header.fields, authentication: header.authentication, hops: ReceivedHop.path(header.fields))
    }

    /// The message's bytes as the server has them.
    public func source(_ emailId: EmailID) async throws -> [UInt8] {
        guard let location = try await store.sourceLocation(of: emailId) else {
            throw TernError.notFound("message \(emailId) on the server (a message not yet sent or saved there has no original)")
        }
        let account = try await account(location.accountId)
        return try await fetcher.source(location, account: account, credentials: credentials.supply(for: account))
    }

    /// A folder's messages as one mbox (`MboxWriter`), written through `write` a message at a time.
    /// Returns how many messages were written.
    public func exportMbox(
        account name: AccountName?, folderPath: String, write: @escaping @Sendable ([UInt8]) async throws -> Void
    ) async throws -> Int {
        let folder = try await store.sourceLocations(account: name, folderPath: folderPath)
        let account = try await account(folder.accountId)
        let counter = MessageCounter()
        try await fetcher.sources(folder.locations, folderPath: folder.path, account: account, credentials: credentials.supply(for: account)) {
            _, bytes in
            try await write(MboxWriter.entry(bytes))
            await counter.add()
        }
        return await counter.count
    }

    func account(_ id: Account.ID) async throws -> Account {
        guard let account = try await accounts.account(id: id) else { throw TernError.notFound("account") }
        return account
    }
}

private actor MessageCounter {
    var count = 0
    func add() { count += 1 }
}

/// The mboxrd format (the `application/mbox` of RFC 4155, with mboxrd's quoting): each message
/// after a `From ` line; every line that is `>*From ` gets one more `>`, so the quoting is
/// reversible; line ends become LF as mbox readers expect, and each message ends with a blank line.
public enum MboxWriter {
    /// The separator line: the envelope sender is unknown once delivered (`MAILER-DAEMON`, as
    /// other exporters write) and the date is asctime's fixed one: readers split on `From `, and
    /// the date of a message is in its own Date header.
    public static let separator = Array("From MAILER-DAEMON Thu Jan  1 00:00:00 1970\n".utf8)

    public static func entry(_ message: [UInt8]) -> [UInt8] {
        var out = separator
        out.reserveCapacity(message.count + separator.count + 64)
        var lineStart = 0
        var index = 0
        func emit(_ start: Int, _ end: Int) {
            var contentEnd = end
            if contentEnd > start, message[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            var quote = start
            while quote < contentEnd, message[quote] == UInt8(ascii: ">") { quote += 1 }
            if contentEnd - quote >= 5, Array(message[quote..<quote + 5]) == Array("From ".utf8) { out.append(UInt8(ascii: ">")) }
            out.append(contentsOf: message[start..<contentEnd])
            out.append(0x0A)
        }
        while index < message.count {
            if message[index] == 0x0A {
                emit(lineStart, index)
                lineStart = index + 1
            }
            index += 1
        }
        if lineStart < message.count { emit(lineStart, message.count) }
        out.append(0x0A)
        return out
    }
}
