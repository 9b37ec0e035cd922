import Foundation
import IMAP
import MIME
import TernCore

/// FR-SYNC-08: one attachment part, fetched on demand (`BODY.PEEK[part]`: reading it does not mark
/// the message read) and decoded from its transfer encoding.
public struct AttachmentDownloader: Sendable {
    let server: IMAPServer
    let credentials: IMAPCredentialSource

    public init(server: IMAPServer, credentials: IMAPCredentialSource) {
        self.server = server
        self.credentials = credentials
    }

    public func fetch(_ location: AttachmentLocation) async throws -> [UInt8] {
        try await IMAPClient.withSession(to: server) { session in
            try await session.authenticate(with: credentials)
            try await session.select(location.folderPath, readOnly: true)
            var raw: [UInt8]?
            try await session.uidFetch(UIDSet(uids: [UInt32(location.uid)]), items: [.section(location.attachment.partId)]) { message in
                raw = message.section(location.attachment.partId)
            }
            try? await session.logout()
            guard let raw else { throw IMAPError.server(status: .no, text: "the message is no longer in \(location.folderPath)") }
            return TransferDecoding.decode(raw[...], encoding: (location.attachment.transferEncoding ?? "7bit").lowercased())
        }
    }
}
