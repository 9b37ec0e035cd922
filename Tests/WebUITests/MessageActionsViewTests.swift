import Foundation
import TernCore
import Testing

@testable import WebUI

/// NFR-ED-03, ED§7-3 (issue 34): each message's "More actions" menu and its no-script links act on
/// that message, named by its sender and time; "Mark unread from here" names it and the later ones.
@Suite struct MessageActionsViewTests {
    func message(_ id: EmailID, sendState: SendState = .none) -> ConversationMessage {
        let bob = EmailAddress(name: "Bob", address: "bob@example.org")
        return ConversationMessage(
            id: id, messageId: nil, subject: "Plans", from: bob, senderName: "Bob", avatar: SenderAvatar(for: bob), to: [],
            cc: [], date: Date(timeIntervalSince1970: 1_700_000_000), isRead: true, isStarred: false, collapsed: true,
            snippet: "Hi", body: nil, bodyState: .loading, attachments: [], folders: ["INBOX"], sendState: sendState,
            sendError: nil)
    }

    func markup(_ message: ConversationMessage, fromHere: [EmailID]) -> String {
        var view = MessageView(
            message: message, threadId: 9, location: MailLocation(source: .unifiedInbox, threadId: 9), csrfToken: "token",
            time: RelativeTime())
        view.fromHere = fromHere
        return view.render().markup
    }

    @Test func theMenuAndItsLinksActOnThisMessage() throws {
        let page = markup(message(3), fromHere: [3, 4, 5])
        let short = RelativeTime().short(Date(timeIntervalSince1970: 1_700_000_000))
        #expect(
            page.contains(
                "aria-haspopup=\"menu\" aria-expanded=\"false\" aria-controls=\"message-3-menu\" aria-keyshortcuts=\"Shift+F10\" "
                    + "aria-label=\"More actions for the message from Bob, \(short)\""))
        #expect(page.contains("<ul class=\"message-menu\" id=\"message-3-menu\" role=\"menu\""))
        for mode in ["reply", "replyAll", "forward"] {
            #expect(page.components(separatedBy: "compose=\(mode)&amp;message=3").count == 3, "the menu item and the link: \(mode)")
        }
        #expect(page.contains("data-copy-text=\"texts/3?thread=9\""))
        #expect(page.contains("data-submits=\"message-3-star\"") && page.contains("id=\"message-3-star\""))
        #expect(
            page.contains(
                "<input type=\"hidden\" name=\"message\" value=\"3\"><input type=\"hidden\" name=\"message\" value=\"4\">"
                    + "<input type=\"hidden\" name=\"message\" value=\"5\">"))
    }

    @Test func aMessageNotSentYetHasNoReplyActions() {
        let page = markup(message(7, sendState: .queued), fromHere: [])
        #expect(!page.contains("message-menu") && !page.contains("message-links"))
    }
}
