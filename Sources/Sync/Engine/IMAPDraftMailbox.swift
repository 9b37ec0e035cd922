import Foundation
import IMAP
import TernCore

/// The Drafts mailbox side of `DraftSyncProcessor` (FR-COMP-01 "Draft lifecycle"), on one IMAP
/// connection per pass. A draft's copies are found by its Message-ID (`UID SEARCH HEADER`), which
/// every version shares: the search, not a remembered UID, decides what to remove, so a version a
/// crash left behind (appended, not yet recorded) goes with the next pass.
public struct IMAPDraftMailbox: Sendable {
    /// FR-SYNC-09: the account's pool.
    let connections: any SyncConnectionPool

    public init(connections: any SyncConnectionPool) {
        self.connections = connections
    }

    public init(connections: IMAPConnectionPool) {
        self.init(connections: LiveSyncConnectionPool(connections))
    }

    public func perform(_ requests: [DraftServerRequest], draftsMailbox: String?) async throws -> [Draft.ID: DraftServerOutcome] {
        try await connections.withConnection { session in
            let mailbox = try await Self.draftsMailbox(known: draftsMailbox, session: session)
            try await session.select(MailboxPath(mailbox), readOnly: false, qresync: nil)
            var outcomes: [Draft.ID: DraftServerOutcome] = [:]
            for request in requests {
                do {
                    outcomes[request.draftId] = try await perform(request, mailbox: mailbox, session: session)
                } catch let error as IMAPError {
                    guard case .server(_, let text) = error else {
                        for other in requests where outcomes[other.draftId] == nil { outcomes[other.draftId] = .failed(error.description) }
                        return outcomes
                    }
                    outcomes[request.draftId] = .failed(text)
                }
            }
            return outcomes
        }
    }

    func perform(_ request: DraftServerRequest, mailbox: String, session: any SyncSession) async throws -> DraftServerOutcome {
        let validity = Int64(session.selected?.uidValidity ?? 0)
        let found = try await session.uidSearch(.header(name: "Message-ID", value: request.messageId)).sorted()
        switch request.action {
        case .check(let known):
            guard known.mailbox == mailbox, known.uidValidity == validity else {
                // The mailbox was reset or moved: what is there now is the server's version.
                return try await newest(found, mailbox: mailbox, validity: validity, session: session) ?? .deletedOnServer
            }
            if found == [UInt32(known.uid)] { return .unchanged }
            if let latest = found.last, Int64(latest) > known.uid {
                return try await newest(found, mailbox: mailbox, validity: validity, session: session) ?? .deletedOnServer
            }
            return found.isEmpty ? .deletedOnServer : .unchanged
        case .upload(let raw, let date, let known):
            if let known, known.mailbox == mailbox, known.uidValidity == validity, let latest = found.last, Int64(latest) > known.uid {
                // Another client saved after our last version: the server's wins (FR-COMP-01 "Conflict").
                if let changed = try await newest(found, mailbox: mailbox, validity: validity, session: session) { return changed }
            }
            let mapping = try await session.append(to: MailboxPath(mailbox), message: raw, flags: ["\\Draft", "\\Seen"], date: date)
            var uid = mapping.flatMap { $0.uidValidity == UInt32(truncatingIfNeeded: validity) ? $0.destination.first : nil }
            if uid == nil {
                // No APPENDUID (no UIDPLUS): the newest copy with the Message-ID is the one just appended.
                uid = try await session.uidSearch(.header(name: "Message-ID", value: request.messageId)).max()
            }
            try await remove(found.filter { $0 != uid }, session: session)
            guard let uid else { return .failed("the server did not say where it stored the draft") }
            return .uploaded(DraftServerCopy(mailbox: mailbox, uid: Int64(uid), uidValidity: validity))
        case .remove:
            try await remove(found, session: session)
            return .removed
        }
    }

    /// The newest copy's bytes, as the server's version of the draft.
    func newest(_ found: [UInt32], mailbox: String, validity: Int64, session: any SyncSession) async throws -> DraftServerOutcome? {
        guard let latest = found.last else { return nil }
        var raw: [UInt8]?
        try await session.uidFetch(UIDSet(uids: [latest]), items: [.section("")], changedSince: nil) { message in raw = message.sections[""] }
        guard let raw else { return nil }
        return .changedOnServer(raw: raw, copy: DraftServerCopy(mailbox: mailbox, uid: Int64(latest), uidValidity: validity))
    }

    /// Only these UIDs go (`UID EXPUNGE`, RFC 4315). Without UIDPLUS they are flagged `\Deleted` and
    /// left for the server's next expunge: a plain EXPUNGE would also remove what other clients flagged.
    func remove(_ uids: [UInt32], session: any SyncSession) async throws {
        guard !uids.isEmpty else { return }
        let set = UIDSet(uids: uids.sorted())
        _ = try await session.uidStore(set, .add, flags: ["\\Deleted"], silent: true, unchangedSince: nil)
        if session.hasCapability("UIDPLUS") { _ = try await session.uidExpunge(set) }
    }

    /// The folder sync knows as Drafts, else the server's `\Drafts` (RFC 6154), else `Drafts`, created.
    static func draftsMailbox(known: String?, session: any SyncSession) async throws -> String {
        if let known { return known }
        if let listed = try await session.listMailboxes().first(where: { $0.folderType == .drafts })?.name { return listed }
        try? await session.create(MailboxPath("Drafts"))
        return "Drafts"
    }
}
