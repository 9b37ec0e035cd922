import Foundation
import TernCore
import TernRuntime
import Testing

/// FR-COMP-01 "Send Validation" with the live syntax (MIME's `RecipientSyntax`): invalid
/// recipients one by one, at least one valid recipient, the two confirmations, the 100 KB body
/// warning and the 25 MB attachment limit that blocks sending.
@Suite struct ComposeValidationTests {
    let validation = ComposeValidationUseCase(syntax: MIMEMailSyntax())

    func draft(
        to: String = "Ana <ana@example.org>", cc: String = "", bcc: String = "", subject: String = "Hi", body: String = "Text",
        attachmentSizes: [Int64] = []
    ) -> ComposeDraft {
        ComposeDraft(
            mode: .new, accountId: "a", from: EmailAddress(address: "me@example.org"), to: validation.recipients(to),
            cc: validation.recipients(cc), bcc: validation.recipients(bcc), subject: subject, body: body,
            attachments: attachmentSizes.enumerated().map { index, size in
                ComposedAttachment(
                    source: .file(path: "/tmp/\(index)"), filename: "\(index).bin", mimeType: "application/octet-stream",
                    sizeBytes: size, availability: .local)
            })
    }

    @Test func aCompleteMessageCanGo() {
        let result = validation.validate(draft())
        #expect(result.canSend)
        #expect(result.invalidRecipients.isEmpty && result.warnings.isEmpty && result.confirmations.isEmpty && result.needSMTPUTF8.isEmpty)
    }

    @Test func eachInvalidRecipientIsReportedAndBlocks() {
        let result = validation.validate(draft(to: "Ana <ana@example.org>, ana silva@example.org", cc: "bo@", bcc: "\"Doe, J\" <j@example.com>"))
        #expect(
            result.invalidRecipients == [
                InvalidRecipient(field: .to, text: "ana silva@example.org", reason: "space in the local part (quote it)"),
                InvalidRecipient(field: .cc, text: "bo@", reason: "no domain after the @")
            ])
        #expect(!result.canSend)
    }

    @Test func atLeastOneValidRecipientInToCcOrBcc() {
        let none = validation.validate(draft(to: ""))
        #expect(none.warnings == [.noRecipients] && !none.canSend)
        #expect(validation.validate(draft(to: "", bcc: "bo@example.net")).canSend)
        #expect(validation.validate(draft(to: "", cc: "\"john smith\"@example.com")).canSend)
    }

    @Test func internationalizedAddressesAreFlaggedForSMTPUTF8() {
        let result = validation.validate(draft(to: "Jörg <jörg@bücher.example>, ana@example.org"))
        #expect(result.canSend)
        #expect(result.needSMTPUTF8 == ["jörg@bücher.example"])
    }

    @Test func confirmationsForNoSubjectAndEmptyBody() {
        let result = validation.validate(draft(subject: "  ", body: "\n \n"))
        #expect(result.confirmations == [.sendWithoutSubject, .sendEmptyMessage])
        #expect(result.confirmations.map(\.question) == ["Send without subject?", "Send empty message?"])
        #expect(result.canSend)
    }

    @Test func bodyOver100KBWarnsWithoutBlocking() {
        #expect(validation.validate(draft(body: String(repeating: "a", count: 100 * 1024))).warnings.isEmpty)
        let result = validation.validate(draft(body: String(repeating: "é", count: 51 * 1024)))
        #expect(result.warnings == [.bodyLarge(bytes: 102 * 1024)])
        #expect(result.canSend)
    }

    @Test func attachmentsOver25MBInTotalBlock() {
        let limit = ComposeValidationUseCase.attachmentLimitBytes
        #expect(validation.validate(draft(attachmentSizes: [limit / 2, limit / 2])).canSend)
        let result = validation.validate(draft(attachmentSizes: [limit / 2, limit / 2 + 1]))
        #expect(result.warnings == [.attachmentsTooLarge(bytes: limit + 1)])
        #expect(!result.canSend)
    }
}
