import Foundation
import Testing

@testable import TernCore

/// Issue 36: `mailto:` links (RFC 6068) read for the composer, the RFC's own examples first, then
/// hostile links: headers smuggled through encoded line breaks, fields that would speak for the
/// person, huge bodies and recipient lists.
struct MailtoURITests {
    func error(_ text: String) -> MailtoURIError? {
        do {
            _ = try MailtoURI(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func theRFCsExamples() throws {
        #expect(try MailtoURI("mailto:chris@example.com") == MailtoURI(to: ["chris@example.com"]))
        #expect(
            try MailtoURI("mailto:infobot@example.com?subject=current-issue")
                == MailtoURI(to: ["infobot@example.com"], subject: "current-issue"))
        #expect(try MailtoURI("mailto:infobot@example.com?body=send%20current-issue").body == "send current-issue")
        #expect(
            try MailtoURI("mailto:infobot@example.com?body=send%20current-issue%0D%0Asend%20index").body
                == "send current-issue\nsend index")
        #expect(
            try MailtoURI("mailto:?to=joe@example.com&cc=bob@example.com&body=hello")
                == MailtoURI(to: ["joe@example.com"], cc: ["bob@example.com"], body: "hello"))
        #expect(try MailtoURI("mailto:joe@example.com?cc=bob@example.com&body=hello").cc == ["bob@example.com"])
        #expect(try MailtoURI("mailto:gorby%25kremvax@example.com").to == ["gorby%kremvax@example.com"])
        #expect(try MailtoURI("mailto:%22not%40me%22@example.org").to == ["\"not@me\"@example.org"])
        #expect(try MailtoURI("mailto:user@example.org?subject=caf%C3%A9").subject == "café")
        #expect(try MailtoURI("MAILTO:a@example.org,b@example.org?to=c@example.org").to == ["a@example.org", "b@example.org", "c@example.org"])
        #expect(try MailtoURI("mailto:a@example.org?bcc=x@example.org,%20y@example.org").bcc == ["x@example.org", "y@example.org"])
        #expect(try MailtoURI("mailto:?subject=1+1%3D2").subject == "1+1=2", "a plus is a plus")
        #expect(try MailtoURI("mailto:").to.isEmpty)
    }

    @Test func fieldsThatWouldSpeakForThePersonAreIgnoredAndNamed() throws {
        let link = try MailtoURI("mailto:a@example.org?from=boss@example.org&Reply-To=evil@example.net&X-Mailer=x&from=again@example.org&subject=Hi")
        #expect(link.to == ["a@example.org"] && link.subject == "Hi")
        #expect(link.ignoredFields == ["from", "reply-to", "x-mailer"])
        #expect(try MailtoURI("mailto:a@example.org?subject=One&subject=Two").subject == "One")
    }

    @Test func encodedLineBreaksInHeaderFieldsRefuseTheLink() {
        #expect(error("mailto:a@example.org?subject=Hi%0D%0ABcc:%20spy@example.net") == .lineBreak(field: "subject"))
        #expect(error("mailto:a@example.org?subject=Hi%0ABcc:%20spy@example.net") == .lineBreak(field: "subject"))
        #expect(error("mailto:a@example.org%0D%0ABcc:spy@example.net") == .lineBreak(field: "to"))
        #expect(error("mailto:a@example.org?cc=b@example.org%0D%0AFrom:x@example.net") == .lineBreak(field: "cc"))
        #expect(error("mailto:a@example.org?bcc=b@example.org%E2%80%A8x") == .lineBreak(field: "bcc"))
        #expect(error("mailto:a@example.org?subject=%00") == .controlCharacter(field: "subject"))
        #expect(error("mailto:a@example.org?subject=%E2%80%AEevil") == .controlCharacter(field: "subject"))
        #expect(error("mailto:a@example.org?subject=%FF") == .badEncoding(field: "subject"))
        #expect(error("mailto:a@example.org?subject=%G1") == .badEncoding(field: "subject"))
        #expect(error("https://example.org") == .notMailto)
    }

    @Test func theBodyKeepsItsLinesAndLosesOtherControls() throws {
        #expect(try MailtoURI("mailto:?body=a%0Db%0D%0Ac%0Ad%09e%00%1Bf").body == "a\nb\nc\nd\tef")
        #expect(try MailtoURI("mailto:?body=Bcc:%20x%0D%0A%0D%0Ahi").body == "Bcc: x\n\nhi", "text in the body is only text")
    }

    @Test func hugeLinksAndRecipientListsAreRefused() {
        let body = String(repeating: "A", count: MailtoURI.maximumLength)
        #expect(error("mailto:a@example.org?body=" + body) == .tooLong)
        let many = (0...MailtoURI.maximumRecipients).map { "u\($0)@example.org" }.joined(separator: ",")
        #expect(error("mailto:" + many) == .tooManyRecipients)
        #expect(error("mailto:a@example.org?body=" + String(repeating: "B", count: 60_000)) == nil)
    }

    @Test func theLinkIsAnEditOfANewMessage() throws {
        let edit = try MailtoURI("mailto:a@example.org,b@example.org?cc=c@example.org&subject=S&body=B").edit
        #expect(edit.to == "a@example.org, b@example.org" && edit.cc == "c@example.org" && edit.bcc == nil)
        #expect(edit.subject == "S" && edit.body == "B" && edit.bodyAboveQuote)
    }
}
