import Foundation
import TernCore
import Testing

@testable import WebUI

/// CO01-M1 (issue 34): with two or more accounts the composer's From is a labelled select of every
/// account, the draft's own account chosen; with one, it stays text and the account a hidden field.
@Suite struct ComposerViewTests {
    func account(_ name: AccountName, displayName: String? = nil) -> Account {
        var account = Account(
            id: AccountID("id-\(name)"), name: name, emailAddress: "\(name)@example.org", provider: .imap,
            imap: ServerEndpoint(host: "imap.example.org", port: 993, security: .implicitTLS),
            smtp: ServerEndpoint(host: "smtp.example.org", port: 587, security: .startTLS),
            username: name.rawValue, credential: .passwordEnvironment("TERN_TEST_PW"))
        account.displayName = displayName
        return account
    }

    func markup(senders: [Account], draft: ComposeDraft) -> String {
        ComposerView(
            draft: draft, target: ComposeTarget(mode: draft.mode, messageId: draft.originalEmailId),
            location: MailLocation(source: .unifiedInbox), csrfToken: "token", account: "bob", senders: senders, undoSeconds: 0
        )
        .render().markup
    }

    @Test func severalAccountsGiveAFromPickerWithTheDraftsAccountChosen() {
        let alice = account("alice", displayName: "Alice <A>")
        let bob = account("bob")
        let draft = ComposeDraft(mode: .reply, accountId: bob.id, from: EmailAddress(name: nil, address: "bob-alias@example.org"), originalEmailId: 4)
        let page = markup(senders: [bob, alice], draft: draft)
        #expect(page.contains("<label for=\"compose-from\">From</label><select id=\"compose-from\" name=\"account\">"))
        #expect(
            page.contains(
                "<option value=\"alice\">Alice &lt;A&gt; &lt;alice@example.org&gt;</option><option value=\"bob\" selected>bob-alias@example.org</option>"
            ))
        #expect(!page.contains("name=\"account\" value="), "the select is the form's only account")
    }

    @Test func oneAccountKeepsTheSenderAsText() {
        let bob = account("bob")
        let page = markup(senders: [bob], draft: ComposeDraft(mode: .new, accountId: bob.id, from: EmailAddress(address: "bob@example.org")))
        #expect(page.contains("<p class=\"composer-from\">From <span>bob@example.org</span></p>"))
        #expect(page.contains("<input type=\"hidden\" name=\"account\" value=\"bob\">"))
        #expect(!page.contains("<select"))
    }
}
