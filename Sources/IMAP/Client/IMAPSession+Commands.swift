import Foundation
import MailTransport

/// The commands Tern uses (RFC 9051 section 6, RFC 4315 UIDPLUS, RFC 6851 MOVE, RFC 7162
/// CONDSTORE/QRESYNC, RFC 2971 ID, RFC 5161 ENABLE, RFC 2342 NAMESPACE, RFC 4978 COMPRESS, RFC 8474 OBJECTID).
extension IMAPSession {
    public func refreshCapabilities() async throws {
        let result = try await execute("CAPABILITY")
        for case .capability(let list) in result.untagged { capabilities = Set(list.map { $0.uppercased() }) }
    }

    public func noop() async throws {
        try await execute("NOOP")
    }

    /// RFC 2971. Tern sends only its name: a privacy-first client does not describe its host.
    public func id(_ fields: [String: String] = ["name": "Tern"]) async throws -> [String: String] {
        guard hasCapability("ID") else { return [:] }
        let list = try fields.sorted { $0.key < $1.key }.map { "\(try Self.astring($0.key)) \(try Self.astring($0.value))" }
        let result = try await execute("ID (\(list.joined(separator: " ")))")
        for case .id(let serverFields) in result.untagged { return serverFields }
        return [:]
    }

    /// LOGIN, or AUTHENTICATE PLAIN with SASL-IR when the server prefers it or disables LOGIN.
    public func login(username: String, password: String) async throws {
        let state: ResponseState
        if hasCapability("AUTH=PLAIN") && (hasCapability("LOGINDISABLED") || hasCapability("SASL-IR")) {
            let token = Data(("\u{0}" + username + "\u{0}" + password).utf8).base64EncodedString()
            let parts: [CommandPart] =
                hasCapability("SASL-IR")
                ? [.text("AUTHENTICATE PLAIN \(token)")] : [.text("AUTHENTICATE PLAIN"), .afterContinuation(token)]
            state = try await run(parts) { _ in }
        } else if username.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) && password.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            state = try await run([.text("LOGIN \(try Self.astring(username)) \(try Self.astring(password))")]) { _ in }
        } else {
            state = try await run([.text("LOGIN "), .literal(Array(username.utf8)), .text(" "), .literal(Array(password.utf8))]) { _ in }
        }
        try await afterAuthentication(state)
    }

    /// AUTHENTICATE XOAUTH2 (Google's SASL mechanism, also Dovecot's `oauth2` passdb).
    public func authenticateXOAUTH2(username: String, accessToken: String) async throws {
        let token = XOAUTH2.initialResponse(username: username, accessToken: accessToken)
        let state: ResponseState
        if hasCapability("SASL-IR") {
            state = try await run([.text("AUTHENTICATE XOAUTH2 \(token)")]) { _ in }
        } else {
            state = try await run([.text("AUTHENTICATE XOAUTH2"), .afterContinuation(token)]) { _ in }
        }
        try await afterAuthentication(state)
    }

    private func afterAuthentication(_ state: ResponseState) async throws {
        // Capabilities change after login; `collect` took them from the OK's [CAPABILITY …] when sent.
        if case .capability? = state.code {} else { try await refreshCapabilities() }
    }

    /// RFC 5161: turns on the extensions the server offers among `extensions`; returns those enabled.
    @discardableResult
    public func enable(_ extensions: [String]) async throws -> Set<String> {
        let offered = extensions.filter { hasCapability($0) }
        guard hasCapability("ENABLE"), !offered.isEmpty else { return [] }
        let result = try await execute("ENABLE \(offered.joined(separator: " "))")
        for case .enabled(let list) in result.untagged { enabled.formUnion(list.map { $0.uppercased() }) }
        return enabled
    }

    /// FR-SYNC-01 step 1: every mailbox with its attributes (RFC 6154 special use when offered).
    public func listMailboxes() async throws -> [MailboxListing] {
        let command = hasCapability("SPECIAL-USE") ? "LIST \"\" \"*\" RETURN (SPECIAL-USE)" : "LIST \"\" \"*\""
        let result = try await execute(command)
        return result.untagged.compactMap { if case .list(let listing) = $0 { listing } else { nil } }
    }

    /// RFC 4978: from the server's OK on, both directions are raw deflate inside TLS. Nothing when
    /// the server does not offer it or compression is already on; a refusal (`[COMPRESSIONACTIVE]`,
    /// or a server that changed its mind) leaves the connection as it was.
    public func compress() async throws {
        guard hasCapability("COMPRESS=DEFLATE"), !isCompressed else { return }
        do {
            try await execute("COMPRESS DEFLATE")
        } catch IMAPError.server {
            return
        }
        do {
            try await COMPRESS.addDeflate(to: channel, framer: IMAPStreamFramer.self, messagesRead: messagesRead, counters: compressionCounters)
        } catch {
            isBroken = true
            throw IMAPClient.classify(error, server: server)
        }
        isCompressed = true
    }

    /// RFC 2342 NAMESPACE, or nil from a server without it (its folders live at the top level).
    public func namespaces() async throws -> Namespaces? {
        guard hasCapability("NAMESPACE") else { return nil }
        let result = try await execute("NAMESPACE")
        for case .namespace(let namespaces) in result.untagged { return namespaces }
        return nil
    }

    /// CREATE; `[ALREADYEXISTS]` is not an error for Tern.
    public func create(_ mailbox: MailboxPath) async throws {
        do {
            try await execute("CREATE \(try Self.mailboxArgument(mailbox))")
        } catch IMAPError.server(.no, let text) where text.localizedCaseInsensitiveContains("exists") {
            return
        }
    }

    public func delete(_ mailbox: MailboxPath) async throws {
        try await execute("DELETE \(try Self.mailboxArgument(mailbox))")
    }

    /// RFC 9051 section 6.3.6: the mailboxes below it are renamed with it.
    public func rename(_ mailbox: MailboxPath, to newName: MailboxPath) async throws {
        try await execute("RENAME \(try Self.mailboxArgument(mailbox)) \(try Self.mailboxArgument(newName))")
    }

    public func listSubscribed() async throws -> [MailboxListing] {
        let result = try await execute("LSUB \"\" \"*\"")
        return result.untagged.compactMap { if case .lsub(let listing) = $0 { listing } else { nil } }
    }

    /// STATUS of several mailboxes, pipelined in one round trip.
    public func status(of mailboxes: [MailboxPath], items: [String] = ["MESSAGES", "UIDNEXT", "UIDVALIDITY", "UNSEEN"])
        async throws -> [String: [String: UInt64]]
    {
        let wanted = items + (hasCapability("CONDSTORE") && !items.contains("HIGHESTMODSEQ") ? ["HIGHESTMODSEQ"] : [])
        let commands = try mailboxes.map { "STATUS \(try Self.mailboxArgument($0)) (\(wanted.joined(separator: " ")))" }
        let result = try await pipeline(commands)
        var statuses: [String: [String: UInt64]] = [:]
        for case .status(let mailbox, let attributes, _) in result.untagged { statuses[MailboxName.decode(mailbox)] = attributes }
        return statuses
    }

    /// RFC 8474: each mailbox's MAILBOXID (pipelined STATUS), by decoded name; empty without OBJECTID.
    public func mailboxIds(of mailboxes: [MailboxPath]) async throws -> [String: String] {
        guard hasCapability("OBJECTID"), !mailboxes.isEmpty else { return [:] }
        let result = try await pipeline(try mailboxes.map { "STATUS \(try Self.mailboxArgument($0)) (MAILBOXID)" })
        var ids: [String: String] = [:]
        for case .status(let mailbox, _, let id?) in result.untagged { ids[MailboxName.decode(mailbox)] = id }
        return ids
    }

    /// SELECT (or EXAMINE). With CONDSTORE the server reports HIGHESTMODSEQ; with QRESYNC enabled and a
    /// known state, it also reports what vanished and changed since (RFC 7162 section 3.2.5).
    @discardableResult
    public func select(_ mailbox: MailboxPath, readOnly: Bool = false, qresync: (uidValidity: UInt32, modSeq: UInt64)? = nil)
        async throws -> SelectedMailbox
    {
        var parameters = ""
        if let qresync, enabled.contains("QRESYNC") {
            parameters = " (QRESYNC (\(qresync.uidValidity) \(qresync.modSeq)))"
        } else if hasCapability("CONDSTORE") {
            parameters = " (CONDSTORE)"
        }
        // Events of the previous mailbox must not be attributed to this one.
        selected = nil
        sequenceMap = SequenceMap()
        var mailboxState = SelectedMailbox(name: mailbox.name, exists: 0, readOnly: readOnly)
        var codes: [ResponseCode] = []
        let state = try await run([.text("\(readOnly ? "EXAMINE" : "SELECT") \(try Self.mailboxArgument(mailbox))\(parameters)")]) { response in
            switch response {
            case .exists(let count): mailboxState.exists = count
            case .state(let state): if let code = state.code { codes.append(code) }
            case .vanished(_, let uids): mailboxState.vanished.formUnion(uids)
            case .fetch(_, let attributes):
                var update = FlagUpdate(uid: 0, flags: [], modSeq: nil)
                var hasFlags = false
                for attribute in attributes {
                    switch attribute {
                    case .uid(let uid): update.uid = uid
                    case .flags(let flags):
                        update.flags = flags
                        hasFlags = true
                    case .modSeq(let modSeq): update.modSeq = modSeq
                    default: break
                    }
                }
                if update.uid != 0, hasFlags { mailboxState.changed.append(update) }
            default: break
            }
        }
        if let code = state.code { codes.append(code) }
        for code in codes {
            switch code {
            case .uidValidity(let value): mailboxState.uidValidity = value
            case .uidNext(let value): mailboxState.uidNext = value
            case .highestModSeq(let value): mailboxState.highestModSeq = value
            case .readOnly: mailboxState.readOnly = true
            case .readWrite: mailboxState.readOnly = false
            default: break
            }
        }
        if let qresync, enabled.contains("QRESYNC") { mailboxState.resynchronized = mailboxState.uidValidity == qresync.uidValidity }
        sequenceMap.reset(count: mailboxState.exists)
        selected = mailboxState
        return mailboxState
    }

    /// Learns the UID of every message in the selected mailbox, so EXPUNGE (sequence numbers) can be
    /// told as UIDs. One `UID SEARCH ALL`; the answer is in ascending order, as sequence numbers are.
    public func loadSequenceMap() async throws {
        let uids = try await uidSearch(.all).sorted()
        sequenceMap.reset(count: UInt32(uids.count))
        for (index, uid) in uids.enumerated() { sequenceMap.set(uid: uid, at: UInt32(index + 1)) }
    }

    /// With ESEARCH (RFC 4731) the answer comes as ranges, `RETURN (ALL)`: a 20-year folder's UIDs are a
    /// few bytes instead of one line of megabytes (issue 38). They are expanded here only as far as the
    /// mailbox can hold: more UIDs than it has messages (with room for mail arriving meanwhile) is a
    /// broken or hostile server, refused before anything is allocated (issue 21).
    public func uidSearch(_ criteria: SearchCriteria) async throws -> [UInt32] {
        var ids: [UInt32] = []
        var ranges = UIDSet()
        let extended = hasCapability("ESEARCH")
        let command = extended ? "UID SEARCH RETURN (ALL) " : "UID SEARCH "
        _ = try await run([.text(command + (try criteria.wireText()))]) { response in
            switch response {
            case .search(let found, _): ids += found
            case .extendedSearch(let result) where result.uid: result.all.map { ranges.formUnion($0) }
            default: break
            }
        }
        guard !ranges.ranges.isEmpty else { return ids }
        let limit = Int(selected?.exists ?? 0) + Self.searchResultSlack
        guard ranges.count <= limit else {
            throw IMAPError.protocolViolation(
                .malformed(reason: "ESEARCH named \(ranges.count) UIDs in a mailbox of \(selected?.exists ?? 0) messages", bytes: []))
        }
        return ids + ranges.uids
    }

    /// Messages that may arrive between the last EXISTS and a search's answer.
    static let searchResultSlack = 100_000

    /// UID FETCH, streamed: `each` sees every message as it arrives, so a mailbox is never held in
    /// memory. A message whose response does not parse is fetched again alone; when that fails too
    /// it is quarantined: logged with its bytes and returned, and the fetch goes on.
    /// `changedSince` adds CONDSTORE's CHANGEDSINCE (flags changed after that mod-sequence).
    @discardableResult
    public func uidFetch(
        _ uids: UIDSet, items: [FetchItem], changedSince: UInt64? = nil,
        each: (FetchedMessage) throws -> Void
    ) async throws -> [QuarantinedResponse] {
        var failures: [QuarantinedResponse] = []
        try await fetchOnce(uids, items: items, changedSince: changedSince, each: each) { failures.append($0) }
        var quarantined: [QuarantinedResponse] = []
        for failure in failures {
            guard let uid = failure.uid else {
                quarantine(failure)
                quarantined.append(failure)
                continue
            }
            var again: QuarantinedResponse?
            try await fetchOnce(UIDSet(uids: [uid]), items: items, changedSince: changedSince, each: each) { again = $0 }
            if let again {
                quarantine(again)
                quarantined.append(again)
            }
        }
        return quarantined
    }

    private func fetchOnce(
        _ uids: UIDSet, items: [FetchItem], changedSince: UInt64?, each: (FetchedMessage) throws -> Void,
        failed: @escaping (QuarantinedResponse) -> Void
    ) async throws {
        guard !uids.isEmpty else { return }
        var wanted = [FetchItem.uid] + items.filter { $0 != .uid }
        if changedSince != nil, !wanted.contains(.modSeq) { wanted.append(.modSeq) }
        var command = "UID FETCH \(uids) (\(wanted.map(\.wireText).joined(separator: " ")))"
        if let changedSince { command += " (CHANGEDSINCE \(changedSince))" }
        fetchInProgress = true
        defer { fetchInProgress = false }
        // A consumer error must not leave the connection mid-response: drain, then rethrow.
        var consumerError: (any Error)?
        _ = try await run([.text(command)], onUnparseable: failed) { [self] response in
            guard case .fetch(let sequence, let attributes) = response else { return }
            let message = FetchedMessage(sequence: sequence, attributes: attributes)
            guard message.uid != nil else {
                // Without UID it is not an answer to UID FETCH: an unsolicited flag change.
                if let flags = message.flags, let mailbox = selected?.name {
                    eventSink?(mailbox, .flagsChanged(sequence: sequence, uid: sequenceMap.uid(at: sequence), flags: flags, modSeq: message.modSeq))
                }
                return
            }
            guard consumerError == nil else { return }
            do { try each(message) } catch { consumerError = error }
        }
        if let consumerError { throw consumerError }
    }

    private func quarantine(_ response: QuarantinedResponse) {
        logger.error(
            "quarantined a message whose FETCH response does not parse",
            metadata: [
                "mailbox": "\(selected?.name ?? "")", "uid": "\(response.uid.map(String.init) ?? "?")", "reason": "\(response.reason)",
                "bytes": "\(String(decoding: response.bytes.prefix(64 * 1024), as: UTF8.self))"
            ])
    }

    /// UID STORE ±FLAGS / FLAGS; `.SILENT` unless the new flags are wanted back.
    /// `unchangedSince` (CONDSTORE) makes the change conditional; refused UIDs are returned.
    @discardableResult
    public func uidStore(_ uids: UIDSet, _ mode: StoreMode, flags: [String], silent: Bool = true, unchangedSince: UInt64? = nil)
        async throws -> (updated: [FetchedMessage], modified: UIDSet)
    {
        var command = "UID STORE \(uids)"
        if let unchangedSince { command += " (UNCHANGEDSINCE \(unchangedSince))" }
        command += " \(mode.rawValue)\(silent ? ".SILENT" : "") (\(flags.joined(separator: " ")))"
        var updated: [FetchedMessage] = []
        fetchInProgress = !silent
        defer { fetchInProgress = false }
        let state = try await run([.text(command)]) { response in
            if case .fetch(let sequence, let attributes) = response, !silent {
                updated.append(FetchedMessage(sequence: sequence, attributes: attributes))
            }
        }
        if case .other(let name, let text)? = state.code, name == "MODIFIED", let text, let set = UIDSet(parsing: text) {
            return (updated, set)
        }
        return (updated, UIDSet())
    }

    /// UID COPY; with UIDPLUS the answer maps source UIDs to the destination's.
    @discardableResult
    public func uidCopy(_ uids: UIDSet, to mailbox: MailboxPath) async throws -> UIDMapping? {
        let state = try await run([.text("UID COPY \(uids) \(try Self.mailboxArgument(mailbox))")]) { _ in }
        return UIDMapping(state.code)
    }

    /// UID MOVE (RFC 6851): the COPYUID arrives in an untagged OK before the EXPUNGEs.
    @discardableResult
    public func uidMove(_ uids: UIDSet, to mailbox: MailboxPath) async throws -> UIDMapping? {
        guard hasCapability("MOVE") else { throw IMAPError.unsupported("MOVE") }
        var mapping: UIDMapping?
        let state = try await run([.text("UID MOVE \(uids) \(try Self.mailboxArgument(mailbox))")]) { response in
            if case .state(let state) = response, let found = UIDMapping(state.code) { mapping = found }
        }
        return mapping ?? UIDMapping(state.code)
    }

    /// UID EXPUNGE (UIDPLUS): removes only these `\Deleted` messages, never another client's.
    /// Returns the UIDs the server reported gone.
    /// A VANISHED answer counts only for UIDs asked for: a server's `1:4294967294` is never expanded.
    @discardableResult
    public func uidExpunge(_ uids: UIDSet) async throws -> [UInt32] {
        guard hasCapability("UIDPLUS") else { throw IMAPError.unsupported("UIDPLUS") }
        return try await expungeCollecting("UID EXPUNGE \(uids)") { vanished, _ in vanished.intersection(uids).uids }
    }

    /// EXPUNGE: every `\Deleted` message of the mailbox. A VANISHED answer (QRESYNC) counts for the
    /// UIDs the sequence map knows.
    @discardableResult
    public func expunge() async throws -> [UInt32] {
        try await expungeCollecting("EXPUNGE") { vanished, known in known.known(among: vanished) }
    }

    private func expungeCollecting(_ command: String, vanishedUIDs: (UIDSet, SequenceMap) -> [UInt32]) async throws -> [UInt32] {
        var gone: [UInt32] = []
        var before = sequenceMap
        _ = try await run([.text(command)]) { response in
            switch response {
            case .expunge(let sequence): if let uid = before.remove(at: sequence) { gone.append(uid) }
            case .vanished(_, let uids): gone += vanishedUIDs(uids, before)
            default: break
            }
        }
        return gone
    }

    /// APPEND with flags and date; with UIDPLUS returns the new message's UID.
    @discardableResult
    public func append(to mailbox: MailboxPath, message: [UInt8], flags: [String] = [], date: Date? = nil) async throws -> UIDMapping? {
        var head = "APPEND \(try Self.mailboxArgument(mailbox))"
        if !flags.isEmpty { head += " (\(flags.joined(separator: " ")))" }
        if let date { head += " \"\(Self.internalDateText(date))\"" }
        let state = try await run([.text(head + " "), .literal(message)]) { _ in }
        return UIDMapping(state.code)
    }

    public func logout() async throws {
        _ = try? await execute("LOGOUT")
    }

    /// CLOSE (expunges) or UNSELECT (does not): leaves the selected state.
    public func unselect() async throws {
        try await execute(hasCapability("UNSELECT") ? "UNSELECT" : "CLOSE")
        selected = nil
        sequenceMap = SequenceMap()
    }

    /// `date-time` of RFC 9051: `"21-Nov-2026 14:05:09 +0000"`.
    static func internalDateText(_ date: Date) -> String {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(two(c.day))-\(months[c.month! - 1])-\(c.year!) \(two(c.hour)):\(two(c.minute)):\(two(c.second)) +0000"
    }
}

/// The XOAUTH2 SASL initial response: `user=…^Aauth=Bearer …^A^A`, base64.
public enum XOAUTH2 {
    public static func initialResponse(username: String, accessToken: String) -> String {
        Data("user=\(username)\u{1}auth=Bearer \(accessToken)\u{1}\u{1}".utf8).base64EncodedString()
    }
}
