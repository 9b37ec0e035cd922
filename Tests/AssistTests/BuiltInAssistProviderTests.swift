import Foundation
import TernCore
import Testing

@testable import Assist

/// The built-in provider's contract (issue 19): a short extractive summary of the thread's own
/// text; at most three replies in the thread's language; none for mail that expects no answer.
@Suite struct BuiltInAssistProviderTests {
    static let user = "alice@tern.test"

    static func message(
        _ text: String, from: String = "priya@ledgerly.test", to: [String] = [user], markers: BulkMailMarkers = [],
        minutes: Double = 0
    ) -> AssistMessage {
        AssistMessage(
            from: EmailAddress(name: nil, address: from), to: to.map { EmailAddress(name: nil, address: $0) }, cc: [],
            date: Date(timeIntervalSince1970: 1_800_000_000 + minutes * 60), subject: "Invoice", text: text, bulkMarkers: markers)
    }

    static func thread(_ messages: AssistMessage...) -> AssistThread {
        AssistThread(subject: "Invoice 2026-118", messages: messages, userAddresses: [user])
    }

    let provider = BuiltInAssistProvider()

    @Test func theSummaryKeepsTheDecisionAndLeavesQuotesOut() async throws {
        let thread = Self.thread(
            Self.message(
                "Hi Priya,\n\nAttached is invoice 2026-118 for 2,340 EUR. Can you approve it?\n\nBest,\nAlice", from: Self.user,
                to: ["priya@ledgerly.test"]),
            Self.message(
                """
                Hi Alice,

                Approved. It will be paid on Friday 14 November.

                Priya

                On Mon, 14 Sep 2026 at 08:02, Alice Martin <alice@tern.test> wrote:
                > Attached is invoice 2026-118 for 2,340 EUR. Secret quoted line.
                """, minutes: 60))
        let summary = try #require(try await provider.summarize(thread))
        #expect(summary.contains("paid on Friday 14 November"))
        #expect(!summary.contains("Secret quoted line") && !summary.contains("Hi Alice"))
        #expect(summary.split(separator: " ").count <= 60)
    }

    @Test func repliesAnswerTheLastMessagesIntentsInItsLanguage() async throws {
        let english = try await provider.suggestReplies(Self.thread(Self.message("Could you approve invoice 2026-118 by Friday?")))
        #expect((1...3).contains(english.count))
        #expect(Set(english.map(\.intent)).isSubset(of: [.question, .actionRequest, .scheduling]))
        let formal = try await provider.suggestReplies(
            Self.thread(
                Self.message(
                    "Sehr geehrte Frau Martin,\n\nkönnten Sie mir bitte das Angebot bis Freitag freigeben? Ich danke Ihnen.")))
        #expect(formal.contains { $0.text == "Gerne, ich kümmere mich darum." })
        let informal = try await provider.suggestReplies(
            Self.thread(Self.message("Hallo Alice,\n\nkannst du mir bitte bis Freitag das Angebot schicken?")))
        #expect(informal.contains { $0.text == "Klar, ich kümmere mich darum." })
        let french = try await provider.suggestReplies(Self.thread(Self.message("Bonjour Alice,\n\nMerci beaucoup pour ton aide hier soir !")))
        #expect(french.first?.intent == .thanks && french.first?.text == "Avec plaisir !")
    }

    @Test(arguments: [
        ("user wrote last", BuiltInAssistProviderTests.message("Thanks, see you Friday.", from: user, to: ["priya@ledgerly.test"]), "userWroteLast"),
        ("list mail", BuiltInAssistProviderTests.message("Can you join our webinar?", markers: .listUnsubscribe), "bulkHeaders"),
        ("no-reply sender", BuiltInAssistProviderTests.message("Can you rate your delivery?", from: "no-reply@parcel.test"), "automatedSender"),
        ("automated text", BuiltInAssistProviderTests.message("Your code is 1234.\n\nPlease do not reply to this email."), "automatedText"),
        ("sent to a list", BuiltInAssistProviderTests.message("Can everyone bring a dish?", to: ["staff@northwind.test"]), "notAddressedToUser"),
        (
            "Italian", BuiltInAssistProviderTests.message("Ciao Alice, potresti mandarmi il preventivo entro venerdì? Grazie mille, a presto."),
            "unsupportedLanguage"
        )
    ])
    func noReplyIsSuggestedWhereNoneIsExpected(name: String, last: AssistMessage, reason: String) async throws {
        let thread = Self.thread(last)
        #expect(try await provider.suggestReplies(thread).isEmpty, "\(name)")
        #expect(provider.analyse(thread).silentBecause == reason)
    }

    @Test func bulkMarkersAreReadFromHeaders() {
        let headers = ["list-unsubscribe": "<https://x.test/u>", "precedence": "bulk", "auto-submitted": "auto-generated"]
        #expect(BulkMailMarkers.from { headers[$0.lowercased()] } == [.listUnsubscribe, .bulkPrecedence, .autoSubmitted])
        #expect(BulkMailMarkers.from { ["auto-submitted": "no"][$0.lowercased()] } == [])
    }
}
