import Foundation
import TernCore
import Testing

@testable import TernRuntime

/// Issue 36: `tern sync --watch --notify`'s notices: one per arrival of unread Inbox mail, grouped,
/// through `notify-send` when there is one; a stranger's sender and subject cleaned first.
@Suite struct DesktopNotifierTests {
    func message(_ subject: String, from name: String, read: Bool = false, inbox: Bool = true) -> NewMessage {
        NewMessage(
            emailId: 1, from: EmailAddress(name: name, address: "x@example.org"), subject: subject, date: Date(), isRead: read, inInbox: inbox)
    }

    /// A `notify-send` that writes its arguments to a file, on a PATH of its own.
    func fakeNotifier() throws -> (DesktopNotifier, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-notify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let log = directory.appendingPathComponent("calls")
        let script = directory.appendingPathComponent("notify-send")
        try "#!/bin/sh\nfor a in \"$@\"; do printf '%s|' \"$a\" | tr '\\n' '~' >> '\(log.path)'; done\necho >> '\(log.path)'\n".write(
            to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let notifier = try #require(DesktopNotifier.find(environment: ["PATH": directory.path, "DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"]))
        return (notifier, log)
    }

    @Test func oneUnreadInboxMessageIsItsSenderAndSubjectAndSeveralAreOneNotice() throws {
        let (notifier, log) = try fakeNotifier()
        notifier.notify(account: "work", messages: [message("Lunch <b>now</b>", from: "Nora\u{1B}[2J")])
        notifier.notify(account: "work", messages: [message("A", from: "Ann"), message("B", from: "Bob"), message("Old", from: "Cy", read: true)])
        notifier.notify(account: "work", messages: [message("Read", from: "Dee", read: true), message("Sent", from: "Eve", inbox: false)])
        let calls = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(calls.count == 2, "read mail and mail outside the Inbox make none")
        #expect(calls[0] == "--app-name=Tern|--category=email.arrived|--|Nora[2J|Lunch &lt;b&gt;now&lt;/b&gt;|")
        #expect(calls[1] == "--app-name=Tern|--category=email.arrived|--|2 new messages in work|Ann: A~Bob: B|")
    }

    @Test func withoutNotifySendOrASessionBusThereIsNone() {
        #expect(DesktopNotifier.find(environment: ["PATH": "/nonexistent", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"]) == nil)
        #expect(DesktopNotifier.find(environment: ["PATH": "/usr/bin:/bin"]) == nil)
    }
}
