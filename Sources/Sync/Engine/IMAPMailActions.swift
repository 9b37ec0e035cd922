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
///
/// A UID is only a message's name under one UIDVALIDITY (RFC 9051 section 2.3.1.1): after each
/// SELECT the mailbox's is compared with the one each operation's UID was read under, and an
/// operation made under another gets `.folderReset` with no command sent for it, so a queued delete
/// never flags or expunges whichever message holds that UID now.
public struct IMAPMailActions: Sendable {
    /// FR-SYNC-09: the account's pool.
    let connections: any SyncConnectionPool

    public init(connections: any SyncConnectionPool) {
        self.connections = connections
    }

    public init(connections: IMAPConnectionPool) {
        self.init(connections: LiveSyncConnectionPool(connections))
    }

    public func perform(_ operations: [ServerOperation]) async throws -> [PendingChangeID: ServerOperationOutcome] {
        try await connections.withConnection { session in
            var outcomes: [PendingChangeID: ServerOperationOutcome] = [:]
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
            return outcomes
        }
    }

    public func mailbox(_ mailbox: String?, containsMessageId messageId: String) async throws -> Bool {
        try await connections.withConnection { session in
            var mailbox = mailbox
            if mailbox == nil { mailbox = try await Self.sentMailbox(session) }
            guard let mailbox else { return false }
            try await session.select(MailboxPath(mailbox), readOnly: true, qresync: nil)
            let found = try await session.uidSearch(.header(name: "Message-ID", value: messageId))
            return !found.isEmpty
        }
    }

    /// One operation's message: its UID and the UIDVALIDITY that UID was read under.
    struct Target {
        let id: PendingChangeID
        let uid: Int64
        let uidValidity: Int64?
    }

    /// Operations that one command (or one short sequence) carries out together.
    enum Batch {
        case store(mailbox: String, flag: String, add: Bool, targets: [Target])
        case move(mailbox: String, to: String, createTarget: Bool, targets: [Target])
        case copy(mailbox: String, to: String, targets: [Target])
        case expunge(mailbox: String, targets: [Target])
        case fileSentCopy(id: PendingChangeID, message: OutgoingSubmission, sentMailbox: String?, confirmOnly: Bool)

        var ids: [PendingChangeID] {
            switch self {
            case .store(_, _, _, let targets), .move(_, _, _, let targets), .copy(_, _, let targets), .expunge(_, let targets):
                targets.map(\.id)
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
            case .store(let mailbox, _, _, _), .move(let mailbox, _, _, _), .copy(let mailbox, _, _), .expunge(let mailbox, _): (0, mailbox)
            case .fileSentCopy(_, _, let sent, _): (1, sent ?? "")
            }
        }
    }

    static func batches(_ operations: [ServerOperation]) -> [Batch] {
        var stores: [String: [Target]] = [:]
        var moves: [String: [Target]] = [:]
        var copies: [String: [Target]] = [:]
        var expunges: [String: [Target]] = [:]
        var keys: [String: (mailbox: String, flag: String, add: Bool, target: String, create: Bool)] = [:]
        var batches: [Batch] = []
        for operation in operations {
            switch operation.action {
            case .store(let flag, let add, let mailbox, let uid):
                let key = "\(mailbox)\u{0}\(flag)\u{0}\(add)"
                keys[key] = (mailbox, flag, add, "", false)
                stores[key, default: []].append(Target(id: operation.id, uid: uid, uidValidity: operation.uidValidity))
            case .move(let mailbox, let uid, let target, let create):
                let key = "\(mailbox)\u{0}\(target)"
                keys[key] = (mailbox, "", false, target, create)
                moves[key, default: []].append(Target(id: operation.id, uid: uid, uidValidity: operation.uidValidity))
            case .copy(let mailbox, let uid, let target):
                let key = "\(mailbox)\u{0}\(target)"
                keys["copy\u{0}" + key] = (mailbox, "", false, target, false)
                copies["copy\u{0}" + key, default: []].append(Target(id: operation.id, uid: uid, uidValidity: operation.uidValidity))
            case .expunge(let mailbox, let uid):
                expunges[mailbox, default: []].append(Target(id: operation.id, uid: uid, uidValidity: operation.uidValidity))
            case .fileSentCopy(let message, let sent, let confirmOnly):
                batches.append(.fileSentCopy(id: operation.id, message: message, sentMailbox: sent, confirmOnly: confirmOnly))
            }
        }
        for (key, targets) in stores {
            let k = keys[key]!
            batches.append(.store(mailbox: k.mailbox, flag: k.flag, add: k.add, targets: targets))
        }
        for (key, targets) in moves {
            let k = keys[key]!
            batches.append(.move(mailbox: k.mailbox, to: k.target, createTarget: k.create, targets: targets))
        }
        for (key, targets) in copies {
            let k = keys[key]!
            batches.append(.copy(mailbox: k.mailbox, to: k.target, targets: targets))
        }
        for (mailbox, targets) in expunges { batches.append(.expunge(mailbox: mailbox, targets: targets)) }
        // Flag changes before moves, so a message marked read and then archived arrives read.
        return batches.enumerated().sorted { a, b in
            let (x, y) = (a.element.order, b.element.order)
            if x != y { return x < y }
            return a.offset < b.offset
        }.map(\.element)
    }

