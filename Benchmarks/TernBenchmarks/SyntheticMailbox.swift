import Foundation
import GRDB
import MailStore
import TernCore

/// A large mailbox written straight into a store, for benchmarks of the read side (search, lists):
/// deterministic words, people and dates, indexed as sync indexes them.
public enum SyntheticMailbox {
    static let words =
        ("budget review launch customer feedback quarterly results invoice shipping release notes pricing update "
        + "team meeting agenda travel design offsite hiring roadmap security incident report contract renewal vendor "
        + "conference keynote draft proposal marketing campaign analytics dashboard migration database backup outage").split(separator: " ").map(
            String.init)
    static let people = [
        "Ana García", "Priya Natarajan", "Wei Zhang", "Lars Øvergaard", "Zoë Dubois", "Kim Lee", "Omar Haddad",
        "Maria Schmidt", "田中 由紀", "John Smith", "Fatima Okafor", "Diego Rossi"
    ]

    /// Adds `count` emails to a new account named `accountName`; returns the account id.
    @discardableResult
    public static func populate(_ database: TernDatabase, count: Int, accountName: AccountName = "bench", seed: UInt64 = 1) async throws -> Account.ID
    {
        let account = Account(
            id: .make(), name: accountName, emailAddress: "\(accountName)@example.org", provider: .imap,
            imap: ServerEndpoint(host: "127.0.0.1", port: 993, security: .implicitTLS),
            smtp: ServerEndpoint(host: "127.0.0.1", port: 465, security: .implicitTLS),
            username: accountName.rawValue, credential: .passwordEnvironment("UNUSED"))
        try await database.writer.write { db in
            var state = seed
            func next() -> Int {
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return Int(truncatingIfNeeded: (z ^ (z >> 31)) >> 1)
            }
            func phrase(_ length: Int) -> String { (0..<length).map { _ in words[next() % words.count] }.joined(separator: " ") }
            try account.insert(db)
            let start = Date(timeIntervalSince1970: 1_700_000_000)
            for index in 0..<count {
                let sender = people[next() % people.count]
                let address = sender.lowercased().filter(\.isLetter) + "@example.org"
                let subject = phrase(3 + next() % 5).capitalized
                let body = phrase(40 + next() % 60)
                let date = start.addingTimeInterval(Double(index) * 600)
                try db.cachedStatement(
                    sql: """
                        INSERT INTO email (accountId, messageId, dedupKey, subject, fromName, fromAddress, dateReceived, snippet, bodyPlain, createdDate)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """
                ).execute(arguments: [
                    account.id, "m\(index)@example.org", "k\(index)", subject, sender, address, date,
                    String(body.prefix(100)), body, date
                ])
                try db.cachedStatement(sql: "INSERT INTO searchIndex (rowid, subject, sender, recipients, content) VALUES (?, ?, ?, ?, ?)")
                    .execute(arguments: [db.lastInsertedRowID, subject, "\(sender) \(address)", "\(accountName)@example.org", body])
            }
        }
        return account.id
    }
}
