import Foundation
import Synchronization
import TernCore
import Testing

@testable import MailStore

/// FR-ED-03 / FR-SYNC-08 on the real store: progress phases, cancel cleanup, retries then a failure,
/// LRU eviction under an injected limit, and type sniffing. IMAP is an in-memory fetcher double.
struct DownloadAttachmentUseCaseTests {
    let database: TernDatabase
    let account = Fixtures.account()
    let home: TernHome

    init() async throws {
        database = try TernDatabase.temporary()
        home = TernHome(url: FileManager.default.temporaryDirectory.appendingPathComponent("tern-attach-\(UUID().uuidString)"))
        try await database.writer.write { [account] db in try account.insert(db) }
    }

    /// One stored email in INBOX with one attachment per entry; returns the attachment ids.
    func attachments(_ specs: [(name: String, type: String, size: Int64)]) async throws -> [AttachmentID] {
        try await database.writer.write { [account] db in
            var inbox = Folder(accountId: account.id, path: "INBOX", folderType: .inbox)
            try inbox.insert(db)
            var ids: [AttachmentID] = []
            for (index, spec) in specs.enumerated() {
                var email = Fixtures.email(accountId: account.id, messageId: "<a\(index)-\(UUID().uuidString)@example.org>")
                try email.insert(db)
                try db.execute(
                    sql: "INSERT INTO emailFolder (emailId, folderId, imapUID) VALUES (?, ?, ?)",
                    arguments: [email.id!, inbox.id!, index + 1])
                var attachment = Attachment(emailId: email.id!, partId: "2", filename: spec.name, mimeType: spec.type, sizeBytes: spec.size)
                try attachment.insert(db)
                ids.append(attachment.id!)
            }
            return ids
        }
    }

    func useCase(
        _ fetcher: any AttachmentFetching, limit: Int64 = DownloadAttachmentUseCase.cacheLimitBytes,
        changes: ChangeFeed? = nil
    ) -> DownloadAttachmentUseCase {
        DownloadAttachmentUseCase(
            accounts: SQLiteAccountRepository(database: database), credentials: .unusable,
            store: SQLiteAttachmentStore(database: database), fetcher: fetcher, home: home,
            retryDelays: [.milliseconds(1), .milliseconds(1), .milliseconds(1)], cacheLimitBytes: limit,
            changes: changes)
    }

