import FileNameSafety
import Foundation

/// Where an attachment's bytes are on the server (FR-SYNC-08).
public struct AttachmentLocation: Sendable, Hashable {
    public var attachment: Attachment
    public var accountId: Account.ID
    public var folderPath: String
    public var uid: Int64

    public init(attachment: Attachment, accountId: Account.ID, folderPath: String, uid: Int64) {
        self.attachment = attachment
        self.accountId = accountId
        self.folderPath = folderPath
        self.uid = uid
    }
}

/// What attachment downloads need of the store.
public protocol AttachmentStore: Sendable {
    func location(ofAttachment id: AttachmentID) async throws -> AttachmentLocation?
    func markDownloaded(_ id: AttachmentID, path: String, at date: Date) async throws
    /// Downloaded attachments of the account, least recently used first.
    func downloaded(accountId: Account.ID) async throws -> [Attachment]
    func markEvicted(_ id: AttachmentID) async throws
}

/// Fetches one attachment part's decoded bytes from the server, telling `progress` how many decoded
/// bytes have arrived so far (estimated while the part is still encoded).
public protocol AttachmentFetching: Sendable {
    func fetch(
        _ location: AttachmentLocation, account: Account, credentials: CredentialSupply,
        progress: @escaping @Sendable (Int64) -> Void
    ) async throws -> [UInt8]
}

/// `tern attachment download ID` (FR-SYNC-08): lazily, with 3 retries and backoff, into
/// `$TERN_HOME/attachments/<account>/`; a file appears only complete (written aside, then renamed),
/// and the account's downloads stay under 500 MB, least recently used evicted first. Progress goes
/// to the caller and to the change feed (FR-ED-03), so a live front end shows it wherever it is drawn.
public struct DownloadAttachmentUseCase: Sendable {
    public static let cacheLimitBytes: Int64 = 500 * 1024 * 1024
    public static let retryDelays: [Duration] = [.seconds(1), .seconds(3), .seconds(9)]

    let accounts: any AccountRepository
    let credentials: AccountCredentials
    let store: any AttachmentStore
    let fetcher: any AttachmentFetching
    let home: TernHome
    /// Injectable so tests of the retry path take milliseconds instead of 13 s.
    let retryDelays: [Duration]
    /// Injectable so a test can show eviction without writing 500 MB.
    let cacheLimitBytes: Int64
    let changes: ChangeFeed?
    let warnings: AttachmentWarningsUseCase?

    public init(
        accounts: any AccountRepository, credentials: AccountCredentials, store: any AttachmentStore, fetcher: any AttachmentFetching,
        home: TernHome, retryDelays: [Duration] = Self.retryDelays, cacheLimitBytes: Int64 = Self.cacheLimitBytes,
        changes: ChangeFeed? = nil, warnings: AttachmentWarningsUseCase? = nil
    ) {
        self.accounts = accounts
        self.credentials = credentials
        self.store = store
        self.fetcher = fetcher
        self.home = home
        self.retryDelays = retryDelays
        self.cacheLimitBytes = cacheLimitBytes
        self.changes = changes
        self.warnings = warnings
    }

    /// What a front end must show, and have answered, before it downloads (FR-ED-03, AC-U-10,
    /// AC-U-10b): the attachment as stored and its warnings (none once it is on disk: the
    /// question was asked when it was fetched).
    public func check(attachmentId: AttachmentID) async throws -> AttachmentDownloadCheck {
        guard let location = try await store.location(ofAttachment: attachmentId) else { throw TernError.notFound("attachment \(attachmentId)") }
        let attachment = location.attachment
        var found: [AttachmentWarning] = []
        if let warnings {
            found = await warnings.warnings(filename: attachment.filename, size: attachment.sizeBytes)
            if attachment.isDownloaded { found.removeAll { $0.kind == .largeOnMeteredConnection } }
        }
        return AttachmentDownloadCheck(
            attachmentId: attachmentId, filename: attachment.filename, mimeType: attachment.mimeType,
            size: attachment.sizeBytes, isDownloaded: attachment.isDownloaded, warnings: found)
    }

    /// The downloaded file's path.
    public func callAsFunction(attachmentId: AttachmentID) async throws -> URL {
        URL(fileURLWithPath: try await download(attachmentId: attachmentId).path)
    }

    /// Downloads with progress reported to `progress` (phases downloading, retrying, then finished, failed or
    /// cancelled), and returns what a front end needs to preview safely: the path and the type sniffed from the bytes.
    /// Task cancellation removes the partial file and leaves the attachment not downloaded.
    public func download(
        attachmentId: AttachmentID,
        progress callerProgress: @escaping @Sendable (AttachmentProgress) -> Void = { _ in }
    ) async throws -> DownloadedAttachment {
        let changes = self.changes
        let progress: @Sendable (AttachmentProgress) -> Void = { event in
            callerProgress(event)
            changes?.publish(.attachmentProgress(event))
        }
        do {
            let result = try await fetchToDisk(attachmentId: attachmentId, progress: progress)
            progress(AttachmentProgress(attachmentId: attachmentId, phase: .finished, receivedBytes: result.size, totalBytes: result.size))
            return result
        } catch is CancellationError {
            progress(AttachmentProgress(attachmentId: attachmentId, phase: .cancelled, receivedBytes: 0, totalBytes: nil))
            throw CancellationError()
        } catch {
            progress(
                AttachmentProgress(attachmentId: attachmentId, phase: .failed, receivedBytes: 0, totalBytes: nil, error: String(describing: error)))
            throw error
        }
    }

