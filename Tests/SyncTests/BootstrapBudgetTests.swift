import TernCore
import Testing

@testable import Sync

/// FR-SYNC-01 stage C: 500 headers, Inbox 60%, Sent 20%, others 20%, a floor of 20 each.
struct BootstrapBudgetTests {
    @Test func theDefaultSplitWithFewFolders() {
        #expect(BootstrapBudget.allocate([.inbox, .sent, .drafts, .trash]) == [300, 100, 50, 50])
    }

    @Test func theFloorComesOutOfTheInboxShare() {
        let types: [FolderType] = [.inbox, .sent] + Array(repeating: .custom, count: 8)
        let budget = BootstrapBudget.allocate(types)
        #expect(budget[2...].allSatisfy { $0 == 20 })
        #expect(budget[0] == 240 && budget[1] == 100)
        #expect(budget.reduce(0, +) == BootstrapBudget.cap)
    }

    @Test func theCapHoldsEvenWithManyFolders() {
        let types: [FolderType] = [.inbox, .sent] + Array(repeating: .custom, count: 60)
        let budget = BootstrapBudget.allocate(types)
        #expect(budget[0] == AccountSynchronizer.firstPageSize)
        #expect(budget.reduce(0, +) <= BootstrapBudget.cap)
        #expect(budget[2...].allSatisfy { $0 >= 1 })
    }
}
