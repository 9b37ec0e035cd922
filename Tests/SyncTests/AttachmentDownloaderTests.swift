import Foundation
import IMAP
import Sync
import TernCore
import TernTesting
import Testing

/// FR-SYNC-08: an attachment fetched on demand in slices, decoded, with progress; a message gone
/// from the server; a connection cut mid-download (issue 33).
@Suite struct AttachmentDownloaderTests {
    static let content = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }

    func setUp() async -> (InMemoryIMAPServer, InMemoryConnectionPool, AttachmentLocation) {
        let server = InMemoryIMAPServer()
        let uid = await server.deliver(InMemoryMessage.withAttachment(subject: "Report", filename: "report.bin", content: Self.content))
        let attachment = Attachment(
            emailId: 1, partId: "2", filename: "report.bin", mimeType: "application/octet-stream",
            sizeBytes: Int64(Self.content.count), transferEncoding: "base64")
        let location = AttachmentLocation(attachment: attachment, accountId: "a", folderPath: "INBOX", uid: Int64(uid))
        return (server, InMemoryConnectionPool(server: server), location)
    }

    @Test func thePartComesInSlicesAndIsDecoded() async throws {
        let (server, pool, location) = await setUp()
        let progress = Locked<[Int64]>([])
        let bytes = try await AttachmentDownloader(connections: pool, sliceBytes: 100_000).fetch(location) { done in
            progress.withLock { $0.append(done) }
        }
        #expect(bytes == Self.content)
        let fetches = await server.commands(.fetch)
        // 300,000 bytes are about 405,000 in base64 with line breaks: five slices, the last short.
        #expect(fetches.count == 5, "\(fetches)")
        #expect(fetches.allSatisfy { $0.detail.contains("partial") })
        let reported = progress.withLock { $0 }
        #expect(reported == reported.sorted() && reported.count == 5)
        #expect(Double(reported.last!) > Double(Self.content.count) * 0.95)
    }

    @Test func aMessageNoLongerThereIsTheServersAnswer() async throws {
        let (server, pool, location) = await setUp()
        await server.expunge(uids: [UInt32(location.uid)])
        await #expect(throws: IMAPError.server(status: .no, text: "the message is no longer in INBOX")) {
            try await AttachmentDownloader(connections: pool).fetch(location)
        }
    }

    @Test func aCutConnectionIsRetryableAndTheNextDownloadWorks() async throws {
        let (server, pool, location) = await setUp()
        await server.inject(.timeout(.fetch), skipping: 1)
        let downloader = AttachmentDownloader(connections: pool, sliceBytes: 100_000)
        let error = await #expect(throws: IMAPError.self) { try await downloader.fetch(location) }
        #expect(error?.isRetryable == true)
        #expect(try await downloader.fetch(location) == Self.content)
        #expect(await pool.connectionsOpened == 2, "the timed-out connection was not reused")
    }
}
