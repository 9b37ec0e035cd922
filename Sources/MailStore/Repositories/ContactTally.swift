import Foundation
import GRDB
import TernCore

/// FR-COMP-04: From, To and Cc of the new emails of one write transaction, counted per address and
/// written with one upsert per address at its end. Row by row (one upsert per address of each
/// message, the account's own address in nearly all of them) it was a twelfth of a first sync.
struct ContactTally {
    private struct Entry {
        var count = 0
        var lastSeen: Date
        /// The display name seen last, and when: it replaces the stored one unless that is newer.
        var name: String?
        var nameSeen: Date
    }

    private var entries: [AccountAddress: Entry] = [:]

    private struct AccountAddress: Hashable {
        var accountId: Account.ID
        var address: String
    }

    mutating func add(_ email: Email) {
        let seen = email.dateSent ?? email.dateReceived
        var addresses = email.toAddresses + email.ccAddresses
        if !email.fromAddress.isEmpty { addresses.append(EmailAddress(name: email.fromName, address: email.fromAddress)) }
        for address in addresses where address.address.contains("@") {
            let key = AccountAddress(accountId: email.accountId, address: address.address.lowercased())
            var entry = entries[key] ?? Entry(lastSeen: seen, nameSeen: .distantPast)
            entry.count += 1
            entry.lastSeen = max(entry.lastSeen, seen)
            if let name = address.name, seen >= entry.nameSeen {
                entry.name = name
                entry.nameSeen = seen
            }
            entries[key] = entry
        }
    }

    func write(_ db: Database) throws {
        for (key, entry) in entries {
            try db.cachedStatement(
                sql: """
                    INSERT INTO contactCacheEntry (id, accountId, emailAddress, displayName, lastSeenDate, frequency) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (accountId, emailAddress) DO UPDATE SET
                        frequency = frequency + excluded.frequency,
                        displayName = CASE WHEN excluded.displayName IS NOT NULL AND ? >= lastSeenDate
                                           THEN excluded.displayName ELSE displayName END,
                        lastSeenDate = MAX(lastSeenDate, excluded.lastSeenDate)
                    """
            ).execute(arguments: [
                UUID().uuidString.lowercased(), key.accountId, key.address, entry.name, entry.lastSeen.stored,
                entry.count, entry.nameSeen.stored
            ])
        }
        for accountId in Set(entries.keys.map(\.accountId)) { try SQLiteMessageStore.evictContacts(accountId: accountId, db: db) }
    }
}
