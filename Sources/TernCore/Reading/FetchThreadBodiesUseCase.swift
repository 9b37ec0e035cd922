import Foundation

/// FR-SYNC-01 step 7: opening a thread fetches the bodies sync has not (the account's policy left
/// them for later). Offline, the thread shows what is stored and says the rest is not downloaded.
public struct FetchThreadBodiesUseCase: Sendable {
    let accounts: any AccountRepository
    let credentials: AccountCredentials
    let store: any SyncStore
    let synchronizer: any MailSynchronizing

    public init(accounts: any AccountRepository, credentials: AccountCredentials, store: any SyncStore, synchronizer: any MailSynchronizing) {
        self.accounts = accounts
        self.credentials = credentials
        self.store = store
        self.synchronizer = synchronizer
    }

    /// How many bodies were fetched.
    public func callAsFunction(threadId: Int64) async throws -> Int {
        let missing = try await store.missingBodies(threadId: threadId)
        var fetched = 0
        for (accountId, requests) in Dictionary(grouping: missing, by: \.accountId) {
            guard let account = try await accounts.account(id: accountId), account.isActive else { continue }
            fetched += try await synchronizer.fetchBodies(requests, account: account, credentials: credentials.supply(for: account))
        }
        return fetched
    }
}
