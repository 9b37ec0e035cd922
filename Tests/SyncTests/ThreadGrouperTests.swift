import Foundation
import TernCore
import Testing

@testable import Sync

/// FR-SYNC-06, with the tricky cases of JWZ's threading notes.
struct ThreadGrouperTests {
    static let day: TimeInterval = 24 * 3600
    static let start = Date(timeIntervalSince1970: 1_750_000_000)

    static func message(
        _ id: EmailID, _ messageID: String?, replyTo: [String] = [], references: [String] = [], subject: String = "Plans",
        day: Double = 0, account: AccountID = "a"
    ) -> ThreadingHeaders {
        ThreadingHeaders(
            emailID: id, accountID: account, messageID: messageID, inReplyTo: replyTo, references: references,
            subject: subject, date: start.addingTimeInterval(day * Self.day))
    }

    /// Threads as sorted lists of email ids, sorted, for comparison.
    static func groups(_ messages: [ThreadingHeaders]) -> [[EmailID]] {
        var grouper = ThreadGrouper()
        for message in messages { grouper.add(message) }
        return grouper.threads().map { $0.sorted() }.sorted { $0[0] < $1[0] }
    }

    @Test func repliesJoinTheirOriginal() {
        #expect(
            Self.groups([
                Self.message(1, "a"), Self.message(2, "b", replyTo: ["a"], references: ["a"]),
                Self.message(3, "c", replyTo: ["b"], references: ["a", "b"]), Self.message(4, "x", subject: "Other")
            ]) == [[1, 2, 3], [4]])
    }

    @Test func missingParentsStillConnectThroughReferences() {
        // b is not stored: c and d both descend from it.
        #expect(
            Self.groups([
                Self.message(1, "a"), Self.message(3, "c", replyTo: ["b"], references: ["a", "b"]),
                Self.message(4, "d", references: ["b"])
            ]) == [[1, 3, 4]])
    }

    @Test func aLateParentMergesThreadsThatArrivedBeforeIt() {
        var grouper = ThreadGrouper()
        grouper.add(Self.message(2, "b", replyTo: ["a"]))
        grouper.add(Self.message(3, "c", replyTo: ["a"]))
        #expect(grouper.thread(of: 2) == grouper.thread(of: 3))
        grouper.add(Self.message(5, "x", subject: "Other"))
        grouper.add(Self.message(6, "y", replyTo: ["x"]))
        let before = [grouper.thread(of: 2), grouper.thread(of: 5)]
        // A message that replies to both ancestors' ids through References joins the two.
        let assignment = grouper.add(Self.message(7, "z", replyTo: ["y"], references: ["a", "x", "y"]))
        #expect(grouper.thread(of: 7) == grouper.thread(of: 5))
        // "a" → "x" is not a link: x is a stored message whose own headers give it no parent.
        #expect(grouper.thread(of: 2) != grouper.thread(of: 5))
        #expect(assignment.merged.isEmpty)
        #expect(before.allSatisfy { $0 != nil })
        // The original arriving last takes in both replies.
        let late = grouper.add(Self.message(1, "a"))
        #expect(grouper.thread(of: 1) == grouper.thread(of: 2))
        #expect(late.thread == 1)
        #expect(late.merged == [2])
    }

    @Test func directParentWinsOverAConflictingReferencesUnion() {
        // d's References claim that c (stored, a reply to b2) descends from b1; c's own headers win.
        #expect(
            Self.groups([
                Self.message(1, "b1"), Self.message(2, "b2", subject: "Unrelated"),
                Self.message(3, "c", replyTo: ["b2"], references: ["b2"], subject: "Re: Unrelated"),
                Self.message(4, "d", replyTo: ["c"], references: ["b1", "c"], subject: "Re: Unrelated")
            ]) == [[1], [2, 3, 4]])
    }

    @Test func loopsInReferencesAreIgnored() {
        #expect(
            Self.groups([
                Self.message(1, "a", replyTo: ["b"], references: ["b"]), Self.message(2, "b", replyTo: ["a"], references: ["a"]),
                Self.message(3, "c", references: ["c", "a", "b", "a"])
            ]) == [[1, 2, 3]])
    }

    @Test func selfReferencesAreIgnored() {
        #expect(
            Self.groups([
                Self.message(1, "a", replyTo: ["a"], references: ["a"]), Self.message(2, "b", subject: "Plans later", day: 1)
            ]) == [[1], [2]])
    }

    @Test func duplicateMessageIDsDoNotMergeDifferentMessages() {
        // A bulk mailer that reuses one Message-ID: two newsletters stay apart, and a reply joins the first.
        #expect(
            Self.groups([
                Self.message(1, "same@list", subject: "Issue 1"), Self.message(2, "same@list", subject: "Issue 2", day: 7),
                Self.message(3, "r", replyTo: ["same@list"], subject: "Re: Issue 1", day: 8)
            ]) == [[1, 3], [2]])
    }

    @Test func twoRepliesToOneAnnouncementWithDifferentMissingParentsStayWithTheirOwnParents() {
        // e1 and e2 reply to different (missing) messages that both reply to the stored announcement.
        let groups = Self.groups([
            Self.message(1, "ann", subject: "Announcement"),
            Self.message(2, "e1", replyTo: ["p1"], references: ["ann", "p1"], subject: "Re: Announcement"),
            Self.message(3, "e2", replyTo: ["p2"], references: ["ann", "p2"], subject: "Re: Announcement")
        ])
        // Both descend from the announcement: one conversation tree, as RFC threading defines it.
        #expect(groups == [[1, 2, 3]])
    }

    @Test func subjectFallbackOnlyForMessagesWithoutHeadersWithinThirtyDays() {
        #expect(
            Self.groups([
                Self.message(1, "a", subject: "Lunch"), Self.message(2, "b", subject: "RE: Lunch", day: 2),
                Self.message(3, "c", subject: "Fwd: lunch", day: 20), Self.message(4, "d", subject: "Re: Lunch", day: 80),
                Self.message(5, "e", subject: "Re: Lunch", day: 3, account: "other")
            ]) == [[1, 2, 3], [4], [5]])
    }

    @Test func messagesWithoutAReplyPrefixAreNotMatchedBySubject() {
        // Two issues of a newsletter with one subject, a week apart: two threads.
        #expect(
            Self.groups([
                Self.message(1, "n1", subject: "Your weekly digest"), Self.message(2, "n2", subject: "Your weekly digest", day: 7),
                Self.message(3, "n3", subject: "Re: Your weekly digest", day: 8)
            ]) == [[1], [2, 3]])
    }

    @Test func messagesWithHeadersAreNeverMatchedBySubject() {
        #expect(
            Self.groups([
                Self.message(1, "a", subject: "Status"), Self.message(2, "b", replyTo: ["zzz"], subject: "Re: Status", day: 1)
            ]) == [[1], [2]])
    }

    @Test func sentMessagesThreadWithTheRest() {
        // Our own reply (filed in Sent) and the answer to it, one Email each after dedup.
        #expect(
            Self.groups([
                Self.message(1, "in1"), Self.message(2, "sent1", replyTo: ["in1"], references: ["in1"]),
                Self.message(3, "in2", replyTo: ["sent1"], references: ["in1", "sent1"])
            ]) == [[1, 2, 3]])
    }

    @Test(arguments: [
        ("Re: Hello", "hello"), ("RE: re: Fwd: Hello", "hello"), ("AW: WG: Hallo", "hallo"), ("SV: Hej", "hej"),
        ("Antw: Hoi", "hoi"), ("Réf. : x", "réf. : x"), ("Réf : Bonjour", "bonjour"), ("TR: Bonjour", "bonjour"),
        ("Re[2]: Hello", "hello"), ("Re(3): Hello", "hello"), ("Re^2: Hello", "hello"), ("回复：你好", "你好"),
        ("[dev] Re: Build broken", "[dev] build broken"), ("[dev] Build broken", "[dev] build broken"),
        ("  Re:   Spaced   out  ", "spaced out"), ("Reply needed", "reply needed"), ("Re:", ""), ("Fwd: Re: AW: Odp: x", "x")
    ])
    func subjectsNormalize(_ pair: (String, String)) {
        #expect(SubjectNormalizer.normalize(pair.0) == pair.1)
    }

    @Test func metadataFollowsTheSpec() throws {
        func email(_ id: EmailID, from: String, day: Double, read: Bool, snippet: String?, subject: String) -> Email {
            Email(
                id: id, accountId: "a", messageId: "m\(id)", dedupKey: "k\(id)", subject: subject, fromName: from.uppercased(),
                fromAddress: "\(from)@example.com", dateReceived: Self.start.addingTimeInterval(day * Self.day), snippet: snippet,
                isRead: read)
        }
        let metadata = try #require(
            ThreadMetadata(messages: [
                email(2, from: "bob", day: 1, read: false, snippet: "Sounds good", subject: "Re: Plans"),
                email(1, from: "ann", day: 0, read: true, snippet: "Shall we?", subject: "Plans"),
                email(3, from: "Ann", day: 2, read: false, snippet: "", subject: "Re: Plans")
            ]))
        #expect(metadata.subject == "Plans")
        #expect(metadata.messageCount == 3)
        #expect(metadata.unreadCount == 2)
        #expect(metadata.participants.map(\.address) == ["ann@example.com", "bob@example.com"])
        #expect(metadata.latestDate == Self.start.addingTimeInterval(2 * Self.day))
        #expect(metadata.snippet == "Re: Plans") // the latest has no body text
    }

    @Test func headerIDsParseWithOrWithoutBrackets() {
        #expect(ThreadingHeaders.ids("<a@b> <c@d>\r\n <e@f>") == ["a@b", "c@d", "e@f"])
        #expect(ThreadingHeaders.ids("a@b c@d") == ["a@b", "c@d"])
        #expect(ThreadingHeaders.ids(nil) == [])
    }
}
