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

    /// Adds `count` emails to a new account named `accountName`; returns the account id. With
    /// `details` (issue 36's operators), each also gets its `Details`: flags, a size, an attachment,
    /// a Cc, and a folder (Inbox, Sent, Receipts, Trash, or none: the Archive).
    @discardableResult
    public static func populate(
        _ database: TernDatabase, count: Int, accountName: AccountName = "bench", seed: UInt64 = 1, details: Bool = false
    ) async throws -> Account.ID {
        let account = Account(
            id: .make(), name: accountName, emailAddress: "\(accountName)@example.org", provider: .imap,
            imap: ServerEndpoint(host: "127.0.0.1", port: 993, security: .implicitTLS),
            smtp: ServerEndpoint(host: "127.0.0.1", port: 465, security: .implicitTLS),
            username: accountName.rawValue, credential: .passwordEnvironment("UNUSED"))
        try await database.writer.write { db in
            var sequence = Sequence(state: seed)
            try account.insert(db)
            var folders: [Details.Folder: Int64] = [:]
            if details {
                for folder in Details.Folder.allCases where folder != .archive {
                    try db.execute(
                        sql: "INSERT INTO folder (accountId, path, displayName, folderType) VALUES (?, ?, ?, ?)",
                        arguments: [account.id, folder.rawValue, folder.rawValue, folder.folderType.rawValue])
                    folders[folder] = db.lastInsertedRowID
                }
            }
            for index in 0..<count {
                let sender = people[sequence.next() % people.count]
                let address = Self.address(of: sender)
                let subject = sequence.phrase(3 + sequence.next() % 5).capitalized
                let body = sequence.phrase(40 + sequence.next() % 60)
                let date = Self.date(of: index)
                guard details else {
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
                    continue
                }
                let more = Details(index: index, seed: seed)
                let ccJSON = more.cc.map { "[{\"address\":\"\(Self.address(of: $0))\",\"name\":\"\($0)\"}]" } ?? "[]"
                try db.cachedStatement(
                    sql: """
                        INSERT INTO email (accountId, messageId, dedupKey, subject, fromName, fromAddress, toAddresses, ccAddresses,
                            dateReceived, snippet, bodyPlain, sizeBytes, hasAttachments, isRead, isStarred, createdDate)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """
                ).execute(arguments: [
                    account.id, "m\(index)@example.org", "k\(index)", subject, sender, address,
                    "[{\"address\":\"\(accountName)@example.org\"}]", ccJSON, date, String(body.prefix(100)), body, more.size,
                    more.attachment != nil, more.read, more.starred, date
                ])
                let emailId = db.lastInsertedRowID
                let recipients = ["\(accountName)@example.org"] + (more.cc.map { ["\($0) \(Self.address(of: $0))"] } ?? [])
                try db.cachedStatement(sql: "INSERT INTO searchIndex (rowid, subject, sender, recipients, content) VALUES (?, ?, ?, ?, ?)")
                    .execute(arguments: [emailId, subject, "\(sender) \(address)", recipients.joined(separator: ", "), body])
                if let attachment = more.attachment {
                    try db.cachedStatement(
                        sql:
                            "INSERT INTO attachment (emailId, partId, filename, mimeType, sizeBytes) VALUES (?, '2', ?, 'application/octet-stream', 1000)"
                    ).execute(arguments: [emailId, attachment])
                }
                if let folderId = folders[more.folder] {
                    try db.cachedStatement(sql: "INSERT INTO emailFolder (emailId, folderId, imapUID) VALUES (?, ?, ?)")
                        .execute(arguments: [emailId, folderId, index + 1])
                }
            }
        }
        return account.id
    }

    /// The senders, subjects and bodies in order: SplitMix64 from the seed, so a store and a Maildir
    /// written from one seed hold the same messages.
    struct Sequence {
        var random: SplitMix

        init(state: UInt64) { random = SplitMix(seed: state) }

        mutating func next() -> Int { Int(truncatingIfNeeded: random.next() >> 1) }

        mutating func phrase(_ length: Int) -> String { (0..<length).map { _ in words[next() % words.count] }.joined(separator: " ") }
    }

    static func address(of person: String) -> String { person.lowercased().filter(\.isLetter) + "@example.org" }

    /// When the message at `index` arrived: ten minutes after the one before (100,000 span 694 days).
    public static func date(of index: Int) -> Date { Date(timeIntervalSince1970: 1_700_000_000).addingTimeInterval(Double(index) * 600) }

    /// What issue 36's operators look at, drawn from the message's index alone (the words keep their
    /// sequence): 70% read, 3% starred, 10% with an attachment, 2% of 5–15 MB, a Cc on a quarter.
    public struct Details {
        public enum Folder: String, CaseIterable {
            case inbox = "INBOX"
            case sent = "Sent"
            case receipts = "Receipts"
            case trash = "Trash"
            case archive = "Archive"

            var folderType: FolderType {
                switch self {
                case .inbox: .inbox
                case .sent: .sent
                case .receipts: .custom
                case .trash: .trash
                case .archive: .archive
                }
            }
        }

        static let filenames = ["report.pdf", "budget.xlsx", "photo.jpg", "notes.txt", "invoice.pdf"]

        public var read: Bool
        public var starred: Bool
        public var attachment: String?
        public var size: Int64
        public var cc: String?
        /// 60% Inbox, 15% Sent, 5% Receipts, 5% Trash, 15% in no folder (the Archive).
        public var folder: Folder

        public init(index: Int, seed: UInt64) {
            var random = SplitMix(seed: UInt64(index) &* 0xD1B5_4A32_D192_ED03 &+ seed)
            let hash = random.next()
            read = hash % 10 < 7
            starred = (hash >> 8) % 100 < 3
            attachment = (hash >> 16) % 10 == 0 ? Self.filenames[Int((hash >> 24) % 5)] : nil
            size = (hash >> 20) % 50 == 0 ? 5_000_000 + Int64((hash >> 32) % 10_000_000) : 2_000 + Int64((hash >> 32) % 100_000)
            cc = (hash >> 44) % 4 == 0 ? SyntheticMailbox.people[Int((hash >> 48) % UInt64(SyntheticMailbox.people.count))] : nil
            let bucket = (hash >> 40) % 100
            folder = bucket < 60 ? .inbox : bucket < 75 ? .sent : bucket < 80 ? .receipts : bucket < 85 ? .trash : .archive
        }
    }

    /// The mail `populate(details: true)` stores, as a Maildir per folder (`cur/`, flags in the names:
    /// `S` read, `F` starred), for a peer to index the same messages.
    public static func writeMaildir(to root: URL, count: Int, accountName: String = "bench", seed: UInt64 = 1) throws {
        var sequence = Sequence(state: seed)
        let manager = FileManager.default
        for folder in Details.Folder.allCases {
            for sub in ["cur", "new", "tmp"] {
                try manager.createDirectory(
                    at: root.appendingPathComponent(folder.rawValue).appendingPathComponent(sub), withIntermediateDirectories: true)
            }
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        for index in 0..<count {
            let sender = people[sequence.next() % people.count]
            let subject = sequence.phrase(3 + sequence.next() % 5).capitalized
            let body = sequence.phrase(40 + sequence.next() % 60)
            let more = Details(index: index, seed: seed)
            var headers = "From: \(sender) <\(address(of: sender))>\nTo: \(accountName)@example.org\n"
            if let cc = more.cc { headers += "Cc: \(cc) <\(address(of: cc))>\n" }
            headers +=
                "Subject: \(subject)\nDate: \(formatter.string(from: date(of: index)))\nMessage-ID: <m\(index)@example.org>\nMIME-Version: 1.0\n"
            let message: String
            if let attachment = more.attachment {
                message =
                    headers + """
                        Content-Type: multipart/mixed; boundary="b"

                        --b
                        Content-Type: text/plain; charset=utf-8

                        \(body)
                        --b
                        Content-Type: application/octet-stream
                        Content-Disposition: attachment; filename="\(attachment)"
                        Content-Transfer-Encoding: base64

                        AAAA
                        --b--

                        """
            } else {
                message = headers + "Content-Type: text/plain; charset=utf-8\n\n\(body)\n"
            }
            let flags = (more.starred ? "F" : "") + (more.read ? "S" : "")
            let file = root.appendingPathComponent(more.folder.rawValue).appendingPathComponent("cur").appendingPathComponent(
                "\(index).bench:2,\(flags)")
            try Data(message.utf8).write(to: file)
        }
    }
}
