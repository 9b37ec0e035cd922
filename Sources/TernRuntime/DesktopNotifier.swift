import Foundation
import TernCore

/// Issue 36: `tern sync --watch --notify`'s notices through the desktop's notification service, by
/// `notify-send` (libnotify, which speaks the freedesktop `org.freedesktop.Notifications` D-Bus
/// interface). Where there is none (no such program, no session bus) nothing is shown and nothing
/// is said: the watch's own lines are still printed.
public struct DesktopNotifier: Sendable {
    let executable: URL

    /// The notifier of this environment: `notify-send` on `PATH` with a session bus to reach; nil otherwise.
    public static func find(environment: [String: String] = ProcessInfo.processInfo.environment) -> DesktopNotifier? {
        guard environment["DBUS_SESSION_BUS_ADDRESS"] != nil || environment["XDG_RUNTIME_DIR"] != nil else { return nil }
        for directory in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("notify-send")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return DesktopNotifier(executable: candidate) }
        }
        return nil
    }

    /// One notice for an arrival: the sender and subject of one message, or a count and the first
    /// senders of several (grouped, as the web app does). Only unread Inbox mail is notified.
    public func notify(account: AccountName, messages: [NewMessage]) {
        let unread = messages.filter { $0.inInbox && !$0.isRead }
        guard let first = unread.first else { return }
        let (title, body) =
            unread.count == 1
            ? (first.from.displayName, first.subject)
            : ("\(unread.count) new messages in \(account)", unread.prefix(3).map { "\($0.from.displayName): \($0.subject)" }.joined(separator: "\n"))
        run(title: Self.cleaned(title), body: Self.cleaned(body))
    }

    /// Arguments, never a shell; the process is not waited for longer than it takes to start.
    func run(title: String, body: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--app-name=Tern", "--category=email.arrived", "--", title, body]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            process.waitUntilExit()
        } catch {
            return
        }
    }

    /// A stranger's text as a notice shows it: controls out, one line per message, and the markup
    /// characters the notification server may read (its `body-markup`) escaped; capped.
    static func cleaned(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars.prefix(400) {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\n": out += "\n"
            default:
                if scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
