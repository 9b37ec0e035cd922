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
    func location(ofAttachment id: Int64) async throws -> AttachmentLocation?
    func markDownloaded(_ id: Int64, path: String, at date: Date) async throws
    /// Downloaded attachments of the account, least recently used first.
    func downloaded(accountId: Account.ID) async throws -> [Attachment]
    func markEvicted(_ id: Int64) async throws
}

/// Fetches one attachment part's decoded bytes from the server.
public protocol AttachmentFetching: Sendable {
    func fetch(_ location: AttachmentLocation, account: Account, credentials: CredentialSupply) async throws -> [UInt8]
}

/// `tern attachment download ID` (FR-SYNC-08): lazily, with 3 retries and backoff, into
/// `$TERN_HOME/attachments/<account>/`; a file appears only complete (written aside, then renamed),
/// and the account's downloads stay under 500 MB, least recently used evicted first.
public struct DownloadAttachmentUseCase: Sendable {
    public static let cacheLimitBytes: Int64 = 500 * 1024 * 1024
    public static let retryDelays: [Duration] = [.seconds(1), .seconds(3), .seconds(9)]

    let accounts: any AccountRepository
    let credentials: AccountCredentials
    let store: any AttachmentStore
    let fetcher: any AttachmentFetching
    let home: TernHome

    public init(accounts: any AccountRepository, credentials: AccountCredentials, store: any AttachmentStore, fetcher: any AttachmentFetching,
                home: TernHome) {
        self.accounts = accounts
        self.credentials = credentials
        self.store = store
        self.fetcher = fetcher
        self.home = home
    }

    /// The downloaded file's path.
    public func callAsFunction(attachmentId: Int64) async throws -> URL {
        guard let location = try await store.location(ofAttachment: attachmentId) else { throw TernError.notFound("attachment \(attachmentId)") }
        let directory = home.attachmentsURL(for: location.accountId)
        let final = directory.appendingPathComponent(Self.fileName(attachmentId: attachmentId, filename: location.attachment.filename))
        if location.attachment.isDownloaded, FileManager.default.fileExists(atPath: final.path) {
            try await store.markDownloaded(attachmentId, path: final.path, at: Date())
            return final
        }
        guard let account = (try await accounts.allAccounts()).first(where: { $0.id == location.accountId }) else {
            throw TernError.notFound("the account of attachment \(attachmentId)")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        Self.removeLeftovers(in: directory)
        var attempt = 0
        var bytes: [UInt8]
        while true {
            do {
                bytes = try await fetcher.fetch(location, account: account, credentials: credentials.supply(for: account))
                break
            } catch let error as TernError where attempt < Self.retryDelays.count && error.isRetryable {
                try await Task.sleep(for: Self.retryDelays[attempt])
                attempt += 1
            }
        }
        // Written aside and renamed: a killed download leaves no file under the final name.
        let partial = directory.appendingPathComponent(".\(attachmentId).partial")
        guard FileManager.default.createFile(atPath: partial.path, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
            throw TernError.storageUnavailable("cannot write \(partial.path)")
        }
        _ = try? FileManager.default.removeItem(at: final)
        try FileManager.default.moveItem(at: partial, to: final)
        try await store.markDownloaded(attachmentId, path: final.path, at: Date())
        try await evict(accountId: location.accountId, keeping: attachmentId)
        return final
    }

    func evict(accountId: Account.ID, keeping: Int64) async throws {
        let downloaded = try await store.downloaded(accountId: accountId)
        var total = downloaded.reduce(Int64(0)) { $0 + $1.sizeBytes }
        for attachment in downloaded where total > Self.cacheLimitBytes && attachment.id != keeping {
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
    static func fileName(attachmentId: Int64, filename: String) -> String {
        let prefix = "\(attachmentId)-"
        return prefix + AttachmentFilename.sanitized(filename, maxBytes: AttachmentFilename.maxBytes - prefix.utf8.count)
    }
}
