import Crypto
import Foundation
import IMAP
import Sync
import TernCore

/// `DraftMailboxServer` on the Sync module's Drafts mailbox commands.
struct LiveDraftMailbox: DraftMailboxServer {
    let connections: AccountConnectionPools

    func perform(_ requests: [DraftServerRequest], draftsMailbox: String?, account: Account, credentials: CredentialSupply) async throws
        -> [Draft.ID: DraftServerOutcome]
    {
        try await translatingMailFailures {
            try await IMAPDraftMailbox(connections: await connections.pool(for: account, credentials: credentials))
                .perform(requests, draftsMailbox: draftsMailbox)
        }
    }
}

/// `ComposeAttachmentLoading`: a forwarded original's attachment from its local copy (downloaded
/// first when it is not), a picked file from disk.
struct LiveComposeAttachmentLoader: ComposeAttachmentLoading {
    let downloads: DownloadAttachmentUseCase

    func load(_ attachment: ComposedAttachment) async throws -> OutgoingAttachment {
        let path: String =
            switch attachment.source {
            case .storedAttachment(let id): try await downloads.download(attachmentId: id).path
            case .file(let path): path
            }
        do {
            return OutgoingAttachment(
                filename: attachment.filename, mimeType: attachment.mimeType, data: try Data(contentsOf: URL(fileURLWithPath: path)),
                contentId: attachment.contentId)
        } catch {
            throw TernError.storageUnavailable("cannot read \(attachment.filename) (\(path)): \(error.localizedDescription)")
        }
    }
}

/// `DraftFiles` under `$TERN_HOME/drafts/<sha256 of the draft's Message-ID>/`, owner-only like the rest of the home.
/// A file is kept as a copy of its bytes made now (issue 32): a symbolic link is read through once,
/// never copied as a link, so what is sent is what was attached, and the copy is created 0600
/// rather than chmodded, which through a link changed the mode of the user's own file.
struct LocalDraftFiles: DraftFiles {
    let directory: URL

    func keep(_ path: String, key: String) throws -> String {
        let folder = directory.appendingPathComponent(Self.name(key), isDirectory: true)
        if path.hasPrefix(folder.path + "/") { return path }
        let name = URL(fileURLWithPath: path).lastPathComponent
        do {
            try OwnerOnlyFiles.directory(directory)
            try OwnerOnlyFiles.directory(folder)
            var counter = 1
            while true {
                let target = folder.appendingPathComponent(counter == 1 ? name : "\(counter)-\(name)")
                do {
                    try OwnerOnlyFiles.copy(from: path, to: target)
                    return target.path
                } catch TernError.alreadyExists {
                    counter += 1
                }
            }
        } catch TernError.storageUnavailable(let reason) {
            throw TernError.storageUnavailable("cannot keep \(path) with the draft: \(reason)")
        }
    }

    func removeAll(key: String) {
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(Self.name(key), isDirectory: true))
    }

    static func name(_ key: String) -> String {
        SHA256.hash(data: Data(key.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
    }
}
