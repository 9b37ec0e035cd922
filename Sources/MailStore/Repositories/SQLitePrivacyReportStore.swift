import Foundation
import GRDB
import TernCore

/// Issue 37's `tern privacy` over `messagePrivacy` (v17) and the received mail in `email`.
public struct SQLitePrivacyReportStore: PrivacyReportStore {
    let database: TernDatabase

    public init(database: TernDatabase) { self.database = database }

    /// Mail received: not written here (no send state) and not a draft.
    static let received = "e.sendState = 'none' AND e.isDraft = 0"

    public func messagesWithoutPrivacyFacts(version: Int, limit: Int) async throws -> [PrivacyFactsInput] {
        try await database.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT e.id, e.bodyHTML FROM email e LEFT JOIN messagePrivacy p ON p.emailId = e.id
                    WHERE \(Self.received) AND e.bodiesFetched = 1 AND (p.emailId IS NULL OR p.version IS NOT ?)
                    ORDER BY e.id LIMIT ?
                    """, arguments: [version, limit]
            ).map { PrivacyFactsInput(emailId: $0["id"], bodyHTML: $0["bodyHTML"]) }
        }
    }

    public func savePrivacyFacts(_ facts: [MessagePrivacyFacts], version: Int) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        func json(_ value: some Encodable) throws -> String { String(decoding: try encoder.encode(value), as: UTF8.self) }
        // Encoded before the write: the writer's closure runs elsewhere.
        let rows: [StatementArguments] = try facts.map { fact in
            [
                fact.emailId, version, fact.imageTrackers, fact.cssTrackers, fact.fontTrackers, try json(fact.trackerHosts),
                try json(fact.remoteHosts), fact.linksCleaned, fact.linksTracked, try json(fact.trackedLinkHosts), fact.emailId
            ]
        }
        try await database.writer.write { db in
            let statement = try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO messagePrivacy (emailId, version, imageTrackers, cssTrackers, fontTrackers, trackerHosts, remoteHosts,
                        linksCleaned, linksTracked, trackedLinkHosts)
                    SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM email WHERE id = ?)
                    """)
            for arguments in rows { try statement.execute(arguments: arguments) }
        }
    }

    public func privacyRows(since: Date?) async throws -> [PrivacyReportRow] {
        let decoder = JSONDecoder()
        return try await database.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT e.id, e.fromAddress, e.readReceiptTo, p.emailId AS factsId, p.imageTrackers, p.cssTrackers, p.fontTrackers,
                        p.trackerHosts, p.remoteHosts, p.linksCleaned, p.linksTracked, p.trackedLinkHosts
                    FROM email e LEFT JOIN messagePrivacy p ON p.emailId = e.id
                    WHERE \(Self.received) AND (? IS NULL OR e.dateReceived >= ?)
                    """, arguments: [since.stored, since.stored]
            ).map { row in
                var facts: MessagePrivacyFacts?
                if let id = row["factsId"] as EmailID? {
                    func decoded<T: Decodable>(_ column: String, as type: T.Type) throws -> T {
                        try decoder.decode(T.self, from: Data((row[column] as String? ?? "[]").utf8))
                    }
                    facts = MessagePrivacyFacts(
                        emailId: id, imageTrackers: row["imageTrackers"], cssTrackers: row["cssTrackers"], fontTrackers: row["fontTrackers"],
                        trackerHosts: try decoded("trackerHosts", as: [String].self), remoteHosts: try decoded("remoteHosts", as: [HostCount].self),
                        linksCleaned: row["linksCleaned"], linksTracked: row["linksTracked"],
                        trackedLinkHosts: try decoded("trackedLinkHosts", as: [String].self))
                }
                let receiptTo: String = row["readReceiptTo"] ?? "[]"
                return PrivacyReportRow(sender: row["fromAddress"], receiptRequested: receiptTo != "[]", facts: facts)
            }
        }
    }
}
