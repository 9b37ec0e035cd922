import FileNameSafety
import Foundation
import Synchronization
import TernCore

/// Files a person attaches in the browser, kept under `$TERN_HOME/uploads` (0700, each file 0600)
/// until the message that carries them is queued (the queue stores its own bytes) or they are a day
/// old. Named by a random id; the id is all the page holds. The browser's file name is sanitized here,
/// as a received attachment's is (`AttachmentFilename`, issue 32): kept as sent, a CR LF, control
/// character or `../` in it made its draft unsendable (the header check refuses it) and the file
/// dropped at the next save, whose form carries the name back with its line breaks changed.
final class UploadStaging: Sendable {
    struct Upload: Codable, Sendable, Hashable {
        var id: String
        var name: String
        var type: String
        var size: Int64
        var path: String
        /// CO01-16: set when the page asked for an inline image and the bytes are one (`InlineImage`).
        var contentId: String?
    }

    static let lifetime: TimeInterval = 24 * 3600
    let directory: URL
    private let uploads = Mutex<[String: Upload]>([:])

    init(directory: URL) {
        self.directory = directory
    }

    /// `inline`: the page pasted or dropped it into the text (CO01-16); it becomes an inline image,
    /// with a new Content-ID and the type its bytes show, only when it is a PNG, JPEG, GIF or WebP.
    func store(bytes: some Collection<UInt8>, filename: String, mimeType: String, inline: Bool = false) throws -> Upload {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        removeExpired()
        let id = UUID().uuidString.lowercased()
        let file = directory.appendingPathComponent(id)
        guard FileManager.default.createFile(atPath: file.path, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let name = AttachmentFilename.sanitized(filename)
        let type = mimeType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? "application/octet-stream"
        var upload = Upload(id: id, name: name, type: type.isEmpty ? "application/octet-stream" : type, size: Int64(bytes.count), path: file.path)
        if inline, let imageType = InlineImage.mediaType(of: Array(bytes.prefix(16)), declared: type) {
            upload.type = imageType
            upload.contentId = InlineImage.newContentId()
        }
        uploads.withLock { $0[id] = upload }
        return upload
    }

    func upload(id: String) -> Upload? { uploads.withLock { $0[id] } }

    func remove(id: String) {
        guard let upload = uploads.withLock({ $0.removeValue(forKey: id) }) else { return }
        try? FileManager.default.removeItem(atPath: upload.path)
    }

    private func removeExpired() {
        let cutoff = Date().addingTimeInterval(-Self.lifetime)
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: [.contentModificationDateKey])) ?? []
        for file in files {
            let modified = (try? file.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate) ?? .distantPast
            if modified < cutoff {
                try? FileManager.default.removeItem(at: file)
                _ = uploads.withLock { $0.removeValue(forKey: file.lastPathComponent) }
            }
        }
    }
}
