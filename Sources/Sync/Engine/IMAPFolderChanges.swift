import Foundation
import IMAP
import TernCore

/// Issue 36: CREATE, RENAME and DELETE on one pooled connection, then the server's LIST with its
/// roles, so the store is reconciled to what the server now holds rather than to what was asked.
public struct IMAPFolderChanges: Sendable {
    /// FR-SYNC-09: the account's pool.
    let connections: any SyncConnectionPool

    public init(connections: any SyncConnectionPool) {
        self.connections = connections
    }

    public init(connections: IMAPConnectionPool) {
        self.init(connections: LiveSyncConnectionPool(connections))
    }

    public func apply(_ change: FolderChange) async throws -> [DiscoveredFolder] {
        try await connections.withConnection(failingFast: true) { session in
            switch change {
            case .create(let path):
                try await session.create(MailboxPath(path))
            case .rename(let from, let to):
                // A selected mailbox renamed under the session would leave it selected under its old name.
                if session.selected?.name == from { try await session.select(MailboxPath("INBOX"), readOnly: true, qresync: nil) }
                try await session.rename(MailboxPath(from), to: MailboxPath(to))
            case .delete(let path):
                if session.selected?.name == path { try await session.select(MailboxPath("INBOX"), readOnly: true, qresync: nil) }
                try await session.delete(MailboxPath(path))
            }
            return DiscoveredFolder.roles(of: try await session.listMailboxes())
        }
    }
}
