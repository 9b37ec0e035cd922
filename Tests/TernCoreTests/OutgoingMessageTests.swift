import Testing
import TernCore

/// FR-SYNC-07: Bcc never travels in the header (MIMETests' MessageBuilderTests), but it reaches the envelope.
@Suite struct OutgoingMessageTests {
    @Test func bccReachesTheEnvelope() {
        let message = OutgoingMessage(
            from: EmailAddress(address: "zoe@example.fr"), to: [EmailAddress(address: "bob@tern.test")],
            cc: [EmailAddress(address: "Bob@tern.test")], bcc: [EmailAddress(address: "secret@example.org")], subject: "s", bodyPlain: "x")
        #expect(message.envelopeRecipients == ["bob@tern.test", "secret@example.org"])
    }
}
