import Foundation
import ServiceLifecycle
import TernCore
import TernRuntime

/// The sync engine inside `tern serve` (PLATFORM.md): the core's runner (first sync, IDLE watching,
/// pushes, retries on its schedule), stopped at graceful shutdown. Its states reach the page on the
/// change feed.
struct SyncEngineService: Service {
    let services: TernServices

    func run() async throws {
        await cancelWhenGracefulShutdown {
            // The server never ends on a sync failure: the folder pane shows it, and it is tried again.
            try? await services.syncRunner.run(account: nil, describe: WebErrorText.describe) { event in
                guard case .pushed(_, let report) = event else { return }
                ScheduledSendService.journal(report)
            }
        }
    }
}

/// Send later inside `tern serve` (issue 36): the scheduled messages go at their time even with
/// `--no-sync` or while a first sync runs (the engine's pushes send them too; the push lock keeps it
/// to one). Wakes for the earliest time, and every 5 s for what another process scheduled.
struct ScheduledSendService: Service {
    let services: TernServices
    static let pollInterval: Duration = .seconds(5)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                if let reports = try? await services.outbox.sendDueScheduled() {
                    for report in reports { Self.announce(report, changes: services.changes) }
                }
                var wait = Self.pollInterval
                if let next = try? await services.outbox.nextScheduledTime() {
                    wait = min(wait, .milliseconds(max(10, Int64(next.timeIntervalSinceNow * 1000))))
                }
                try? await Task.sleep(for: wait)
            }
        }
    }

    /// The page learns of the outcome (the composer's watchers, the Outbox), the journal of a late send.
    static func announce(_ report: PushReport, changes: ChangeFeed) {
        for emailId in report.queue.sent { changes.publish(.sendOutcome(emailId: emailId, state: .sent, error: nil)) }
        for failure in report.queue.failed { changes.publish(.sendOutcome(emailId: failure.emailId, state: .failed, error: failure.error)) }
        if !report.queue.sent.isEmpty || !report.queue.failed.isEmpty { changes.publish(.draftsChanged) }
        journal(report)
    }

    /// Issue 36: a message whose time passed while no Tern process ran went out late: said on standard output, the journal
    /// (written through at once: a buffered line would be lost if the service manager kills the server).
    static func journal(_ report: PushReport) {
        for late in report.queue.sentLate {
            let line =
                "\(report.account): message m\(late.emailId.rawValue) scheduled for \(RelativeTime.iso(late.scheduledAt)) was sent late, "
                + "at \(RelativeTime.iso(late.sentAt)): no Tern process was running at its time\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }
    }
}
