import ArgumentParser
import Foundation
import TernCore

/// Send later on the command line (issue 36): `--at WHEN` read through the core's `WhenExpression` in the
/// terminal's time zone, and the lines that say when a message goes or went.
enum ScheduledSendWording {
    /// The moment `--at` names, from now; an unreadable one is a usage error naming its part.
    static func time(_ text: String, now: Date = Date()) throws -> Date {
        do {
            return try WhenExpression(text).date(now: now, calendar: .current)
        } catch {
            throw ValidationError("--at: \(error)")
        }
    }

    /// `2026-11-28 08:00 (Sat)` in the local time zone: a person checks the day too.
    static func shown(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss (EEE)"
        return formatter.string(from: date)
    }

    static func scheduled(_ outcome: SendOutcome) -> String {
        let id = outcome.emailId.cli
        let when = outcome.scheduledAt.map(shown) ?? "later"
        return "scheduled for \(when): message \(id) waits in the Outbox (tern outbox edit \(id) to change it, tern outbox discard \(id) to cancel)"
    }

    static func late(_ late: LateScheduledSend) -> String {
        "message \(late.emailId.cli), scheduled for \(shown(late.scheduledAt)), was sent late at \(shown(late.sentAt)): no Tern process was running at its time"
    }

    /// After a one-shot command (issue 36, "or the next command"): the scheduled messages whose time
    /// came while nothing ran go now, said on standard error so the command's own output (JSON too)
    /// stays as it was.
    static func sendDue(_ outbox: OutboxUseCase) async {
        guard let reports = try? await outbox.sendDueScheduled() else { return }
        for report in reports {
            let late = Set(report.queue.sentLate.map(\.emailId))
            for id in report.queue.sent where !late.contains(id) { printError("tern: \(report.account): sent scheduled message \(id.cli)") }
            for entry in report.queue.sentLate { printError("tern: \(report.account): \(Self.late(entry))") }
            for failure in report.queue.failed {
                printError("tern: \(report.account): scheduled message \(failure.emailId.cli) failed: \(TerminalText.line(failure.error))")
            }
        }
    }
}
