import Foundation
import IMAP
import MIME
import TernCore

/// FR-SYNC-08: one attachment part, fetched on demand (`BODY.PEEK[part]`: reading it does not mark
/// the message read) and decoded from its transfer encoding.
///
/// The part comes in slices (`BODY.PEEK[part]<offset.length>`, RFC 9051 section 6.4.5) so a front
/// end shows determinate progress (FR-ED-03) and a cancelled download stops within one slice rather
/// than after the whole part has crossed the network.
public struct AttachmentDownloader: Sendable {
    /// Large enough that round trips cost little next to the bytes, small enough for a progress bar
    /// to move several times a second on a slow link and for cancellation to stop promptly.
    public static let sliceBytes: UInt64 = 512 * 1024

    /// FR-SYNC-09: the account's pool.
    let connections: any SyncConnectionPool
    let sliceBytes: UInt64

    public init(connections: any SyncConnectionPool, sliceBytes: UInt64 = Self.sliceBytes) {
        self.connections = connections
        self.sliceBytes = max(1, sliceBytes)
    }

    public init(connections: IMAPConnectionPool, sliceBytes: UInt64 = Self.sliceBytes) {
        self.init(connections: LiveSyncConnectionPool(connections), sliceBytes: sliceBytes)
    }

    /// The decoded part. `progress` is told, after each slice, how many decoded bytes have arrived
    /// (estimated from the encoded bytes, as the attachment's size is).
    public func fetch(_ location: AttachmentLocation, progress: @escaping @Sendable (Int64) -> Void = { _ in }) async throws -> [UInt8] {
        let encoding = (location.attachment.transferEncoding ?? "7bit").lowercased()
        let section = location.attachment.partId
        let sliceBytes = sliceBytes
        return try await connections.withConnection(failingFast: true) { session in
            try await session.select(MailboxPath(location.folderPath), readOnly: true, qresync: nil)
            var raw: [UInt8] = []
            while true {
                try session.checkCancellation()
                let offset = UInt64(raw.count)
                var slice: [UInt8]?
                try await session.uidFetch(
                    UIDSet(uids: [UInt32(location.uid)]),
                    items: [.section(section, partial: offset..<offset + sliceBytes)], changedSince: nil
                ) { message in
                    slice = message.section(section)
                }
                guard let slice else {
                    throw IMAPError.server(status: .no, text: "the message is no longer in \(location.folderPath)")
                }
                raw += slice
                progress(Int64(BodyPlanner.estimatedDecodedSize(encodedBytes: raw.count, transferEncoding: encoding)))
                // A short slice is the last; a server that ignored the range sent the whole part at once.
                if UInt64(slice.count) != sliceBytes { break }
            }
            return TransferDecoding.decode(raw[...], encoding: encoding)
        }
    }
}
