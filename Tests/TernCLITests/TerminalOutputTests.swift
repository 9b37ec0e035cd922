import Foundation
import TernCore
import Testing

@testable import MailStore
@testable import TernCLI

/// Issue 21: what mail carries reaches the terminal as visible text, never as control sequences.
/// A message whose subject, sender, body and attachment name hold OSC 52 (clipboard write), OSC 8
/// (a spoofed link), CSI 2J (screen clear), a C1 CSI and a right-to-left override is stored, then
/// listed, opened and searched with the built `tern`.
@Suite struct TerminalOutputTests {
    static let clipboard = "\u{1B}]52;c;cm0gLXJmIH4=\u{07}"
    static let subject = "Invoice \(clipboard)\u{1B}[2J\nFrom: ceo@bank.example\u{202E}fdp.exe"
    static let body = "Pay here: \u{1B}]8;;https://evil.example\u{1B}\\https://bank.example\u{1B}]8;;\u{1B}\\ \u{9B}31m now\u{7F}\nThanks"
    /// ESC, BEL, DEL, the C1 CSI and RIGHT-TO-LEFT OVERRIDE: none may reach the terminal.
    static let forbidden: [Unicode.Scalar] = ["\u{1B}", "\u{07}", "\u{7F}", "\u{9B}", "\u{202E}"]

    /// A home with one account and the hostile message in its Inbox; returns the message's thread.
    static func home() async throws -> (TernProcess, ThreadID) {
        let tern = TernProcess()
        let database = try TernDatabase(home: TernHome(url: tern.home))
        let account = Account(
            name: "work", emailAddress: "me@tern.test", provider: .imap,
            imap: ServerEndpoint(host: "127.0.0.1", port: 1, security: .implicitTLS),
            smtp: ServerEndpoint(host: "127.0.0.1", port: 1, security: .implicitTLS),
            username: "me", credential: .passwordEnvironment("UNUSED"))
        try await SQLiteAccountRepository(database: database).insert(account)
        let sync = SQLiteSyncStore(database: database)
        let inbox = try #require(
            try await sync.saveDiscoveredFolders(
                [DiscoveredFolder(path: "INBOX", delimiter: "/", folderType: .inbox)],
                accountId: account.id, keepOrphans: false
            ).first)
        let email = Email(
            accountId: account.id, messageId: "<hostile@tern.test>", dedupKey: "hostile", subject: subject,
            fromName: "Bank\u{1B}[8m hidden", fromAddress: "ceo@bank.example", dateReceived: Date(), bodyPlain: body,
            bodiesFetched: true, hasAttachments: true, isRead: true)
        let attachments = [
            Attachment(emailId: 0, partId: "2", filename: "invoice\u{202E}fdp.exe", mimeType: "application/pdf", sizeBytes: 10),
            Attachment(emailId: 0, partId: "3", filename: "invoice\u{200B}.exe\u{200B}", mimeType: "application/pdf", sizeBytes: 10)
        ]
        let stored = try await sync.store(
            [IncomingMessage(email: email, uid: 1, serverFlags: ["\\Seen"], attachments: attachments)],
            folderId: inbox.id!, cursorUID: 1, backfillCursorUID: 1)
        let emailId = try #require(stored.newMessages.first?.emailId)
        let thread = try await database.writer.read { db in
            try ThreadID.fetchOne(db, sql: "SELECT threadId FROM email WHERE id = ?", arguments: [emailId])
        }
        try database.writer.close()
        return (tern, try #require(thread))
    }

    static func controls(in output: String) -> [String] {
        output.unicodeScalars.filter(forbidden.contains).map { String(format: "U+%04X", $0.value) }
    }

    @Test func threadsThreadAndSearchShowNoControlSequences() async throws {
        let (tern, thread) = try await Self.home()
        for arguments in [["threads"], ["thread", "t\(thread)", "--keep-unread"], ["search", "invoice"]] {
            let result = try tern.run(arguments: arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(Self.controls(in: result.stdout + result.stderr).isEmpty, "\(arguments) printed \(Self.controls(in: result.stdout))")
            #expect(result.stdout.contains("Invoice \\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J"), "\(arguments): the text is still there to read")
            #expect(!result.stdout.contains("\nFrom: ceo@bank.example"), "\(arguments): the subject's newline starts no line of its own")
        }
        let opened = try tern.run("thread", "t\(thread)", "--keep-unread")
        #expect(opened.stdout.contains("invoice⟨U+202E⟩fdp.exe"), "a file name shows its invisible characters as markers (issue 32)")
        #expect(opened.stdout.contains("invoice⟨U+200B⟩.exe⟨U+200B⟩"))
        #expect(opened.stdout.contains("\\x9b31m now\\x7f\nThanks"), "a body keeps its lines")
    }

    /// Issue 32: zero-width spaces around `.exe` hide neither the type from the warning nor
    /// themselves from the reader.
    @Test func aDownloadWarnsOfATypeHiddenByInvisibleCharactersAndShowsThem() async throws {
        let (tern, thread) = try await Self.home()
        let opened = try tern.run("thread", "t\(thread)", "--keep-unread")
        let line = try #require(opened.stdout.split(separator: "\n").first { $0.contains("⟨U+200B⟩") })
        let id = try #require(line.split(separator: " ").dropFirst().first.map { String($0.dropLast()) })
        let download = try tern.run("attachment", "download", id)
        #expect(download.status != 0)
        #expect(download.stderr.contains("invoice⟨U+200B⟩.exe⟨U+200B⟩: This file is a Windows executable."), "\(download.stderr)")
    }

    @Test func jsonKeepsTheDataEscaped() async throws {
        let (tern, _) = try await Self.home()
        let result = try tern.run("threads", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.controls(in: result.stdout).isEmpty)
        #expect(result.stdout.contains("\\u202e"))
        let threads = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(threads.first?["subject"] as? String == Self.subject, "the same string once parsed")
    }

    /// `sync --watch` needs a server that delivers mail while it watches; its line is built by the
    /// same function the watch loop calls.
    @Test func watchLinesShowNoControlSequences() {
        let line = SyncCommand.newMailLine(
            account: "work",
            message: NewMessage(
                emailId: 1, from: EmailAddress(name: "Bank\u{1B}[8m", address: "ceo@bank.example"), subject: Self.subject, date: Date()))
        #expect(Self.controls(in: line).isEmpty)
        #expect(!line.contains("\n"))
    }

    @Test(arguments: [
        ("a\u{1B}[2Jb", "a\\x1b[2Jb"), ("tab\there", "tab\\x09here"), ("x\u{85}y", "x\\x85y"),
        ("\u{2066}iso\u{2069}", "\\u2066iso\\u2069"), ("plain café", "plain café")
    ])
    func oneLineEscapes(input: String, expected: String) {
        #expect(TerminalText.line(input) == expected)
    }

    @Test func blocksKeepNewlinesAndTabs() {
        #expect(TerminalText.block("a\tb\nc\r\n\u{200F}") == "a\tb\nc\\x0d\n\\u200f")
    }

    @Test func jsonEscapesC1AndBidiControlsAsUnicodeEscapes() throws {
        let encoded = try JSONEncoder().encode(["s": "a\u{9B}b\u{202E}c\u{7F}"])
        let escaped = TerminalText.json(encoded)
        #expect(String(decoding: escaped, as: UTF8.self) == #"{"s":"a\u009bb\u202ec\u007f"}"#)
        #expect(try JSONDecoder().decode([String: String].self, from: escaped) == ["s": "a\u{9B}b\u{202E}c\u{7F}"])
    }
}