    /// The Message-IDs of the pass's Sent copies that Sent certainly lacks, from one search per 50
    /// (a header search reads every message of the mailbox: once per pass, not once per message).
    static func absent(from sent: String, among batches: [Batch], session: any SyncSession) async throws -> Set<String> {
        let ids = batches.compactMap { batch -> String? in
            if case .fileSentCopy(_, let message, sent?, _) = batch, !message.messageId.isEmpty { return message.messageId }
            return nil
        }
        guard ids.count > 1 else { return [] }
        try await session.select(MailboxPath(sent), readOnly: true, qresync: nil)
        var absent: Set<String> = []
        for start in stride(from: 0, to: ids.count, by: 50) {
            let chunk = Array(ids[start..<min(start + 50, ids.count)])
            let found = try await session.uidSearch(.any(chunk.map { .header(name: "Message-ID", value: $0) }))
            if found.isEmpty { absent.formUnion(chunk) }
        }
        return absent
    }

    func perform(
        _ batch: Batch, session: any SyncSession, absentFromSent: Set<String> = [],
        outcomes: inout [PendingChangeID: ServerOperationOutcome]
    ) async throws {
        switch batch {
        case .store(let mailbox, let flag, let add, let targets):
            let current = try await select(mailbox, for: targets, session: session, outcomes: &outcomes)
            guard !current.isEmpty else { return }
            try await session.uidStore(Self.set(current), add ? .add : .remove, flags: [flag], silent: true, unchangedSince: nil)
            for target in current { outcomes[target.id] = .done(newUID: nil) }
        case .move(let mailbox, let destination, let createTarget, let targets):
            let current = try await select(mailbox, for: targets, session: session, outcomes: &outcomes)
            guard !current.isEmpty else { return }
            // A server without the role's folder gets one at the top of the user's namespace
            // (`INBOX.Trash` on Cyrus, which refuses `Trash`), issue 22.
            var destination = destination
            if createTarget {
                destination = (try? await session.namespaces())??.personalName(destination) ?? destination
                try? await session.create(MailboxPath(destination))
            }
            let mapping: UIDMapping?
            if session.hasCapability("MOVE") {
                mapping = try await session.uidMove(Self.set(current), to: MailboxPath(destination))
            } else {
                mapping = try await session.uidCopy(Self.set(current), to: MailboxPath(destination))
                try await session.uidStore(Self.set(current), .add, flags: ["\\Deleted"], silent: true, unchangedSince: nil)
                if session.hasCapability("UIDPLUS") { try await session.uidExpunge(Self.set(current)) }
            }
            let moved = mapping?.destinations(of: current.map { UInt32($0.uid) }) ?? [:]
            for target in current { outcomes[target.id] = .done(newUID: moved[UInt32(target.uid)].map(Int64.init)) }
        case .copy(let mailbox, let destination, let targets):
            let current = try await select(mailbox, for: targets, session: session, outcomes: &outcomes)
            guard !current.isEmpty else { return }
            let mapping = try await session.uidCopy(Self.set(current), to: MailboxPath(destination))
            let copied = mapping?.destinations(of: current.map { UInt32($0.uid) }) ?? [:]
            for target in current { outcomes[target.id] = .done(newUID: copied[UInt32(target.uid)].map(Int64.init)) }
        case .expunge(let mailbox, let targets):
            guard session.hasCapability("UIDPLUS") else {
                for target in targets { outcomes[target.id] = .refused("the server lacks UIDPLUS: Tern cannot delete only these messages for good") }
                return
            }
            let current = try await select(mailbox, for: targets, session: session, outcomes: &outcomes)
            guard !current.isEmpty else { return }
            try await session.uidStore(Self.set(current), .add, flags: ["\\Deleted"], silent: true, unchangedSince: nil)
            try await session.uidExpunge(Self.set(current))
            for target in current { outcomes[target.id] = .done(newUID: nil) }
        case .fileSentCopy(let id, let message, let known, let confirmOnly):
            guard let sent = known else {
                outcomes[id] = .refused("the server has no Sent mailbox (\\Sent) to keep a copy in")
                return
            }
            var found: [UInt32] = []
            if !message.messageId.isEmpty, !absentFromSent.contains(message.messageId) {
                if session.selected?.name != sent { try await session.select(MailboxPath(sent), readOnly: true, qresync: nil) }
                found = try await session.uidSearch(.header(name: "Message-ID", value: message.messageId))
            }
            if let uid = found.last {
                outcomes[id] = .done(newUID: Int64(uid))
            } else if confirmOnly {
                outcomes[id] = .deferred("not in \(sent) yet")
            } else {
                let mapping = try await session.append(to: MailboxPath(sent), message: message.raw, flags: ["\\Seen"], date: message.date)
                outcomes[id] = .done(newUID: mapping?.destination.first.map(Int64.init))
            }
        }
    }

    /// RFC 6154: the mailbox marked `\Sent` (or named so), for an account whose folders were never synced.
    static func sentMailbox(_ session: any SyncSession) async throws -> String? {
        DiscoveredFolder.roles(of: try await session.listMailboxes()).first { $0.folderType == .sent }?.path
    }

    /// Selects the mailbox read-write (once for consecutive batches) and returns the targets whose
    /// UIDs belong to its UIDVALIDITY; the others are answered `.folderReset` and never named to
    /// the server.
    func select(
        _ mailbox: String, for targets: [Target], session: any SyncSession,
        outcomes: inout [PendingChangeID: ServerOperationOutcome]
    ) async throws -> [Target] {
        if session.selected?.name != mailbox || session.selected?.readOnly != false {
            try await session.select(MailboxPath(mailbox), readOnly: false, qresync: nil)
        }
        let validity = session.selected?.uidValidity.map(Int64.init)
        var current: [Target] = []
        for target in targets {
            if target.uidValidity == validity { current.append(target) } else { outcomes[target.id] = .folderReset }
        }
        return current
    }

    static func set(_ targets: [Target]) -> UIDSet { UIDSet(uids: targets.map { UInt32($0.uid) }.sorted()) }
}
