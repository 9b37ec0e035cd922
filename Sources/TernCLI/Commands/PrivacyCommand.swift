import ArgumentParser
import Foundation
import TernCore

/// `tern privacy [--since 30d] [--json]` (issue 37): per sender and per tracking host, what the mail
/// received tried, from the local store alone.
struct PrivacyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "privacy", abstract: "What the mail you received tried: trackers, remote content, tracked links, read receipts.",
        discussion: "Read from the local store only; nothing is fetched. Messages whose body is not downloaded are counted apart.")

    @Option(help: "How far back, by the date received: 30d, 12h, 2w (default: all stored mail).", transform: PrivacyCommand.duration)
    var since: Duration?
    @OptionGroup var output: OutputOptions

    /// `Nd`, `Nh`, `Nw` or `Nm` (minutes): a positive whole number and its unit.
    static func duration(_ text: String) throws -> Duration {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [Character: Int64] = ["m": 60, "h": 3_600, "d": 86_400, "w": 604_800]
        guard let unit = trimmed.last, let seconds = units[unit], let count = Int64(trimmed.dropLast()), count > 0, count < 100_000 else {
            throw ValidationError("--since takes a count and a unit: 30d, 12h, 2w or 90m")
        }
        return .seconds(count * seconds)
    }

    func run() async throws {
        let report = try await services().privacyReport.report(since: since)
        if output.json { return try printJSON(report) }
        let scope = since == nil ? "all stored mail" : "mail received since \(ISO8601DateFormatter().string(from: report.since ?? Date()))"
        print(
            "\(report.messages) message\(report.messages == 1 ? "" : "s") in \(scope)"
                + (report.messagesWithoutBody > 0 ? " (\(report.messagesWithoutBody) without a downloaded body, not counted)" : ""))
        if report.senders.isEmpty { return print("nothing tried to track you") }
        print("")
        print(
            TextTable(
                header: ["SENDER", "MESSAGES", "PIXELS", "CSS", "FONTS", "REMOTE", "TRACKED LINKS", "RECEIPTS"],
                rows: report.senders.map {
                    [
                        $0.sender, "\($0.messages)", "\($0.imageTrackers)", "\($0.cssTrackers)", "\($0.fontTrackers)", "\($0.remoteLoads)",
                        "\($0.linksTracked)", "\($0.receiptsRequested)"
                    ]
                }
            ).rendered)
        guard !report.trackingHosts.isEmpty else { return }
        print("")
        print(
            TextTable(
                header: ["TRACKING HOST", "MESSAGES", "AS TRACKER", "AS LINK", "SENDERS"],
                rows: report.trackingHosts.map { [$0.host, "\($0.messages)", "\($0.asTracker)", "\($0.asTrackedLink)", "\($0.senders)"] }
            ).rendered)
    }
}
