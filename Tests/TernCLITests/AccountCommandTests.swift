import Foundation
import GRDB
import TernCore
import Testing

@testable import MailStore

@Suite struct AccountCommandTests {
    static let secret = "pw-\(UUID().uuidString)"

    func addArguments(name: String = "work", secretSource: [String]) -> [String] {
        [
            "account", "add", name, "--email", "me@tern.test", "--imap", "127.0.0.1:10993", "--smtp", "127.0.0.1:10587",
            "--smtp-starttls", "--user", "me"
        ] + secretSource
    }

    /// FR-COMP-01: `--alias` is repeatable; the aliases are listed, and `tern compose --print` writes from the account.
    @Test func aliasesAreStoredAndListed() throws {
        var tern = TernProcess()
        tern.environment["TERN_TEST_SECRET"] = Self.secret
        let added = try tern.run(
            arguments: addArguments(secretSource: [
                "--password-env", "TERN_TEST_SECRET", "--alias", "Me@Alias.test",
                "--alias", "other@tern.test"
            ]))
        #expect(added.status == 0, "\(added.stderr)")
        let accounts = try JSONSerialization.jsonObject(with: Data(try tern.run("account", "list", "--json").stdout.utf8)) as? [[String: Any]]
        #expect(accounts?.first?["aliases"] as? [String] == ["me@alias.test", "other@tern.test"])
        let composed = try tern.run("compose", "--print", "--json")
        #expect(composed.status == 0, "\(composed.stderr)")
        let draft = try JSONSerialization.jsonObject(with: Data(composed.stdout.utf8)) as? [String: Any]
        #expect((draft?["from"] as? [String: Any])?["address"] as? String == "me@tern.test")
        #expect(draft?["confirmations"] as? [String] == ["Send without subject?", "Send empty message?"])
        #expect(try tern.run("compose").status != 0)
    }

    @Test func addListRemoveWithPasswordEnvironment() throws {
        var tern = TernProcess()
        tern.environment["TERN_TEST_SECRET"] = Self.secret
        let added = try tern.run(arguments: addArguments(secretSource: ["--password-env", "TERN_TEST_SECRET"]))
        #expect(added.status == 0, "\(added.stderr)")

        let list = try tern.run("account", "list", "--json")
        #expect(list.status == 0)
        let accounts = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]]
        #expect(accounts?.count == 1)
        #expect(accounts?.first?["name"] as? String == "work")
        #expect((accounts?.first?["smtp"] as? [String: Any])?["security"] as? String == "starttls")
        #expect(accounts?.first?["auth"] as? String == "password-env")
        #expect(!list.stdout.contains(Self.secret))

        let text = try tern.run("account", "list")
        #expect(text.stdout.contains("work"))
        #expect(text.stdout.contains("127.0.0.1:10993 (TLS)"))

        // The secret was read to check the source works, and was written nowhere.
        #expect(try tern.allStoredBytes().range(of: Data(Self.secret.utf8)) == nil)

        let removed = try tern.run("account", "remove", "work")
        #expect(removed.status == 0)
        #expect(
            try tern.run("account", "list", "--json").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[\n\n]"
                || (try tern.run("account", "list", "--json").stdout.contains("[]")))
    }

    @Test func passwordCommandOutputIsNeverStored() throws {
        var tern = TernProcess()
        tern.environment["TERN_TEST_VAULT"] = Self.secret
        let result = try tern.run(arguments: addArguments(secretSource: ["--password-command", "printf '%s\\n' \"$TERN_TEST_VAULT\""]))
        #expect(result.status == 0, "\(result.stderr)")
        let stored = try tern.allStoredBytes()
        #expect(stored.range(of: Data(Self.secret.utf8)) == nil)
        // The command itself is the stored reference.
        #expect(stored.range(of: Data("printf".utf8)) != nil)
    }

    @Test func missingPasswordCommandFailsWithOneLineAndAddsNothing() throws {
        let tern = TernProcess()
        let result = try tern.run(arguments: addArguments(secretSource: ["--password-command", "/nonexistent/pass show x"]))
        #expect(result.status != 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("password command"))
        #expect(try tern.run("account", "list", "--json").stdout.contains("["))
        let list = try tern.run("account", "list", "--json")
        let accounts = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [Any]
        #expect(accounts?.isEmpty == true)
    }

    @Test func unsetPasswordEnvironmentFails() throws {
        var tern = TernProcess()
        tern.environment.removeValue(forKey: "TERN_TEST_UNSET")
        let result = try tern.run(arguments: addArguments(secretSource: ["--password-env", "TERN_TEST_UNSET"]))
        #expect(result.status == 1)
        #expect(result.stderr == "tern: secret unavailable: environment variable TERN_TEST_UNSET is not set\n")
    }

    @Test func removingAnAccountRemovesItsDataAndFiles() async throws {
        var tern = TernProcess()
        tern.environment["TERN_TEST_SECRET"] = Self.secret
        #expect(try tern.run(arguments: addArguments(name: "keep", secretSource: ["--password-env", "TERN_TEST_SECRET"])).status == 0)
        #expect(try tern.run(arguments: addArguments(name: "drop", secretSource: ["--password-env", "TERN_TEST_SECRET"])).status == 0)
        let home = TernHome(url: tern.home)
        let database = try TernDatabase(home: home)
        let ids = try await database.writer.write { db -> [String: AccountID] in
            var ids: [String: AccountID] = [:]
            for account in try Account.fetchAll(db) {
                ids[account.name.rawValue] = account.id
                try ContactCacheEntry(accountId: account.id, emailAddress: "ivan@example.ru", lastSeenDate: Date()).insert(db)
                var folder = Folder(accountId: account.id, path: "INBOX", folderType: .inbox)
                try folder.insert(db)
            }
            return ids
        }
        try database.writer.close()
        for id in ids.values {
            let attachments = home.attachmentsURL(for: id)
            try FileManager.default.createDirectory(at: attachments, withIntermediateDirectories: true)
            try Data("pdf".utf8).write(to: attachments.appendingPathComponent("1-report.pdf"))
            try FileManager.default.createDirectory(at: home.secretsURL, withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: home.tokenFileURL(for: id))
        }

        let result = try tern.run("account", "remove", "drop")
        #expect(result.status == 0, "\(result.stderr)")

        let reopened = try TernDatabase(home: home)
        let (names, dropContacts, dropFolders, keepContacts) = try await reopened.writer.read { db in
            (
                try String.fetchAll(db, sql: "SELECT name FROM account"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM contactCacheEntry WHERE accountId = ?", arguments: [ids["drop"]]),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM folder WHERE accountId = ?", arguments: [ids["drop"]]),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM contactCacheEntry WHERE accountId = ?", arguments: [ids["keep"]])
            )
        }
        #expect(names == ["keep"])
        #expect(dropContacts == 0)
        #expect(dropFolders == 0)
        #expect(keepContacts == 1)
        #expect(!FileManager.default.fileExists(atPath: home.attachmentsURL(for: ids["drop"]!).path))
        #expect(!FileManager.default.fileExists(atPath: home.tokenFileURL(for: ids["drop"]!).path))
        #expect(FileManager.default.fileExists(atPath: home.attachmentsURL(for: ids["keep"]!).path))
        #expect(FileManager.default.fileExists(atPath: home.tokenFileURL(for: ids["keep"]!).path))
    }

    @Test func removingUnknownAccountFails() throws {
        let result = try TernProcess().run("account", "remove", "nobody")
        #expect(result.status == 1)
        #expect(result.stderr == "tern: not found: no account named 'nobody'\n")
    }
}

