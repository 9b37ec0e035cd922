import Foundation

/// FR-SYNC-01 step 7: opening a thread fetches the bodies sync has not (the account's policy left
/// them for later). Offline, the thread shows what is stored and says the rest is not downloaded.
public struct FetchThreadBodiesUseCase: Sendable {
    let accounts: any AccountRepository
    let credentials: AccountCredentials
    let store: any SyncStore
    let synchronizer: any MailSynchronizing
    let changes: ChangeFeed?

    public init(
        accounts: any AccountRepository, credentials: AccountCredentials, store: any SyncStore, synchronizer: any MailSynchronizing,
        changes: ChangeFeed? = nil
    ) {
        self.accounts = accounts
        self.credentials = credentials
        self.store = store
        self.synchronizer = synchronizer
        self.changes = changes
    }

    /// How many bodies were fetched. `only`: just these messages of the thread (the page on screen,
    /// FR-ED-05), so a 500-message thread does not fetch 500 bodies to show 25.
    public func callAsFunction(threadId: ThreadID, only emailIds: Set<EmailID>? = nil) async throws -> Int {
        var missing = try await store.missingBodies(threadId: threadId)
        if let emailIds { missing = missing.filter { emailIds.contains($0.request.emailId) } }
        var fetched = 0
        // The change feed is how a live front end learns the outcome (the web page redraws the thread).
        do {
            for (accountId, requests) in Dictionary(grouping: missing, by: \.accountId) {
                guard let account = try await accounts.account(id: accountId), account.isActive else {
                    changes?.publish(.bodiesUnavailable(threadId: threadId, offline: false))
                    continue
                }
                fetched += try await synchronizer.fetchBodies(requests, account: account, credentials: credentials.supply(for: account))
                for request in requests { changes?.publish(.bodyArrived(emailId: request.request.emailId, threadId: threadId)) }
            }
        } catch {
            changes?.publish(.bodiesUnavailable(threadId: threadId, offline: true))
            throw error
        }
        return fetched
    }
}
