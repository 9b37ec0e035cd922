import Foundation
import IMAP
import TernCore

/// `ServerMailActions` on one IMAP connection (FR-SYNC-10, FR-SYNC-07): operations grouped by
/// mailbox, so a thread archived from the Inbox is one `UID MOVE`, a hundred messages marked read
/// one `UID STORE`.
///
/// Archive and delete use `UID MOVE` (RFC 6851) when offered: atomic, and no window in which the
/// message is in both mailboxes or flagged `\Deleted` where another client might expunge it. Without
/// MOVE: `UID COPY`, `UID STORE +FLAGS.SILENT (\Deleted)`, `UID EXPUNGE` of exactly those UIDs
/// (RFC 4315), as FR-SYNC-10 describes.
public struct IMAPMailActions: Sendable {
    let server: IMAPServer
    let credentials: IMAPCredentialSource

    public init(server: IMAPServer, credentials: IMAPCredentialSource) {
        self.server = server
        self.credentials = credentials
    }

    public func perform(_ operations: [ServerOperation]) async throws -> [Int64: ServerOperationOutcome] {
        try await IMAPClient.withSession(to: server) { session in
            try await session.authenticate(with: credentials)
            var outcomes: [Int64: ServerOperationOutcome] = [:]
            var batches = Self.batches(operations)
            if batches.contains(where: \.needsSentMailbox) {
                // Never synced: the server's \Sent, looked up once for the pass.
                let sent = try await Self.sentMailbox(session)
                batches = batches.map { $0.withSentMailbox(sent) }
            }
            var absentFromSent: Set<String>?
            for batch in batches {
                do {
                    if case .fileSentCopy(_, _, let sent?, _) = batch, absentFromSent == nil {
                        absentFromSent = try await Self.absent(from: sent, among: batches, session: session)
                    }
                    try await perform(batch, session: session, absentFromSent: absentFromSent ?? [], outcomes: &outcomes)
                } catch let error as IMAPError {
                    guard case .server(_, let text) = error else {
                        // The connection is gone: what is left waits for the next attempt.
                        for operation in operations where outcomes[operation.id] == nil { outcomes[operation.id] = .deferred(error.description) }
                        return outcomes
                    }
                    for id in batch.ids where outcomes[id] == nil { outcomes[id] = .refused(text) }
                }
            }
            try? await session.logout()
            return outcomes
        }
    }

    public func mailbox(_ mailbox: String?, containsMessageId messageId: String) async throws -> Bool {
        try await IMAPClient.withSession(to: server) { session in
            try await session.authenticate(with: credentials)
            var mailbox = mailbox
            if mailbox == nil { mailbox = try await Self.sentMailbox(session) }
            guard let mailbox else { return false }
            try await session.select(mailbox, readOnly: true)
            let found = try await session.uidSearch(.header(name: "Message-ID", value: messageId))
            try? await session.logout()
            return !found.isEmpty
        }
    }

    /// Operations that one command (or one short sequence) carries out together.
    enum Batch {
        case store(mailbox: String, flag: String, add: Bool, uids: [(id: Int64, uid: Int64)])
        case move(mailbox: String, to: String, createTarget: Bool, uids: [(id: Int64, uid: Int64)])
        case expunge(mailbox: String, uids: [(id: Int64, uid: Int64)])
        case fileSentCopy(id: Int64, message: OutgoingSubmission, sentMailbox: String?, confirmOnly: Bool)

        var ids: [Int64] {
            switch self {
            case .store(_, _, _, let uids), .move(_, _, _, let uids), .expunge(_, let uids): uids.map(\.id)
            case .fileSentCopy(let id, _, _, _): [id]
            }
        }

        var needsSentMailbox: Bool {
            if case .fileSentCopy(_, _, nil, _) = self { true } else { false }
        }

        func withSentMailbox(_ sent: String?) -> Batch {
            guard case .fileSentCopy(let id, let message, nil, let confirmOnly) = self else { return self }
            return .fileSentCopy(id: id, message: message, sentMailbox: sent, confirmOnly: confirmOnly)
        }

        /// Changes come before Sent copies; batches of one mailbox follow each other (one SELECT).
        var order: (Int, String) {
            switch self {
            case .store(let mailbox, _, _, _), .move(let mailbox, _, _, _), .expunge(let mailbox, _): (0, mailbox)
            case .fileSentCopy(_, _, let sent, _): (1, sent ?? "")
            }
        }
    }

