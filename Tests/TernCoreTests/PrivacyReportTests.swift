import Foundation
import Testing

@testable import TernCore

/// Issue 37's `tern privacy`: the sums per sender and per tracking host, and facts computed once.
@Suite struct PrivacyReportTests {
    @Test func rowsAreSummedPerSenderAndPerTrackingHost() {
        let rows = [
            PrivacyReportRow(
                sender: "News@Shop.example", receiptRequested: false,
                facts: MessagePrivacyFacts(
                    emailId: 1, imageTrackers: 1, trackerHosts: ["px.example"], remoteHosts: [HostCount(host: "img.example", count: 2)],
                    linksCleaned: 1)),
            PrivacyReportRow(
                sender: "news@shop.example", receiptRequested: true,
                facts: MessagePrivacyFacts(
                    emailId: 2, cssTrackers: 1, fontTrackers: 1, trackerHosts: ["fonts.example", "px.example"],
                    remoteHosts: [HostCount(host: "img.example", count: 1), HostCount(host: "cdn.example", count: 1)], linksTracked: 2,
                    trackedLinkHosts: ["clicks.example"])),
            PrivacyReportRow(
                sender: "deals@store.example", receiptRequested: false,
                facts: MessagePrivacyFacts(emailId: 3, imageTrackers: 1, trackerHosts: ["px.example"], trackedLinkHosts: ["px.example"])),
            PrivacyReportRow(sender: "friend@example.org", receiptRequested: false, facts: MessagePrivacyFacts(emailId: 4)),
            PrivacyReportRow(sender: "friend@example.org", receiptRequested: false, facts: nil)
        ]
        let report = PrivacyReport(rows: rows, since: nil)
        #expect(report.messages == 5 && report.messagesWithoutBody == 1)
        #expect(report.senders.map(\.sender) == ["news@shop.example", "deals@store.example"], "senders who tried nothing are left out")
        var shop = PrivacyReport.Sender(sender: "news@shop.example")
        shop.messages = 2
        shop.imageTrackers = 1
        shop.cssTrackers = 1
        shop.fontTrackers = 1
        shop.remoteLoads = 4
        shop.remoteHosts = [HostCount(host: "img.example", count: 3), HostCount(host: "cdn.example", count: 1)]
        shop.linksCleaned = 1
        shop.linksTracked = 2
        shop.receiptsRequested = 1
        #expect(report.senders[0] == shop)
        #expect(report.trackingHosts.map(\.host) == ["px.example", "clicks.example", "fonts.example"])
        var pixel = PrivacyReport.TrackingHost(host: "px.example")
        pixel.messages = 3
        pixel.asTracker = 3
        pixel.asTrackedLink = 1
        pixel.senders = 2
        #expect(report.trackingHosts[0] == pixel)
    }

    actor Store: PrivacyReportStore {
        var pending: [PrivacyFactsInput]
        var saved: [MessagePrivacyFacts] = []
        init(pending: [PrivacyFactsInput]) { self.pending = pending }

        func messagesWithoutPrivacyFacts(version: Int, limit: Int) -> [PrivacyFactsInput] { Array(pending.prefix(limit)) }
        func savePrivacyFacts(_ facts: [MessagePrivacyFacts], version: Int) {
            saved += facts
            let done = Set(facts.map(\.emailId))
            pending.removeAll { done.contains($0.emailId) }
        }
        func privacyRows(since: Date?) -> [PrivacyReportRow] {
            saved.map { PrivacyReportRow(sender: "a@example.org", receiptRequested: false, facts: $0) }
        }
    }

    struct CountingSanitizer: BodySanitizing {
        func sanitize(html: String, allowRemoteImages: Bool) -> SanitizedBody {
            SanitizedBody(
                html: html, trackersBlocked: 1, trackerHosts: ["px.example"], remoteImagesBlocked: 0, hasQuotedText: false,
                sanitizedToNothing: false, suspiciousLinks: 0, privacy: BodyPrivacy(imageTrackers: 1))
        }
        func renderPlainText(_ text: String) -> SanitizedBody { sanitize(html: text, allowRemoteImages: false) }
        func readableText(fromSanitizedHTML html: String) -> String { html }
    }

    @Test func factsAreComputedForEveryMessageLackingThemInBatches() async throws {
        let inputs = (1...450).map { PrivacyFactsInput(emailId: EmailID(Int64($0)), bodyHTML: $0 % 2 == 0 ? "<img>" : nil) }
        let store = Store(pending: inputs)
        let report = try await PrivacyReportUseCase(store: store, sanitizer: CountingSanitizer()).report(since: nil)
        #expect(await store.pending.isEmpty)
        #expect(report.messages == 450)
        #expect(report.senders.first?.imageTrackers == 225, "plain-text bodies try nothing")
    }
}