@Suite struct BadStoreTests {
    func snapshot(_ directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return files
    }

    @Test(arguments: [["account", "list"], ["account", "remove", "x"], ["status"]])
    func corruptDatabaseGivesOneLineAndChangesNothing(arguments: [String]) throws {
        let tern = TernProcess()
        try FileManager.default.createDirectory(at: tern.home, withIntermediateDirectories: true)
        try Data(repeating: 0x42, count: 4096).write(to: tern.home.appendingPathComponent("tern.sqlite"))
        let before = try snapshot(tern.home)
        let result = try tern.run(arguments: arguments)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("tern: database unusable:"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stdout.isEmpty)
        #expect(try snapshot(tern.home) == before)
    }

    @Test func newerDatabaseGivesOneLine() async throws {
        let tern = TernProcess()
        let database = try TernDatabase(home: TernHome(url: tern.home))
        try await database.writer.write { db in try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v42-future')") }
        try database.writer.close()
        let before = try snapshot(tern.home)
        let result = try tern.run("account", "list")
        #expect(result.status == 1)
        #expect(result.stderr.contains("newer version of Tern"))
        #expect(try snapshot(tern.home) == before)
    }

    @Test func unwritableHomeGivesOneLine() throws {
        let blocker = FileManager.default.temporaryDirectory.appendingPathComponent("tern-blocker-\(UUID().uuidString)")
        try Data().write(to: blocker)
        let tern = TernProcess(home: blocker.appendingPathComponent("home"))
        let result = try tern.run("account", "list")
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("tern: storage unavailable:"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try Data(contentsOf: blocker).isEmpty)
    }

    @Test func readOnlyHomeGivesOneLine() throws {
        // Root may write anywhere; /proc is writable by nobody.
        let tern = TernProcess(home: URL(fileURLWithPath: "/proc/tern-cannot-exist"))
        let result = try tern.run("status")
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("tern: storage unavailable:"))
    }
}

@Suite struct ParseCommandTests {
    static let message =
        "From: Zoë <zoe@example.fr>\r\nTo: a@x.org\r\nSubject: =?utf-8?q?caf=C3=A9?=\r\nDate: garbage\r\nMessage-ID: <p1@x>\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nhello\r\n--b\r\nContent-Type: application/pdf; name=r.pdf\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0=\r\n--b--\r\n"

    @Test func parseJSONShowsHeadersPartsBodiesAttachmentsAndProblems() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tern-parse-\(UUID().uuidString).eml")
        try Data(Self.message.utf8).write(to: file)
        let result = try TernProcess().run("parse", "--json", file.path)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["subject"] as? String == "café")
        #expect((json["from"] as? [[String: Any]])?.first?["address"] as? String == "zoe@example.fr")
        #expect(json["bodyPlain"] as? String == "hello")
        #expect((json["attachments"] as? [[String: Any]])?.first?["filename"] as? String == "r.pdf")
        #expect((json["problems"] as? [String])?.contains { $0.contains("malformedDate") } == true)
        #expect(((json["structure"] as? [String: Any])?["children"] as? [Any])?.count == 2)
    }

    @Test func parseReadsStandardInputAsText() throws {
        let process = Process()
        process.executableURL = TernProcess.executable
        process.arguments = ["parse"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(Self.message.utf8))
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(text.contains("Subject:     café"))
        #expect(text.contains("Attachment:  2 \"r.pdf\""))
    }
}