    static func batches(_ operations: [ServerOperation]) -> [Batch] {
        var stores: [String: [(Int64, Int64)]] = [:]
        var moves: [String: [(Int64, Int64)]] = [:]
        var expunges: [String: [(Int64, Int64)]] = [:]
        var keys: [String: (mailbox: String, flag: String, add: Bool, target: String, create: Bool)] = [:]
        var batches: [Batch] = []
        for operation in operations {
            switch operation.action {
            case .store(let flag, let add, let mailbox, let uid):
                let key = "\(mailbox)\u{0}\(flag)\u{0}\(add)"
                keys[key] = (mailbox, flag, add, "", false)
                stores[key, default: []].append((operation.id, uid))
            case .move(let mailbox, let uid, let target, let create):
                let key = "\(mailbox)\u{0}\(target)"
                keys[key] = (mailbox, "", false, target, create)
                moves[key, default: []].append((operation.id, uid))
            case .expunge(let mailbox, let uid):
                expunges[mailbox, default: []].append((operation.id, uid))
            case .fileSentCopy(let message, let sent, let confirmOnly):
                batches.append(.fileSentCopy(id: operation.id, message: message, sentMailbox: sent, confirmOnly: confirmOnly))
            }
        }
        for (key, uids) in stores { let k = keys[key]!; batches.append(.store(mailbox: k.mailbox, flag: k.flag, add: k.add, uids: uids)) }
        for (key, uids) in moves { let k = keys[key]!; batches.append(.move(mailbox: k.mailbox, to: k.target, createTarget: k.create, uids: uids)) }
        for (mailbox, uids) in expunges { batches.append(.expunge(mailbox: mailbox, uids: uids)) }
        // Flag changes before moves, so a message marked read and then archived arrives read.
        return batches.enumerated().sorted { a, b in
            let (x, y) = (a.element.order, b.element.order)
            if x != y { return x < y }
            return a.offset < b.offset
        }.map(\.element)
    }

    /// The Message-IDs of the pass's Sent copies that Sent certainly lacks, from one search per 50
    /// (a header search reads every message of the mailbox: once per pass, not once per message).
    static func absent(from sent: String, among batches: [Batch], session: IMAPSession) async throws -> Set<String> {
        let ids = batches.compactMap { batch -> String? in
            if case .fileSentCopy(_, let message, sent?, _) = batch, !message.messageId.isEmpty { return message.messageId }
            return nil
        }
        guard ids.count > 1 else { return [] }
        try await session.select(sent, readOnly: true)
        var absent: Set<String> = []
        for start in stride(from: 0, to: ids.count, by: 50) {
            let chunk = Array(ids[start..<min(start + 50, ids.count)])
            let found = try await session.uidSearch(.any(chunk.map { .header(name: "Message-ID", value: $0) }))
            if found.isEmpty { absent.formUnion(chunk) }
        }
        return absent
    }

    func perform(_ batch: Batch, session: IMAPSession, absentFromSent: Set<String> = [],
                 outcomes: inout [Int64: ServerOperationOutcome]) async throws {
        switch batch {
        case .store(let mailbox, let flag, let add, let uids):
            try await ensureSelected(mailbox, session: session)
            try await session.uidStore(Self.set(uids), add ? .add : .remove, flags: [flag])
            for (id, _) in uids { outcomes[id] = .done(newUID: nil) }
        case .move(let mailbox, let target, let createTarget, let uids):
            if createTarget { try? await session.create(target) }
            try await ensureSelected(mailbox, session: session)
            let mapping: UIDMapping?
            if session.hasCapability("MOVE") {
                mapping = try await session.uidMove(Self.set(uids), to: target)
            } else {
                mapping = try await session.uidCopy(Self.set(uids), to: target)
                try await session.uidStore(Self.set(uids), .add, flags: ["\\Deleted"])
                if session.hasCapability("UIDPLUS") { try await session.uidExpunge(Self.set(uids)) }
            }
            let moved = mapping?.destinations(of: uids.map { UInt32($0.uid) }) ?? [:]
            for (id, uid) in uids { outcomes[id] = .done(newUID: moved[UInt32(uid)].map(Int64.init)) }
        case .expunge(let mailbox, let uids):
            guard session.hasCapability("UIDPLUS") else {
                for (id, _) in uids { outcomes[id] = .refused("the server lacks UIDPLUS: Tern cannot delete only these messages for good") }
                return
            }
            try await ensureSelected(mailbox, session: session)
            try await session.uidStore(Self.set(uids), .add, flags: ["\\Deleted"])
            try await session.uidExpunge(Self.set(uids))
            for (id, _) in uids { outcomes[id] = .done(newUID: nil) }
        case .fileSentCopy(let id, let message, let known, let confirmOnly):
            guard let sent = known else {
                outcomes[id] = .refused("the server has no Sent mailbox (\\Sent) to keep a copy in")
                return
            }
            var found: [UInt32] = []
            if !message.messageId.isEmpty, !absentFromSent.contains(message.messageId) {
                if session.selected?.name != sent { try await session.select(sent, readOnly: true) }
                found = try await session.uidSearch(.header(name: "Message-ID", value: message.messageId))
            }
            if let uid = found.last {
                outcomes[id] = .done(newUID: Int64(uid))
            } else if confirmOnly {
                outcomes[id] = .deferred("not in \(sent) yet")
            } else {
                let mapping = try await session.append(to: sent, message: message.raw, flags: ["\\Seen"], date: message.date)
                outcomes[id] = .done(newUID: mapping?.destination.first.map(Int64.init))
            }
        }
    }

    /// RFC 6154: the mailbox marked `\Sent`, for an account whose folders were never synced.
    static func sentMailbox(_ session: IMAPSession) async throws -> String? {
        try await session.listMailboxes().first { $0.folderType == .sent }?.name
    }

    func ensureSelected(_ mailbox: String, session: IMAPSession) async throws {
        if session.selected?.name != mailbox || session.selected?.readOnly != false { try await session.select(mailbox) }
    }

    static func set(_ uids: [(id: Int64, uid: Int64)]) -> UIDSet { UIDSet(uids: uids.map { UInt32($0.uid) }.sorted()) }
}
