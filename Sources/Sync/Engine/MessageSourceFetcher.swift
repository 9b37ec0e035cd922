import Foundation
import IMAP
import MIME
import TernCore

/// Issue 36: a message's bytes as the server holds them (`BODY.PEEK[]`, which marks nothing read),
/// or its header alone (`BODY.PEEK[HEADER]`), on a connection borrowed from the account's pool
/// (FR-SYNC-09), as `AttachmentDownloader` fetches parts.
public struct MessageSourceFetcher: Sendable {
    /// Messages asked per FETCH when a folder is exported: few enough that an answer stays small,
    /// enough that round trips cost little.
    public static let batchSize = 20

    let connections: any SyncConnectionPool

    public init(connections: any SyncConnectionPool) { self.connections = connections }

    public init(connections: IMAPConnectionPool) { self.init(connections: LiveSyncConnectionPool(connections)) }

    /// The whole message.
    public func source(folderPath: String, uid: Int64) async throws -> [UInt8] {
        try await fetchOne(folderPath: folderPath, uid: uid, item: .section("", partial: nil), section: "")
    }

    /// The header section, for what Tern reads from a header it did not keep (`List-Unsubscribe`).
    public func header(folderPath: String, uid: Int64) async throws -> HeaderSection {
        let bytes = try await fetchOne(folderPath: folderPath, uid: uid, item: .header, section: "HEADER")
        return MessageParser().parse(bytes + Array("\r\n".utf8)).headers
    }

    /// Each UID's message in turn, in batches on one connection; UIDs the server no longer has are skipped.
    public func sources(folderPath: String, uids: [Int64], each: @escaping @Sendable (Int64, [UInt8]) async throws -> Void) async throws {
        for start in stride(from: 0, to: uids.count, by: Self.batchSize) {
            let batch = Array(uids[start..<min(start + Self.batchSize, uids.count)])
            let fetched: [(Int64, [UInt8])] = try await connections.withConnection(failingFast: true) { session in
                try await session.select(MailboxPath(folderPath), readOnly: true, qresync: nil)
                var found: [Int64: [UInt8]] = [:]
                try await session.uidFetch(UIDSet(uids: batch.map { UInt32($0) }), items: [.section("", partial: nil)], changedSince: nil) {
                    message in
                    if let uid = message.uid, let bytes = message.section("") { found[Int64(uid)] = bytes }
                }
                return batch.compactMap { uid in found[uid].map { (uid, $0) } }
            }
            for (uid, bytes) in fetched { try await each(uid, bytes) }
        }
    }

    func fetchOne(folderPath: String, uid: Int64, item: FetchItem, section: String) async throws -> [UInt8] {
        try await connections.withConnection(failingFast: true) { session in
            try await session.select(MailboxPath(folderPath), readOnly: true, qresync: nil)
            var bytes: [UInt8]?
            try await session.uidFetch(UIDSet(uids: [UInt32(uid)]), items: [item], changedSince: nil) { message in
                if message.uid == nil || message.uid == UInt32(uid) { bytes = message.section(section) ?? bytes }
            }
            guard let bytes else { throw IMAPError.server(status: .no, text: "the message is no longer in \(folderPath)") }
            return bytes
        }
    }
}
