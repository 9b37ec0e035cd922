import Foundation
import IMAP
import TernCore

/// `IMAPServerProbe` on Tern's IMAP client: connect, log in, list, log out.
struct LiveIMAPProbe: IMAPServerProbe {
    func check(account: Account, password: String) async throws -> IMAPCheckReport {
        let server = IMAPServer(endpoint: account.imap, caFile: account.caFile)
        do {
            return try await IMAPClient.withSession(to: server) { session in
                try await session.login(username: account.username, password: password)
                let listings = try await session.listMailboxes()
                let capabilities = session.capabilities.sorted()
                let greeting = session.greeting?.text ?? ""
                try await session.logout()
                return IMAPCheckReport(
                    server: "\(account.imap.host):\(account.imap.port)", greeting: greeting, capabilities: capabilities,
                    folders: listings.map { .init(path: $0.name, folderType: $0.folderType, attributes: $0.attributes) })
            }
        } catch let error as IMAPError {
            throw TernError.serverFailure(error.description)
        }
    }
}