    func isDownloaded(_ id: AttachmentID) async throws -> Bool {
        try await database.writer.read { db in try Attachment.fetchOne(db, key: id)?.isDownloaded ?? false }
    }

    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 100)

    @Test func progressRunsDownloadingThenFinishedAndTheTypeIsSniffed() async throws {
        let ids = try await attachments([("photo.jpg", "image/jpeg", 108)])
        let events = Mutex<[AttachmentProgress]>([])
        let result = try await useCase(BytesFetcher(bytes: Self.png)).download(attachmentId: ids[0]) { event in events.withLock { $0.append(event) } }
        #expect(result.sniffedType == "image/png")
        #expect(result.size == 108)
        #expect(try Data(contentsOf: URL(fileURLWithPath: result.path)) == Data(Self.png))
        let phases = events.withLock { $0.map(\.phase) }
        #expect(phases.first == .downloading)
        #expect(phases.last == .finished)
        #expect(events.withLock { $0.first?.totalBytes } == 108)
        #expect(try await isDownloaded(ids[0]))
    }

    /// FR-ED-03: determinate progress as the slices arrive, on the caller's callback and on the change
    /// feed a front end in another task follows.
    @Test func slicesReportProgressToTheCallerAndTheChangeFeed() async throws {
        let ids = try await attachments([("report.pdf", "application/pdf", 300)])
        let feed = ChangeFeed()
        let stream = feed.changes()
        let seen = Task {
            var received: [AttachmentProgress] = []
            for await change in stream {
                guard case .attachmentProgress(let event) = change else { continue }
                received.append(event)
                if event.phase == .finished { break }
            }
            return received
        }
        let events = Mutex<[AttachmentProgress]>([])
        let bytes = Array("%PDF-".utf8) + [UInt8](repeating: 0x20, count: 295)
        _ = try await useCase(SlicedFetcher(bytes: bytes, slice: 100), changes: feed).download(attachmentId: ids[0]) { event in
            events.withLock { $0.append(event) }
        }
        let reported = events.withLock { $0.filter { $0.phase == .downloading }.map(\.receivedBytes) }
        #expect(reported == [0, 100, 200, 299], "each slice, the last held short of full until the file is in place")
        #expect(events.withLock { $0.last } == AttachmentProgress(attachmentId: ids[0], phase: .finished, receivedBytes: 300, totalBytes: 300))
        #expect(await seen.value == events.withLock { $0 })
    }

    @Test func cancellingLeavesNoFileAndNotDownloaded() async throws {
        let ids = try await attachments([("big.bin", "application/zip", 10)])
        let events = Mutex<[AttachmentProgress]>([])
        let download = useCase(SlowFetcher())
        let task = Task { try await download.download(attachmentId: ids[0]) { event in events.withLock { $0.append(event) } } }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(events.withLock { $0.last?.phase } == .cancelled)
        #expect(!(try await isDownloaded(ids[0])))
        let directory = home.attachmentsURL(for: account.id)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).isEmpty)
    }

    @Test func threeRetriesThenARetryableFailure() async throws {
        let ids = try await attachments([("a.txt", "text/plain", 3)])
        let fetcher = FailingFetcher()
        let events = Mutex<[AttachmentProgress]>([])
        await #expect(throws: TernError.self) {
            _ = try await useCase(fetcher).download(attachmentId: ids[0]) { event in events.withLock { $0.append(event) } }
        }
        #expect(fetcher.calls.withLock { $0 } == 4)
        #expect(events.withLock { $0.filter { $0.phase == .retrying }.count } == 3)
        #expect(events.withLock { $0.last?.phase } == .failed)
        #expect(!(try await isDownloaded(ids[0])))
    }

    @Test func theLeastRecentlyUsedIsEvictedOverTheLimit() async throws {
        let ids = try await attachments([("1.bin", "application/zip", 60), ("2.bin", "application/zip", 60)])
        let download = useCase(BytesFetcher(bytes: [UInt8](repeating: 1, count: 60)), limit: 100)
        let first = try await download.download(attachmentId: ids[0])
        try await Task.sleep(for: .milliseconds(20))
        _ = try await download.download(attachmentId: ids[1])
        #expect(!(try await isDownloaded(ids[0])))
        #expect(!FileManager.default.fileExists(atPath: first.path))
        #expect(try await isDownloaded(ids[1]))
    }

    @Test func sniffingTrustsBytesNotTheSendersHeader() {
        #expect(MIMESniffer.sniff(Array("%PDF-1.7".utf8), declared: "text/plain") == "application/pdf")
        #expect(MIMESniffer.sniff([0xFF, 0xD8, 0xFF, 0xE0], declared: "") == "image/jpeg")
        #expect(MIMESniffer.sniff(Array("GIF89a".utf8), declared: "image/png") == "image/gif")
        #expect(MIMESniffer.sniff(Array("RIFF\0\0\0\0WEBPVP8 ".utf8), declared: "x") == "image/webp")
        #expect(MIMESniffer.sniff(Array("<html><script>".utf8), declared: "image/png") == "application/octet-stream")
        #expect(MIMESniffer.sniff(Array("<html>".utf8), declared: "application/pdf") == "application/octet-stream")
        #expect(MIMESniffer.sniff(Array("hello".utf8), declared: "Text/Plain") == "text/plain")
    }
}

private struct BytesFetcher: AttachmentFetching {
    let bytes: [UInt8]
    func fetch(
        _ location: AttachmentLocation, account: Account, credentials: CredentialSupply,
        progress: @escaping @Sendable (Int64) -> Void
    ) async throws -> [UInt8] { bytes }
}

/// Reports each slice as it "arrives", as the IMAP downloader does.
private struct SlicedFetcher: AttachmentFetching {
    let bytes: [UInt8]
    let slice: Int
    func fetch(
        _ location: AttachmentLocation, account: Account, credentials: CredentialSupply,
        progress: @escaping @Sendable (Int64) -> Void
    ) async throws -> [UInt8] {
        for end in stride(from: slice, through: bytes.count, by: slice) { progress(Int64(end)) }
        return bytes
    }
}

/// Hangs until cancelled, as a slow server would.
private struct SlowFetcher: AttachmentFetching {
    func fetch(
        _ location: AttachmentLocation, account: Account, credentials: CredentialSupply,
        progress: @escaping @Sendable (Int64) -> Void
    ) async throws -> [UInt8] {
        try await Task.sleep(for: .seconds(60))
        return [1, 2, 3]
    }
}

private final class FailingFetcher: AttachmentFetching {
    let calls = Mutex(0)
    func fetch(
        _ location: AttachmentLocation, account: Account, credentials: CredentialSupply,
        progress: @escaping @Sendable (Int64) -> Void
    ) async throws -> [UInt8] {
        calls.withLock { $0 += 1 }
        throw TernError.connectionLost("connection refused")
    }
}
