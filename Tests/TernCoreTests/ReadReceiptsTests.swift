import Foundation
import Testing

@testable import TernCore

/// Issue 37: when a read receipt is asked for, and what it says and whom it is from.
@Suite struct ReadReceiptsTests {
    let zoe = EmailAddress(name: "Zoe", address: "zoe@example.org")

    func judge(
        state: ReadReceiptState? = nil, flagged: Bool = false, bulk: BulkMailMarkers = [], isRead: Bool = true, setting: ReadReceiptSetting = .ask
    ) -> ReadReceiptRequest? {
        ReadReceiptRequest.judge(to: [zoe], state: state, flaggedSentOnServer: flagged, bulkMarkers: bulk, isRead: isRead, setting: setting)
    }

    @Test func anOpenedMessagesRequestIsAsked() {
        #expect(judge() == ReadReceiptRequest(to: [zoe], status: .ask))
        #expect(ReadReceiptRequest.judge(to: [], state: nil, flaggedSentOnServer: false, bulkMarkers: [], isRead: true, setting: .ask) == nil)
    }

    @Test func aReceiptSentHereOrByAnotherClientIsNotAskedAgain() {
        #expect(judge(state: .sent)?.status == .sent)
        #expect(judge(flagged: true)?.status == .sent, "$MDNSent on the server (RFC 3503)")
        #expect(judge(flagged: true, bulk: .listId)?.status == .sent)
        #expect(judge(state: .ignored)?.status == .ignored)
    }

    @Test func listMailUnopenedMailAndNeverAskAreNotAsked() {
        for marker in [BulkMailMarkers.listId, .listUnsubscribe, .bulkPrecedence] {
            #expect(judge(bulk: marker) == ReadReceiptRequest(to: [zoe], status: .refused, refusal: .fromList))
        }
        #expect(judge(isRead: false)?.refusal == .notOpened)
        #expect(judge(setting: .never)?.refusal == .turnedOff)
        #expect(judge(bulk: .autoSubmitted)?.status == .ask, "Auto-Submitted alone is not a list")
    }

    func subject(to: [EmailAddress], cc: [EmailAddress] = []) -> ReadReceiptSubject {
        ReadReceiptSubject(
            emailId: 7, accountId: "acct", messageId: "<plans@example.org>", subject: "Plans", from: zoe, to: to, cc: cc,
            date: Date(timeIntervalSince1970: 0), isRead: true, bulkMarkers: [], receiptTo: [zoe], state: nil, flaggedSentOnServer: false)
    }

    func account() -> Account {
        Account(
            name: "work", emailAddress: "bob@tern.test", displayName: "Bob", provider: .imap,
            imap: ServerEndpoint(host: "imap.tern.test", port: 993, security: .implicitTLS),
            smtp: ServerEndpoint(host: "smtp.tern.test", port: 465, security: .implicitTLS), username: "bob", credential: .passwordCommand("true"),
            aliases: ["bob.alias@tern.test"])
    }

    @Test func theReceiptIsFromTheAddressTheOriginalWasAddressedTo() {
        let toAlias = subject(to: [EmailAddress(address: "Bob.Alias@tern.test")])
        #expect(ReadReceiptUseCase.identity(for: toAlias, account: account()) == EmailAddress(name: "Bob", address: "bob.alias@tern.test"))
        let ccMain = subject(to: [EmailAddress(address: "list@example.org")], cc: [EmailAddress(address: "bob@tern.test")])
        #expect(ReadReceiptUseCase.identity(for: ccMain, account: account()).address == "bob@tern.test")
        let bcc = subject(to: [EmailAddress(address: "someone@example.org")])
        #expect(ReadReceiptUseCase.identity(for: bcc, account: account()).address == "bob@tern.test")
    }

    @Test func theReceiptIsAManualDisplayedMDNToTheRequestsAddress() {
        let identity = EmailAddress(name: "Bob", address: "bob.alias@tern.test")
        let receipt = ReadReceiptUseCase.receipt(for: subject(to: [identity]), from: identity)
        #expect(receipt.to == [zoe])
        #expect(receipt.from == identity)
        #expect(receipt.subject == "Read: Plans")
        #expect(
            receipt.dispositionNotice
                == DispositionNotice(
                    reportingUA: "Tern", finalRecipient: "bob.alias@tern.test", originalMessageId: "<plans@example.org>",
                    disposition: "manual-action/MDN-sent-manually; displayed"))
        #expect(receipt.bodyPlain.contains("displayed"))
    }
}
