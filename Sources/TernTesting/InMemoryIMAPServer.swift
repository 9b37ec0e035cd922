import Foundation
import IMAP
import MIME

/// An IMAP server in memory, for testing the sync engine with no server running (issue 33): the
/// mailboxes with UIDVALIDITY, UIDNEXT and MODSEQ (RFC 7162), flags, EXPUNGE and VANISHED, IDLE
/// pushes, and failures injected on demand. Sessions (`InMemoryIMAPSession`) and a pool
/// (`InMemoryConnectionPool`) over it implement the engine's seam (`SyncSession`,
/// `SyncConnectionPool`); the test drives "another client" through the methods here.
///
/// It models what the engine relies on, not all of IMAP: SEARCH by the criteria the engine sends,
/// FETCH of the items it asks for, sequence numbers as positions in UID order.
public actor InMemoryIMAPServer {
    /// The commands a session sends, as the log names them.
    public enum Command: String, Sendable, Hashable, CaseIterable {
        case connect, select, examine, search, fetch, store, append, copy, move, expunge, list, status, create, rename, delete, namespace, idle
    }

    /// A failure to inject: the next command of its kind (or the next connection) fails so.
    public enum Fault: Sendable, Hashable {
        /// The connection cannot be made (a network error: retryable).
        case unreachable
        /// The login is refused (not retryable).
        case refuseLogin
        /// The next UID FETCH hands out this many messages, then the connection drops.
        case dropMidFetch(afterMessages: Int)
        /// The next command of this kind times out; the connection is then broken.
        case timeout(Command)
        /// The next command of this kind is answered NO with `text`.
        case refuse(Command, text: String)
    }

    public struct LoggedCommand: Sendable, Hashable, CustomStringConvertible {
        public var command: Command
        public var mailbox: String?
        public var detail: String
        public var description: String { "\(command.rawValue.uppercased()) \(mailbox ?? "") \(detail)" }
    }

    struct StoredMessage: Sendable {
        var uid: UInt32
        var modSeq: UInt64
        var message: InMemoryMessage
        var flags: [String]
    }

    struct Mailbox: Sendable {
        var name: String
        var attributes: [String]
        var uidValidity: UInt32
        var uidNext: UInt32 = 1
        var highestModSeq: UInt64 = 1
        var messages: [StoredMessage] = []
        /// Expunged UIDs with the mod-sequence of their expunge (QRESYNC VANISHED).
        var expunged: [(uid: UInt32, modSeq: UInt64)] = []
        var mailboxId: String

        func sequence(of uid: UInt32) -> UInt32? {
            messages.firstIndex { $0.uid == uid }.map { UInt32($0 + 1) }
        }
    }

    public var capabilities: Set<String>
    public private(set) var log: [LoggedCommand] = []
    var mailboxes: [String: Mailbox] = [:]
    /// Injected faults, each after skipping that many commands it would have matched.
    var faults: [(fault: Fault, skip: Int)] = []
    var nextValidity: UInt32 = 100
    var nextConnection = 0
    /// Connections logged in now, and the most ever at once (FR-SYNC-09: never more than five).
    public private(set) var openConnections: Set<Int> = []
    public private(set) var peakConnections = 0
    public private(set) var connectionsMade = 0
    var watchers: [String: [Int: AsyncThrowingStream<MailboxEvent, any Error>.Continuation]] = [:]

    /// A server with an Inbox, and the capabilities of Dovecot (QRESYNC implies CONDSTORE).
    public init(
        capabilities: Set<String> = ["IMAP4REV1", "IDLE", "UIDPLUS", "MOVE", "ENABLE", "CONDSTORE", "QRESYNC"],
        mailboxes: [(name: String, attributes: [String])] = [("INBOX", [])]
    ) {
        self.capabilities = capabilities
        for (name, attributes) in mailboxes {
            self.mailboxes[name] = Mailbox(name: name, attributes: attributes, uidValidity: nextValidity, mailboxId: "id-\(name)")
            nextValidity += 1
        }
    }

    // MARK: - What a test does as "another client"

    public func setCapabilities(_ capabilities: Set<String>) { self.capabilities = capabilities }

    public func addMailbox(_ name: String, attributes: [String] = [], uidValidity: UInt32? = nil) {
        guard mailboxes[name] == nil else { return }
        mailboxes[name] = Mailbox(name: name, attributes: attributes, uidValidity: uidValidity ?? nextValidity, mailboxId: "id-\(name)")
        nextValidity += 1
    }

    public func removeMailbox(_ name: String) { mailboxes[name] = nil }

    /// Delivers `message` and returns its UID; an IDLE on the mailbox hears EXISTS.
    @discardableResult
    public func deliver(_ message: InMemoryMessage, to mailbox: String = "INBOX") -> UInt32 {
        let uid = insert(message, flags: message.flags, into: mailbox)
        notify(mailbox, .exists(count: UInt32(mailboxes[mailbox]!.messages.count)))
        return uid
    }

    @discardableResult
    public func deliver(_ messages: [InMemoryMessage], to mailbox: String = "INBOX") -> [UInt32] {
        messages.map { deliver($0, to: mailbox) }
    }

    /// Another client sets a message's flags (a new mod-sequence); an IDLE hears the FETCH.
    public func setFlags(_ flags: [String], uid: UInt32, in mailbox: String = "INBOX") {
        guard var box = mailboxes[mailbox], let index = box.messages.firstIndex(where: { $0.uid == uid }) else { return }
        box.highestModSeq += 1
        box.messages[index].flags = flags
        box.messages[index].modSeq = box.highestModSeq
        mailboxes[mailbox] = box
        notify(mailbox, .flagsChanged(sequence: UInt32(index + 1), uid: uid, flags: flags, modSeq: box.highestModSeq))
    }

    /// Another client expunges these messages; an IDLE hears VANISHED.
    public func expunge(uids: [UInt32], from mailbox: String = "INBOX") {
        let gone = removeMessages(uids, from: mailbox)
        if !gone.isEmpty { notify(mailbox, .vanished(UIDSet(uids: gone))) }
    }

    /// The mailbox is recreated under a new UIDVALIDITY: its messages get new UIDs from 1 (what a
    /// server does after a rebuild of its index, FR-SYNC-02 step 5).
    public func resetUIDValidity(of mailbox: String = "INBOX", to validity: UInt32? = nil) {
        guard var box = mailboxes[mailbox] else { return }
        box.uidValidity = validity ?? nextValidity
        nextValidity += 1
        box.expunged = []
        for index in box.messages.indices { box.messages[index].uid = UInt32(index + 1) }
        box.uidNext = UInt32(box.messages.count + 1)
        mailboxes[mailbox] = box
    }

    /// `fault` for the next `times` commands (or connections) it matches, after letting `skipping` of them through.
    public func inject(_ fault: Fault, times: Int = 1, skipping: Int = 0) {
        faults += Array(repeating: (fault, skipping), count: times)
    }

    /// The first waiting fault that `matches`, taken when its skips are used up (each match uses one).
    private func takeFault(_ matches: (Fault) -> Bool) -> Fault? {
        guard let index = faults.firstIndex(where: { matches($0.fault) }) else { return nil }
        if faults[index].skip > 0 {
            faults[index].skip -= 1
            return nil
        }
        return faults.remove(at: index).fault
    }

    public func clearFaults() { faults = [] }

    /// Every IDLE ends as if its connection dropped.
    public func dropIdleConnections() {
        for (_, byConnection) in watchers { for continuation in byConnection.values { continuation.finish(throwing: IMAPError.connectionClosed) } }
        watchers = [:]
    }

    public func uids(in mailbox: String = "INBOX") -> [UInt32] { mailboxes[mailbox]?.messages.map(\.uid) ?? [] }
    public func flags(uid: UInt32, in mailbox: String = "INBOX") -> [String]? {
        mailboxes[mailbox]?.messages.first { $0.uid == uid }?.flags
    }
    public func message(uid: UInt32, in mailbox: String = "INBOX") -> InMemoryMessage? {
        mailboxes[mailbox]?.messages.first { $0.uid == uid }?.message
    }
    public func uidValidity(of mailbox: String = "INBOX") -> UInt32? { mailboxes[mailbox]?.uidValidity }
    public func mailboxNames() -> [String] { mailboxes.keys.sorted() }
    public func clearLog() { log = [] }
    public func commands(_ kind: Command) -> [LoggedCommand] { log.filter { $0.command == kind } }

    // MARK: - What a session asks (the protocol side)

    func connect() throws -> Int {
        if let fault = takeFault({ $0 == .unreachable || $0 == .refuseLogin }) {
            record(.connect, nil, "\(fault)")
            throw fault == .unreachable ? IMAPError.network("connection refused") : IMAPError.authenticationFailed("invalid credentials")
        }
        nextConnection += 1
        connectionsMade += 1
        openConnections.insert(nextConnection)
        peakConnections = max(peakConnections, openConnections.count)
        record(.connect, nil, "connection \(nextConnection)")
        return nextConnection
    }

    func disconnect(_ connection: Int) {
        openConnections.remove(connection)
        for name in watchers.keys {
            watchers[name]?[connection]?.finish()
            watchers[name]?[connection] = nil
        }
    }

    /// The fault for the next command of `kind`, if one is waiting; a timeout or NO is thrown.
    func check(_ kind: Command, mailbox: String?, detail: String) throws {
        record(kind, mailbox, detail)
        if takeFault({ $0 == .timeout(kind) }) != nil {
            throw IMAPError.timeout("no answer to \(kind.rawValue.uppercased())")
        }
        if case .refuse(_, let text)? = takeFault({ if case .refuse(kind, _) = $0 { true } else { false } }) {
            throw IMAPError.server(status: .no, text: text)
        }
    }

    func mailbox(_ name: String) throws -> Mailbox {
        guard let box = mailboxes[name] else { throw IMAPError.server(status: .no, text: "Mailbox doesn't exist: \(name)") }
        return box
    }

    func select(_ name: String, readOnly: Bool, qresync: (uidValidity: UInt32, modSeq: UInt64)?) throws -> IMAPSession.SelectedMailbox {
        try check(readOnly ? .examine : .select, mailbox: name, detail: qresync.map { "(QRESYNC (\($0.uidValidity) \($0.modSeq)))" } ?? "")
        let box = try mailbox(name)
        let condstore = capabilities.contains("CONDSTORE") || capabilities.contains("QRESYNC")
        var selected = IMAPSession.SelectedMailbox(
            mailbox: name, exists: UInt32(box.messages.count), uidValidity: box.uidValidity,
            uidNext: box.uidNext, highestModSeq: condstore ? box.highestModSeq : nil, readOnly: readOnly)
        if let qresync, capabilities.contains("QRESYNC") {
            selected.resynchronized = qresync.uidValidity == box.uidValidity
            if selected.resynchronized {
                selected.vanished = UIDSet(uids: box.expunged.filter { $0.modSeq > qresync.modSeq }.map(\.uid).sorted())
                selected.changed = box.messages.filter { $0.modSeq > qresync.modSeq }.map {
                    IMAPSession.FlagUpdate(messageUID: $0.uid, flags: $0.flags, modSeq: $0.modSeq)
                }
            }
        }
        return selected
    }

    func search(_ criteria: SearchCriteria, in name: String) throws -> [UInt32] {
        try check(.search, mailbox: name, detail: "\(criteria)")
        let box = try mailbox(name)
        return box.messages.enumerated().filter { Self.matches(criteria, $0.element, sequence: UInt32($0.offset + 1)) }.map(\.element.uid)
    }

    /// The messages a UID FETCH answers with, and after how many of them the connection drops.
    func fetch(_ uids: UIDSet, items: [FetchItem], changedSince: UInt64?, in name: String) throws -> (messages: [FetchedMessage], dropAfter: Int?) {
        try check(.fetch, mailbox: name, detail: "\(uids) \(items)\(changedSince.map { " CHANGEDSINCE \($0)" } ?? "")")
        var dropAfter: Int?
        if case .dropMidFetch(let count)? = takeFault({ if case .dropMidFetch = $0 { true } else { false } }) {
            dropAfter = count
        }
        let box = try mailbox(name)
        let condstore = capabilities.contains("CONDSTORE") || capabilities.contains("QRESYNC")
        let messages = box.messages.enumerated().filter { entry in
            uids.contains(entry.element.uid) && (changedSince.map { entry.element.modSeq > $0 } ?? true)
        }
        .map { offset, stored in
            var attributes: [FetchAttribute] = [.uid(stored.uid)]
            for item in items {
                switch item {
                case .flags: attributes.append(.flags(stored.flags))
                case .internalDate: attributes.append(.internalDate(stored.message.internalDate))
                case .size: attributes.append(.rfc822Size(UInt64(stored.message.raw.count)))
                case .header: attributes.append(.bodySection(section: "HEADER", origin: nil, data: stored.message.header))
                case .bodyStructure: attributes.append(.bodyStructure(stored.message.structure))
                case .modSeq: if condstore { attributes.append(.modSeq(stored.modSeq)) }
                case .section(let section, let partial):
                    let bytes = stored.message.sections[section.uppercased()] ?? stored.message.sections[section]
                    let data = bytes.map { bytes -> [UInt8] in
                        guard let partial else { return bytes }
                        let low = min(Int(clamping: partial.lowerBound), bytes.count)
                        let high = min(Int(clamping: partial.upperBound), bytes.count)
                        return Array(bytes[low..<high])
                    }
                    attributes.append(.bodySection(section: section, origin: partial?.lowerBound, data: data))
                default: break
                }
            }
            if changedSince != nil, condstore, !items.contains(.modSeq) { attributes.append(.modSeq(stored.modSeq)) }
            return FetchedMessage(sequence: UInt32(offset + 1), attributes: attributes)
        }
        return (messages, dropAfter)
    }

    func store(_ uids: UIDSet, _ mode: StoreMode, flags: [String], silent: Bool, in name: String) throws -> [FetchedMessage] {
        try check(.store, mailbox: name, detail: "\(uids) \(mode.rawValue) \(flags)")
        var box = try mailbox(name)
        var updated: [FetchedMessage] = []
        for index in box.messages.indices where uids.contains(box.messages[index].uid) {
            var current = box.messages[index].flags
            switch mode {
            case .add: for flag in flags where !current.contains(flag) { current.append(flag) }
            case .remove: current.removeAll { flags.contains($0) }
            case .replace: current = flags
            }
            guard current != box.messages[index].flags else { continue }
            box.highestModSeq += 1
            box.messages[index].flags = current
            box.messages[index].modSeq = box.highestModSeq
            if !silent {
                updated.append(FetchedMessage(sequence: UInt32(index + 1), attributes: [.uid(box.messages[index].uid), .flags(current)]))
            }
        }
        mailboxes[name] = box
        return updated
    }

    func expunge(_ uids: UIDSet, in name: String) throws -> [UInt32] {
        try check(.expunge, mailbox: name, detail: "\(uids)")
        guard capabilities.contains("UIDPLUS") else { throw IMAPError.server(status: .bad, text: "UID EXPUNGE needs UIDPLUS") }
        let deleted = try mailbox(name).messages.filter { uids.contains($0.uid) && $0.flags.contains("\\Deleted") }.map(\.uid)
        let gone = removeMessages(deleted, from: name)
        if !gone.isEmpty { notify(name, .vanished(UIDSet(uids: gone))) }
        return gone
    }

    func append(_ raw: [UInt8], flags: [String], date: Date?, to name: String) throws -> UIDMapping? {
        try check(.append, mailbox: name, detail: "\(raw.count) bytes \(flags)")
        let box = try mailbox(name)
        let uid = insert(Self.parsed(raw, date: date ?? Date()), flags: flags, into: name)
        notify(name, .exists(count: UInt32(mailboxes[name]!.messages.count)))
        return capabilities.contains("UIDPLUS") ? UIDMapping(.appendUID(uidValidity: box.uidValidity, uids: UIDSet(uids: [uid]))) : nil
    }

    func copy(_ uids: UIDSet, from source: String, to destination: String, moving: Bool) throws -> UIDMapping? {
        try check(moving ? .move : .copy, mailbox: source, detail: "\(uids) \(destination)")
        let from = try mailbox(source)
        let to = try mailbox(destination)
        let copied = from.messages.filter { uids.contains($0.uid) }
        guard !copied.isEmpty else { return nil }
        let new = copied.map { insert($0.message, flags: $0.flags, into: destination) }
        notify(destination, .exists(count: UInt32(mailboxes[destination]!.messages.count)))
        if moving {
            let gone = removeMessages(copied.map(\.uid), from: source)
            notify(source, .vanished(UIDSet(uids: gone)))
        }
        guard capabilities.contains("UIDPLUS") else { return nil }
        return UIDMapping(.copyUID(uidValidity: to.uidValidity, source: UIDSet(uids: copied.map(\.uid)), destination: UIDSet(uids: new)))
    }

    func create(_ name: String) throws {
        try check(.create, mailbox: name, detail: "")
        guard mailboxes[name] == nil else { throw IMAPError.server(status: .no, text: "Mailbox already exists") }
        addMailbox(name)
    }

    func rename(_ name: String, to newName: String) throws {
        try check(.rename, mailbox: name, detail: newName)
        guard var box = mailboxes[name] else { throw IMAPError.server(status: .no, text: "Mailbox doesn't exist") }
        guard mailboxes[newName] == nil else { throw IMAPError.server(status: .no, text: "Mailbox already exists") }
        mailboxes[name] = nil
        box.name = newName
        mailboxes[newName] = box
    }

    func delete(_ name: String) throws {
        try check(.delete, mailbox: name, detail: "")
        guard mailboxes.removeValue(forKey: name) != nil else { throw IMAPError.server(status: .no, text: "Mailbox doesn't exist") }
    }

    func list() throws -> [MailboxListing] {
        try check(.list, mailbox: nil, detail: "")
        return mailboxes.values.sorted { $0.name < $1.name }.map {
            MailboxListing(attributes: $0.attributes, delimiter: "/", name: $0.name, rawName: $0.name)
        }
    }

    func status(of names: [String], items: [String]) throws -> [String: [String: UInt64]] {
        try check(.status, mailbox: nil, detail: "\(names) \(items)")
        var answer: [String: [String: UInt64]] = [:]
        for name in names {
            guard let box = mailboxes[name] else { continue }
            var values: [String: UInt64] = [:]
            for item in items {
                switch item.uppercased() {
                case "MESSAGES": values[item] = UInt64(box.messages.count)
                case "UIDNEXT": values[item] = UInt64(box.uidNext)
                case "UIDVALIDITY": values[item] = UInt64(box.uidValidity)
                case "UNSEEN": values[item] = UInt64(box.messages.count { !$0.flags.contains("\\Seen") })
                case "HIGHESTMODSEQ": if capabilities.contains("CONDSTORE") || capabilities.contains("QRESYNC") { values[item] = box.highestModSeq }
                default: break
                }
            }
            answer[name] = values
        }
        return answer
    }

    func mailboxIds(of names: [String]) -> [String: String] {
        guard capabilities.contains("OBJECTID") else { return [:] }
        return Dictionary(uniqueKeysWithValues: names.compactMap { name in mailboxes[name].map { (name, $0.mailboxId) } })
    }

    /// IDLE: the mailbox's events for this connection until it ends or drops.
    func watch(_ name: String, connection: Int) throws -> AsyncThrowingStream<MailboxEvent, any Error> {
        try check(.idle, mailbox: name, detail: "")
        _ = try mailbox(name)
        let (stream, continuation) = AsyncThrowingStream<MailboxEvent, any Error>.makeStream()
        watchers[name, default: [:]][connection] = continuation
        return stream
    }

    func unwatch(_ name: String, connection: Int) {
        watchers[name]?[connection]?.finish()
        watchers[name]?[connection] = nil
    }

    // MARK: - Inside

    private func record(_ command: Command, _ mailbox: String?, _ detail: String) {
        log.append(LoggedCommand(command: command, mailbox: mailbox, detail: detail))
    }

    private func insert(_ message: InMemoryMessage, flags: [String], into name: String) -> UInt32 {
        if mailboxes[name] == nil { addMailbox(name) }
        var box = mailboxes[name]!
        let uid = box.uidNext
        box.uidNext += 1
        box.highestModSeq += 1
        box.messages.append(StoredMessage(uid: uid, modSeq: box.highestModSeq, message: message, flags: flags))
        mailboxes[name] = box
        return uid
    }

    private func removeMessages(_ uids: [UInt32], from name: String) -> [UInt32] {
        guard var box = mailboxes[name] else { return [] }
        let wanted = Set(uids)
        let gone = box.messages.filter { wanted.contains($0.uid) }.map(\.uid)
        guard !gone.isEmpty else { return [] }
        box.highestModSeq += 1
        let modSeq = box.highestModSeq
        box.messages.removeAll { wanted.contains($0.uid) }
        box.expunged += gone.map { (uid: $0, modSeq: modSeq) }
        mailboxes[name] = box
        return gone
    }

    private func notify(_ mailbox: String, _ event: MailboxEvent) {
        for continuation in watchers[mailbox, default: [:]].values { continuation.yield(event) }
    }

    static func matches(_ criteria: SearchCriteria, _ stored: StoredMessage, sequence: UInt32) -> Bool {
        switch criteria {
        case .all: true
        case .since(let date): day(stored.message.internalDate) >= day(date)
        case .before(let date): day(stored.message.internalDate) < day(date)
        case .uids(let set): set.contains(stored.uid) || (set.ranges.last?.upperBound == .max && stored.uid >= (set.ranges.last?.lowerBound ?? 0))
        case .sequences(let range): range.contains(sequence)
        case .unseen: !stored.flags.contains("\\Seen")
        case .flagged: stored.flags.contains("\\Flagged")
        case .deleted: stored.flags.contains("\\Deleted")
        case .header(let name, let value):
            String(decoding: stored.message.header, as: UTF8.self).split(separator: "\r\n").contains { line in
                line.lowercased().hasPrefix(name.lowercased() + ":") && line.lowercased().contains(value.lowercased())
            }
        case .and(let parts): parts.allSatisfy { matches($0, stored, sequence: sequence) }
        case .any(let parts): parts.contains { matches($0, stored, sequence: sequence) }
        }
    }

    /// IMAP compares dates without time or zone (RFC 9051 section 6.4.4): the UTC day.
    static func day(_ date: Date) -> Int { Int((date.timeIntervalSince1970 / 86_400).rounded(.down)) }

    /// An appended message as the server stores it: its header and body split at the blank line, one text part.
    static func parsed(_ raw: [UInt8], date: Date) -> InMemoryMessage {
        var split = raw.count
        if raw.count >= 4 {
            for index in 0...(raw.count - 4) where raw[index] == 13 && raw[index + 1] == 10 && raw[index + 2] == 13 && raw[index + 3] == 10 {
                split = index + 4
                break
            }
        }
        let header = Array(raw[..<split])
        let body = Array(raw[split...])
        return InMemoryMessage(
            header: header, sections: ["": raw, "TEXT": body, "1": body],
            structure: MIMEPart(partId: "1", contentType: "text/plain", sizeBytes: body.count), internalDate: date)
    }
}
