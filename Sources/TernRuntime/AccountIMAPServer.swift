import Foundation
import IMAP
import TernCore

extension IMAPServer {
    /// The account's IMAP server. `TERN_IMAP_DISABLE_CAPABILITIES` (comma-separated, e.g.
    /// `QRESYNC,COMPRESS=DEFLATE`) has Tern use the server as if it lacked those extensions: a way
    /// around a server whose extension misbehaves, and how `scripts/bench/qresync_sync.py` measures
    /// the path without one (docs/decisions.md).
    init(account: Account, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(endpoint: account.imap, caFile: account.caFile)
        ignoredCapabilities = Set((environment["TERN_IMAP_DISABLE_CAPABILITIES"] ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).uppercased() }.filter { !$0.isEmpty })
    }
}
