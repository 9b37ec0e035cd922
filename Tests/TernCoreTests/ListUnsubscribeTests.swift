import Foundation
import Testing

@testable import TernCore

/// Issue 36: what a list's `List-Unsubscribe` (RFC 2369) and `List-Unsubscribe-Post` (RFC 8058)
/// offer, read from a stranger's header.
@Suite struct ListUnsubscribeTests {
    func parse(_ value: String?, post: String? = nil, listId: String? = nil) -> ListUnsubscribeMethods? {
        ListUnsubscribeMethods.parse(ListHeaderFields(listUnsubscribe: value, listUnsubscribePost: post, listId: listId))
    }

    @Test func oneClickNeedsHTTPSAndThePostField() throws {
        let both = try #require(
            parse("<mailto:leave@lists.example.org?subject=unsubscribe>, <https://lists.example.org/u/abc?x=1>", post: "List-Unsubscribe=One-Click"))
        #expect(both.oneClick?.absoluteString == "https://lists.example.org/u/abc?x=1")
        #expect(both.mailto == MailtoUnsubscribe(address: "leave@lists.example.org", subject: "unsubscribe", body: ""))
        #expect(both.preferred == .oneClick(URL(string: "https://lists.example.org/u/abc?x=1")!), "RFC 8058: one-click first")

        let noPost = try #require(parse("<https://lists.example.org/u/abc>"))
        #expect(noPost.oneClick == nil && noPost.webPage == "https://lists.example.org/u/abc" && !noPost.isActionable)

        let plainHTTP = try #require(parse("<http://lists.example.org/u/abc>", post: "List-Unsubscribe=One-Click"))
        #expect(plainHTTP.oneClick == nil, "one-click only over https")
        #expect(parse("<https://lists.example.org/u>", post: "List-Unsubscribe=Yes")?.oneClick == nil)
        #expect(parse("<https://lists.example.org/u>", post: " list-unsubscribe = one-click ")?.oneClick != nil)
    }

    @Test func foldedURIsAndCommentsAreRead() throws {
        let folded = try #require(
            parse("(comment) <https://lists.example.org/u/\r\n ab\tc>,\r\n\t<mailto:x@y.example>", post: "List-Unsubscribe=One-Click"))
        #expect(folded.oneClick?.absoluteString == "https://lists.example.org/u/abc")
        #expect(folded.mailto?.address == "x@y.example")
        #expect(parse("no brackets at all") == nil)
        #expect(parse(nil) == nil)
        #expect(parse("<>, <ftp://example.com/x>") == nil)
    }

    @Test func credentialsInAnAddressAreRefused() {
        #expect(parse("<https://user:pw@lists.example.org/u>", post: "List-Unsubscribe=One-Click")?.oneClick == nil)
    }

    @Test func mailtoKeepsOnlyTheAddressSubjectAndBodyCleaned() throws {
        let hostile = try #require(
            parse("<mailto:a@b.example?subject=x%0D%0ABcc:%20victim@example.com&cc=evil@example.com&bcc=evil2@example.com&body=hi%00there%0Abye>"))
        let mail = try #require(hostile.mailto)
        #expect(mail.address == "a@b.example")
        #expect(!mail.subject.contains("\r") && !mail.subject.contains("\n"))
        #expect(mail.body == "hithere\nbye")
        #expect(parse("<mailto:not an address>") == nil)
        #expect(parse("<mailto:a@b.example,c@d.example>")?.mailto?.address == "a@b.example", "one address only")
        #expect(parse("<mailto:?to=list@example.org>")?.mailto?.address == "list@example.org")
        #expect(parse("<mailto:\"a b\"@example.org>")?.mailto == nil)
        let capped = try #require(parse("<mailto:a@b.example?subject=\(String(repeating: "x", count: 500))>")?.mailto)
        #expect(capped.subject.count == 200)
    }

    @Test func theListIsKnownByItsListIdElseItsAddress() throws {
        let named = try #require(parse("<mailto:a@b.example>", listId: "\"Example News\" <News.Example.ORG>"))
        #expect(named.listId == "news.example.org" && named.listName == "Example News" && named.listKey == "news.example.org")
        #expect(parse("<mailto:A@B.example>")?.listKey == "mailto:a@b.example")
        #expect(parse("<https://L.example.org/u/1?t=2>", post: "List-Unsubscribe=One-Click")?.listKey == "https://l.example.org/u/1")
    }

    @Test func manyOrHugeURIsAreCapped() {
        let many = (0..<100).map { "<mailto:a\($0)@b.example>" }.joined(separator: ",")
        #expect(ListUnsubscribeMethods.bracketedURIs(many).count == ListUnsubscribeMethods.maxURIs)
        let huge = "<https://example.org/" + String(repeating: "a", count: 100_000) + ">"
        #expect(ListUnsubscribeMethods.bracketedURIs(huge).isEmpty)
    }
}
