import TernCore

/// FR-SYNC-01 stage C: how many of each folder's newest headers a first sync fetches before any
/// history, from a cap of 500 per account: Inbox 60%, Sent 20%, the others 20% shared, each
/// folder at least 20 while the cap allows (taken from the Inbox's share, which keeps its first page).
public enum BootstrapBudget {
    public static let cap = 500
    public static let floor = 20

    /// One number per folder type, in the order given.
    public static func allocate(_ folders: [FolderType], cap: Int = cap) -> [Int] {
        let others = folders.indices.filter { folders[$0] != .inbox && folders[$0] != .sent }
        let hasInbox = folders.contains(.inbox)
        var inbox = hasInbox ? cap * 60 / 100 : 0
        let sent = folders.contains(.sent) ? cap * 20 / 100 : 0
        let othersShare = cap - (hasInbox ? cap * 60 / 100 : 0) - sent
        var each = others.isEmpty ? 0 : max(floor, othersShare / others.count)
        let excess = each * others.count - othersShare
        if excess > 0 {
            // The floors come out of the Inbox's share, down to its first page; past that, the cap wins.
            let spare = max(0, inbox - AccountSynchronizer.firstPageSize)
            let taken = min(spare, excess)
            inbox -= taken
            if taken < excess { each = max(1, (othersShare + taken) / others.count) }
        }
        return folders.map { type in
            switch type {
            case .inbox: inbox
            case .sent: sent
            default: each
            }
        }
    }
}