    private func fetchToDisk(attachmentId: AttachmentID, progress: @escaping @Sendable (AttachmentProgress) -> Void) async throws
        -> DownloadedAttachment
    {
        guard let location = try await store.location(ofAttachment: attachmentId) else { throw TernError.notFound("attachment \(attachmentId)") }
        let directory = home.attachmentsURL(for: location.accountId)
        let final = directory.appendingPathComponent(Self.fileName(attachmentId: attachmentId, filename: location.attachment.filename))
        if location.attachment.isDownloaded, FileManager.default.fileExists(atPath: final.path) {
            try await store.markDownloaded(attachmentId, path: final.path, at: Date())
            return try Self.described(final, declaredType: location.attachment.mimeType)
        }
        guard let account = (try await accounts.allAccounts()).first(where: { $0.id == location.accountId }) else {
            throw TernError.notFound("the account of attachment \(attachmentId)")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        Self.removeLeftovers(in: directory)
        let total: Int64? = location.attachment.sizeBytes > 0 ? location.attachment.sizeBytes : nil
        progress(AttachmentProgress(attachmentId: attachmentId, phase: .downloading, receivedBytes: 0, totalBytes: total))
        var attempt = 0
        var bytes: [UInt8]
        while true {
            try Task.checkCancellation()
            do {
                bytes = try await fetcher.fetch(location, account: account, credentials: credentials.supply(for: account)) { received in
                    // The estimate may pass the estimated total; the bar stops just short of full until the end.
                    let shown = total.map { min(received, max(0, $0 - 1)) } ?? received
                    progress(AttachmentProgress(attachmentId: attachmentId, phase: .downloading, receivedBytes: shown, totalBytes: total))
                }
                break
            } catch  where Task.isCancelled {
                // However the fetch ended (a closed connection, an error), the user cancelled.
                throw CancellationError()
            } catch let error as TernError where attempt < retryDelays.count && error.isRetryable {
                progress(
                    AttachmentProgress(
                        attachmentId: attachmentId, phase: .retrying, receivedBytes: 0, totalBytes: total,
                        error: String(describing: error)))
                try await Task.sleep(for: retryDelays[attempt])
                attempt += 1
            }
        }
        try Task.checkCancellation()
        // Written aside and renamed: a killed download leaves no file under the final name.
        let partial = directory.appendingPathComponent(".\(attachmentId).partial")
        guard FileManager.default.createFile(atPath: partial.path, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
            throw TernError.storageUnavailable("cannot write \(partial.path)")
        }
        _ = try? FileManager.default.removeItem(at: final)
        try FileManager.default.moveItem(at: partial, to: final)
        try await store.markDownloaded(attachmentId, path: final.path, at: Date())
        try await evict(accountId: location.accountId, keeping: attachmentId)
        return DownloadedAttachment(
            path: final.path, sniffedType: MIMESniffer.sniff(bytes, declared: location.attachment.mimeType),
            size: Int64(bytes.count))
    }

    static func described(_ url: URL, declaredType: String) throws -> DownloadedAttachment {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let head = [UInt8](try handle.read(upToCount: 16) ?? Data())
        let size = ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.int64Value ?? 0
        return DownloadedAttachment(path: url.path, sniffedType: MIMESniffer.sniff(head, declared: declaredType), size: size)
    }

    func evict(accountId: Account.ID, keeping: AttachmentID) async throws {
        let downloaded = try await store.downloaded(accountId: accountId)
        var total = downloaded.reduce(Int64(0)) { $0 + $1.sizeBytes }
        for attachment in downloaded where total > cacheLimitBytes && attachment.id != keeping {
            if let path = attachment.localPath { try? FileManager.default.removeItem(atPath: path) }
            try await store.markEvicted(attachment.id ?? 0)
            total -= attachment.sizeBytes
        }
    }

    /// Partial files of downloads that were killed.
    static func removeLeftovers(in directory: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name.hasSuffix(".partial") { try? FileManager.default.removeItem(at: directory.appendingPathComponent(name)) }
    }

    /// `<id>-<name>`: one path component inside the directory, of at most 255 bytes, readable in a shell.
    static func fileName(attachmentId: AttachmentID, filename: String) -> String {
        let prefix = "\(attachmentId)-"
        return prefix + AttachmentFilename.sanitized(filename, maxBytes: AttachmentFilename.maxBytes - prefix.utf8.count)
    }
}

/// An attachment before its download, with the warnings to confirm first.
public struct AttachmentDownloadCheck: Sendable, Hashable, Codable {
    public var attachmentId: AttachmentID
    public var filename: String
    public var mimeType: String
    /// Estimated from the encoded size until it is downloaded.
    public var size: Int64
    public var isDownloaded: Bool
    public var warnings: [AttachmentWarning]
}

/// A downloaded attachment as a front end previews it (FR-ED-03): the type comes from the bytes, never only
/// from the sender's header, so a file declared `image/png` that is really HTML is not rendered as an image.
public struct DownloadedAttachment: Sendable, Hashable, Codable {
    public var path: String
    public var sniffedType: String
    public var size: Int64
}

/// Magic-number sniffing for the types a front end previews inline (images, PDF).
public enum MIMESniffer {
    /// PNG, JPEG, GIF, WebP or PDF from the leading bytes; otherwise the declared type unless it claims to be an
    /// image or PDF (a claim the bytes did not back), which becomes application/octet-stream.
    public static func sniff(_ bytes: [UInt8], declared: String) -> String {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + magic.count && Array(bytes[offset..<offset + magic.count]) == magic
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        if starts(Array("%PDF-".utf8)) { return "application/pdf" }
        let lowered = declared.lowercased().trimmingCharacters(in: .whitespaces)
        if lowered.isEmpty || lowered.hasPrefix("image/") || lowered == "application/pdf" { return "application/octet-stream" }
        return lowered
    }
}
