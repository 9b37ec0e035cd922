import Foundation
import GRDB
import Synchronization
import TernCore
import TernRuntime
import Testing

@testable import MailStore

/// FR-ED-01..05 on the real store: opening a thread (mark read before any network work, pages,
/// expand/collapse, offline bodies), rendering with trusted senders, archive/delete undo, and the
/// change feed. IMAP is a double; the real server is in SystemTests/integration/test_reading.py.
struct ReadingTests {
    let database: TernDatabase
    let account = Fixtures.account()
    let inbox: Folder
    let clock = ManualClock()
    let server = ScriptedServer()
    let engine = RecordingEngine()
    let changes = ChangeFeed()

    init() async throws {
        database = try TernDatabase.temporary()
        inbox = try await database.writer.write { [account] db in
            try account.insert(db)
            var inbox = Folder(accountId: account.id, path: "INBOX", folderType: .inbox)
            try inbox.insert(db)
            var all = Folder(accountId: account.id, path: "[Gmail]/All Mail", folderType: .all)
            try all.insert(db)
            return inbox
        }
    }

    // MARK: Fixtures

    /// A thread of `count` messages a minute apart (the oldest first), `unread` of them unread;
    /// with bodies unless `withoutBodies`. Returns the thread id and the email ids, oldest first.
    @discardableResult
    func thread(
        _ count: Int, unread: Set<Int> = [], html: String? = nil, from: String = "zoe@example.fr",
        withoutBodies: Set<Int> = [], firstUID: Int64 = 1, subject: String = "Budget",
        authenticationResults: [AuthenticationResults]? = nil
    ) async throws -> (thread: ThreadID, emails: [EmailID]) {
        let root = "<root-\(UUID().uuidString)@example.org>"
        var messages: [IncomingMessage] = []
        for index in 0..<count {
            let id = index == 0 ? root : "<reply-\(index)-\(UUID().uuidString)@example.org>"
            var email = Fixtures.email(accountId: account.id, messageId: id)
            email.fromAddress = from
            email.subject = index == 0 ? subject : "Re: \(subject)"
            email.authenticationResults = authenticationResults
            email.inReplyTo = index == 0 ? nil : root
            email.references = index == 0 ? nil : root
            email.dateSent = Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 60)
            email.bodyStructure = "{}"
            if !withoutBodies.contains(index) {
                email.bodiesFetched = true
                email.bodyPlain = "Message \(index) of the thread.\n> quoted history"
                email.bodyHTML = html
                email.snippet = "Message \(index) of the thread."
            }
            messages.append(IncomingMessage(email: email, uid: firstUID + Int64(index), serverFlags: unread.contains(index) ? [] : ["\\Seen"]))
        }
        let stored = try await SQLiteMessageStore(database: database).store(messages, folderId: inbox.id!)
        let ids = stored.newMessages.map(\.emailId)
        let threadId = try await database.writer.read { db in
            try ThreadID.fetchOne(db, sql: "SELECT threadId FROM email WHERE id = ?", arguments: [ids[0]])
        }
        return (try #require(threadId), ids)
    }

    var actions: MailActionsUseCase {
        let store = SQLiteMailActionStore(database: database)
        return MailActionsUseCase(
            accounts: SQLiteAccountRepository(database: database), credentials: .unusable,
            store: store, processor: PendingOperationProcessor(store: store, server: server, clock: clock),
            changes: changes, clock: clock)
    }

    func openThread(settings: [SettingKey: String] = [:], metered: Bool? = nil) async throws -> OpenThreadUseCase {
        let settingsStore = SQLiteSettingsStore(database: database)
        for (key, value) in settings { try await settingsStore.setValue(value, for: key) }
        let trusted = SQLiteTrustedSenderStore(database: database)
        let bodies = FetchThreadBodiesUseCase(
            accounts: SQLiteAccountRepository(database: database), credentials: .unusable,
            store: SQLiteSyncStore(database: database), synchronizer: engine, changes: changes)
        return OpenThreadUseCase(
            queries: SQLiteMailQueries(database: database), actions: actions, bodies: bodies,
            renderer: RenderMessageUseCase(sanitizer: HTMLSafetyBodySanitizer(), trustedSenders: trusted), trustedSenders: trusted,
            attachmentWarnings: AttachmentWarningsUseCase(settings: settingsStore, detector: FixedMeteredState(metered: metered)))
    }

    func inboxCopies() async throws -> Int {
        try await database.writer.read { [inbox] db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM emailFolder WHERE folderId = ?", arguments: [inbox.id])
        } ?? -1
    }

    func isRead(_ emailId: EmailID) async throws -> Bool {
        try await database.writer.read { db in try Bool.fetchOne(db, sql: "SELECT isRead FROM email WHERE id = ?", arguments: [emailId]) } ?? false
    }

    func conversation(_ opening: ThreadOpening) throws -> (Conversation, ConversationNetworkWork?) {
        guard case .opened(let conversation, let network) = opening else {
            Issue.record("expected a conversation")
            throw TernError.notFound("conversation")
        }
        return (conversation, network)
    }

    // MARK: FR-ED-01

    @Test func openingMarksUnreadReadInTheStoreBeforeAnyNetworkWorkThenPushesSeen() async throws {
        let (threadId, emails) = try await thread(3, unread: [1, 2], withoutBodies: [2])
        engine.holdFetches()
        let (conversation, network) = try conversation(try await openThread()(threadId: threadId))
        // The page came back while the body fetch is still held: the store is already read.
        let readNow = (try await isRead(emails[1]), try await isRead(emails[2]))
        #expect(readNow == (true, true))
        #expect(server.performed.isEmpty, "nothing reached the server before the page was returned")
        #expect(conversation.messages.map(\.id) == emails)
        #expect(conversation.messages[2].bodyState == .loading)
        engine.releaseFetches()
        let outcome = try #require(await network?.outcome())
        #expect(outcome.bodiesFetched == 1 && !outcome.offline)
        let seen = server.performed.compactMap { operation -> Int64? in
            if case .store(let flag, let add, _, let uid) = operation.action, flag == "\\Seen", add { return uid }
            return nil
        }
        #expect(Set(seen) == [2, 3], "\\Seen pushed for the two unread copies")
    }

    @Test func readMessagesCollapseUnreadOnesExpandAndTheLatestWhenAllAreRead() async throws {
        let (mixed, _) = try await thread(4, unread: [1, 2], firstUID: 1)
        let (open1, _) = try conversation(try await openThread()(threadId: mixed, options: .init(markRead: false, fetchMissingBodies: false)))
        #expect(open1.messages.map(\.collapsed) == [true, false, false, true])
        #expect(open1.messages[0].body == nil && open1.messages[0].snippet == "Message 0 of the thread.")
        #expect(open1.messages[1].body?.text.contains("Message 1") == true)

        let (allRead, _) = try await thread(3, firstUID: 100)
        let (open2, _) = try conversation(try await openThread()(threadId: allRead, options: .init(markRead: false)))
        #expect(open2.messages.map(\.collapsed) == [true, true, false])
        let expanded = try #require(open2.messages.last)
        #expect(expanded.senderName == "Zoë" && expanded.avatar.initials == "Z" && SenderAvatar.palette.contains(expanded.avatar.color))
        #expect(expanded.avatar == SenderAvatar(for: EmailAddress(name: "Zoë", address: "ZOE@example.fr")), "the colour follows the address")
    }

    @Test func aThreadWithoutMessagesIsItsOwnResult() async throws {
        let threadId = try await database.writer.write { [account] db in
            var thread = MailThread(accountId: account.id, subject: "Nothing", normalizedSubject: "nothing", latestDate: Date(), earliestDate: Date())
            try thread.insert(db)
            return thread.id!
        }
        guard case .empty(let id) = try await openThread()(threadId: threadId) else {
            Issue.record("E-08: an empty thread is not an empty success")
            return
        }
        #expect(id == threadId)
        await #expect(throws: TernError.notFound("thread 999999")) { try await openThread()(threadId: 999_999) }
    }

    // MARK: FR-ED-05

    @Test func aSixtyMessageThreadOpensOnItsNewest25PlusTheLatestUnreadAndPagesBy25() async throws {
        let (threadId, emails) = try await thread(60, unread: [5])
        let (first, _) = try conversation(try await openThread()(threadId: threadId, options: .init(markRead: false)))
        #expect(first.messageCount == 60)
        #expect(first.messages.count == 26)
        #expect(first.messages.first?.id == emails[5], "the latest unread, wherever it is")
        #expect(first.messages.dropFirst().map(\.id) == Array(emails[35...]))
        #expect(first.earlierCount == 34 && first.hasEarlier)

        let (page1, remaining1) = try await openThread().earlier(threadId: threadId, page: 1)
        #expect(page1.map(\.id) == Array(emails[10..<35]))
        #expect(remaining1 == 9, "10 older, one of which (the unread) is already shown")
        let (page2, remaining2) = try await openThread().earlier(threadId: threadId, page: 2)
        #expect(page2.map(\.id) == Array(emails[0..<10]).filter { $0 != emails[5] })
        #expect(remaining2 == 0)

        let (two, _) = try conversation(try await openThread()(threadId: threadId, options: .init(markRead: false, earlierPages: 1)))
        #expect(two.messages.count == 51 && two.earlierCount == 9)
    }

    @Test func fiftyMessagesAreNotPaged() async throws {
        let (threadId, _) = try await thread(50)
        let (conversation, _) = try conversation(try await openThread()(threadId: threadId, options: .init(markRead: false)))
        #expect(conversation.messages.count == 50 && !conversation.hasEarlier)
    }

    // MARK: E-05

    @Test func offlineTheThreadStillOpensWithCachedBodiesAndSaysWhichAreMissing() async throws {
        let (threadId, emails) = try await thread(3, withoutBodies: [0, 2])
        engine.failFetches(with: .connectionLost("network unreachable"))
        let opening = try await openThread()(threadId: threadId, options: .init(expandAll: true))
        let (conversation, network) = try conversation(opening)
        #expect(conversation.messages.map(\.bodyState) == [.loading, .available, .loading])
        let outcome = try #require(await network?.outcome())
        #expect(outcome.offline && outcome.bodyError == .connectionLost("network unreachable"))
        let (again, _) = try self.conversation(
            try await openThread()(
                threadId: threadId,
                options: .init(
                    markRead: false, expandAll: true,
                    fetchMissingBodies: false)))
        #expect(again.messages.map(\.bodyState) == [.unavailableOffline, .available, .unavailableOffline])
        #expect(again.messages[1].id == emails[1] && again.messages[1].body != nil)
    }

    // MARK: FR-ED-04

    static let newsletter = """
        <p>Hello <img src="https://images.example.com/banner.png" alt="banner"></p>
        <img src="https://www.google-analytics.com/collect?v=1" width="1" height="1">
        <script>alert(1)</script><a href="https://example.com/">read</a>
        """

    @Test func remoteImagesLoadOnlyWhenAllowedAndTrackersAreStrippedEitherWay() async throws {
        let (threadId, emails) = try await thread(1, unread: [0], html: Self.newsletter, from: "news@shop.example")
        let open = try await openThread()
        let (blocked, _) = try conversation(try await open(threadId: threadId, options: .init(markRead: false)))
        let body = try #require(blocked.messages[0].body)
        #expect(body.remoteImagesBlocked == 1 && !body.remoteImagesLoaded && body.trackersBlocked == 1)
        #expect(body.html?.contains("images.example.com") == false && body.html?.contains("<script") == false)

        let allowed = try await open.message(emails[0], threadId: threadId, loadRemoteImages: true).body
        #expect(allowed?.remoteImagesLoaded == true && allowed?.html?.contains("images.example.com/banner.png") == true)
        #expect(allowed?.trackersBlocked == 1 && allowed?.html?.contains("google-analytics") == false, "E-06")

        let trusted = TrustedSendersUseCase(store: SQLiteTrustedSenderStore(database: database), changes: changes, clock: clock)
        _ = try await trusted.add("News@Shop.example")
        let (fromTrusted, _) = try conversation(try await open(threadId: threadId, options: .init(markRead: false)))
        let trustedBody = try #require(fromTrusted.messages[0].body)
        #expect(trustedBody.senderTrusted && trustedBody.remoteImagesLoaded && trustedBody.trackersBlocked == 1, "E-12")
        #expect(try await trusted.list().map(\.senderEmail) == ["news@shop.example"])
        try await trusted.remove("news@shop.example")
        await #expect(throws: TernError.notFound("trusted sender 'news@shop.example'")) { try await trusted.remove("news@shop.example") }
        _ = try await trusted.add("a@example.org")
        _ = try await trusted.add("b@example.org")
        #expect(try await trusted.clear() == 2)
        #expect(try await trusted.list().isEmpty)
        await #expect(throws: TernError.self) { try await trusted.add("example.org") }
    }

    /// Issue 32: a trusted address in From loads images only when the account's provider vouched for
    /// it; the results are stored at sync, so setting the authserv-id applies to mail already here.
    @Test func aTrustedSendersImagesLoadOnlyWhenTheProviderVerifiedTheFrom() async throws {
        func results(_ authservId: String, dmarc: String) -> [AuthenticationResults] {
            [
                AuthenticationResults(
                    authservId: authservId, results: [.init(method: "dmarc", result: dmarc, properties: ["header.from": "shop.example"])])
            ]
        }
        let cases: [(name: String, results: [AuthenticationResults]?, verdict: SenderAuthentication.Verdict, loads: Bool)] = [
            ("verified", results("mail.example.org", dmarc: "pass"), .verified, true),
            ("failed", results("mail.example.org", dmarc: "fail"), .failed, false),
            ("forged", results("spoof.example", dmarc: "pass"), .unknown, false),
            ("none", [], .unknown, false),
            ("before v15", nil, .unknown, false)
        ]
        var threads: [String: (thread: ThreadID, emails: [EmailID])] = [:]
        for (index, item) in cases.enumerated() {
            threads[item.name] = try await thread(
                1, html: Self.newsletter, from: "news@shop.example", firstUID: Int64(10 + index),
                subject: "Sale \(item.name)", authenticationResults: item.results)
        }
        _ = try await TrustedSendersUseCase(store: SQLiteTrustedSenderStore(database: database), changes: changes, clock: clock).add(
            "news@shop.example")
        let open = try await openThread()
        func first(_ name: String) async throws -> ConversationMessage {
            try conversation(try await open(threadId: threads[name]!.thread, options: .init(markRead: false))).0.messages[0]
        }

        // A generic server and no authserv-id set: as before issue 32, but said to be unverified.
        for item in cases {
            let message = try await first(item.name)
            #expect(message.body?.remoteImagesLoaded == true && message.body?.senderTrusted == true, "\(item.name)")
            #expect(message.senderAuthentication == SenderAuthentication(verdict: .unknown, authservId: nil), "\(item.name)")
        }

        let settings = AccountSettingsUseCase(accounts: SQLiteAccountRepository(database: database))
        _ = try await settings.setAuthservId("Mail.Example.ORG", accountName: account.name)
        for item in cases {
            let message = try await first(item.name)
            #expect(message.senderAuthentication == SenderAuthentication(verdict: item.verdict, authservId: "mail.example.org"), "\(item.name)")
            #expect(message.body?.remoteImagesLoaded == item.loads, "\(item.name)")
            #expect(message.body?.senderTrusted == true && message.body?.remoteImagesBlocked == (item.loads ? 0 : 1), "\(item.name)")
            // The user's own "Load remote images" for this message still works.
            let allowed = try await open.message(threads[item.name]!.emails[0], threadId: threads[item.name]!.thread, loadRemoteImages: true)
            #expect(allowed.body?.remoteImagesLoaded == true, "\(item.name)")
        }
        await #expect(throws: TernError.self) { try await settings.setAuthservId("mx; dkim=pass", accountName: account.name) }
        _ = try await settings.setAuthservId("", accountName: account.name)
        #expect(try await first("failed").body?.remoteImagesLoaded == true, "cleared: back to the provider's (none for a generic server)")
    }

    @Test func anHTMLBodyThatSanitizesToNothingFallsBackToThePlainBody() async throws {
        let (threadId, _) = try await thread(1, html: "<script>only()</script><iframe src=x></iframe>")
        let (conversation, _) = try conversation(try await openThread()(threadId: threadId, options: .init(markRead: false)))
        let body = try #require(conversation.messages[0].body)
        #expect(body.fellBackToPlainText && body.text.hasPrefix("Message 0") && body.hasQuotedText)
    }

    // MARK: FR-ED-03

    @Test func attachmentWarningsFollowTheSpecTableAndTheMeteredSetting() async throws {
        #expect(AttachmentWarning.before(downloading: "setup.EXE", size: 10, metered: false).map(\.text) == ["This file is a Windows executable."])
        #expect(AttachmentWarning.before(downloading: "photos.tar.gz", size: 10, metered: false).map(\.kind) == [.archive])
        #expect(AttachmentWarning.before(downloading: "run.sh", size: 10, metered: false).map(\.text) == ["This file can run code on your Mac."])
        #expect(AttachmentWarning.before(downloading: "x.js", size: 1, metered: false).map(\.kind) == [.script])
        #expect(AttachmentWarning.before(downloading: "app.apk", size: 1, metered: false).map(\.kind) == [.androidPackage])
        #expect(AttachmentWarning.before(downloading: "report.pdf", size: 30 << 20, metered: false).isEmpty)
        #expect(
            AttachmentWarning.before(downloading: "archive.zip", size: 30 << 20, metered: true).map(\.text)
                == ["This archive may contain executable files.", "This attachment is 30 MB. Download on cellular?"], "both, stacked")
        #expect(AttachmentWarning.before(downloading: "small.pdf", size: (25 << 20) - 1, metered: true).isEmpty)

        let settings = SQLiteSettingsStore(database: database)
        let detectedMetered = AttachmentWarningsUseCase(settings: settings, detector: FixedMeteredState(metered: true))
        let meteredBySystem = await detectedMetered.isMetered()
        #expect(meteredBySystem)
        try await SettingsUseCase(store: settings).set(.meteredConnection, to: "no")
        let overridden = await detectedMetered.isMetered()
        #expect(!overridden, "the setting overrides the system")
        try await SettingsUseCase(store: settings).set(.meteredConnection, to: "yes")
        let forced = await AttachmentWarningsUseCase(settings: settings, detector: FixedMeteredState(metered: nil)).isMetered()
        #expect(forced)
    }

    @Test func settingsAreTypedAndRefuseValuesTheyDoNotTake() async throws {
        let settings = SettingsUseCase(store: SQLiteSettingsStore(database: database), changes: changes)
        #expect(try await settings.current() == TernSettings())
        try await settings.set(.undoSendDelay, to: "10")
        try await settings.set(.bodyDownload, to: "recent:7")
        #expect(try await settings.current().undoSendDelay == 10)
        #expect(try await settings.current().bodyDownload == .recent(days: 7))
        await #expect(throws: TernError.invalidSetting(SettingError(key: .undoSendDelay, value: "7", choices: ["0", "5", "10", "15", "30"]))) {
            try await settings.set(.undoSendDelay, to: "7")
        }
        try await settings.reset(.undoSendDelay)
        #expect(try await settings.list().first { $0.key == .undoSendDelay }?.value == "5")
    }

    /// Issue 39: the appearance settings, stored like the others.
    @Test func appearanceSettingsAreStoredAndRefuseOtherValues() async throws {
        let settings = SettingsUseCase(store: SQLiteSettingsStore(database: database), changes: changes)
        let defaults = try await settings.current()
        #expect(defaults.theme == .system && defaults.density == .comfortable && defaults.textSize == 100)
        try await settings.set(.theme, to: "Dark")
        try await settings.set(.density, to: "compact")
        try await settings.set(.textSize, to: "200%")
        let current = try await settings.current()
        #expect(current.theme == .dark && current.density == .compact && current.textSize == 200)
        #expect(try await settings.list().first { $0.key == .textSize }?.value == "200")
        await #expect(throws: TernError.invalidSetting(SettingError(key: .theme, value: "sepia", choices: ["system", "light", "dark"]))) {
            try await settings.set(.theme, to: "sepia")
        }
        await #expect(throws: TernError.self) { try await settings.set(.textSize, to: "90") }
    }

    // MARK: FR-ED-01 Undo

    @Test func anArchiveUndoneInsideItsWindowNeverReachesTheServer() async throws {
        let (threadId, emails) = try await thread(2)
        let actions = actions
        let result = try await actions.archive([.thread(threadId)], undoWindow: .seconds(5))
        #expect(result.undo != nil && server.performed.isEmpty)
        #expect(try await inboxCopies() == 0, "gone from the Inbox at once")
        // Pushes inside the window, even "try now", send nothing.
        clock.advance(seconds: 4)
        _ = try await PendingOperationProcessor(store: SQLiteMailActionStore(database: database), server: server, clock: clock)
            .process(account: account, credentials: .unused, ignoreBackoff: true)
        #expect(server.performed.isEmpty)
        let undone = try await actions.undo()
        #expect(undone.threadIds == [threadId])
        #expect(try await inboxCopies() == emails.count, "back in the Inbox")
        clock.advance(seconds: 10)
        _ = try await PendingOperationProcessor(store: SQLiteMailActionStore(database: database), server: server, clock: clock)
            .process(account: account, credentials: .unused)
        #expect(server.performed.isEmpty, "nothing was left to push")
        await #expect(throws: TernError.nothingToUndo) { try await actions.undo() }
    }

    @Test func aDeleteIsPushedWhenItsWindowHasPassedAndCanNoLongerBeUndone() async throws {
        let (threadId, _) = try await thread(1)
        let actions = actions
        let result = try await actions.delete([.thread(threadId)], undoWindow: .seconds(5))
        clock.advance(seconds: 5.5)
        await #expect(throws: TernError.nothingToUndo) { try await actions.undo(result.undo?.token) }
        // A process that died in the window: the next push (any process) sends it.
        let report = try await PendingOperationProcessor(store: SQLiteMailActionStore(database: database), server: server, clock: clock)
            .process(account: account, credentials: .unused)
        #expect(report.done == 1 && server.performed.count == 1)
        guard case .move(_, _, let target, _) = server.performed.first?.action else {
            Issue.record("a delete is a move to Trash")
            return
        }
        #expect(target == "Trash")
    }

    @Test func noUndoWindowPushesAtOnce() async throws {
        let (threadId, _) = try await thread(1)
        let result = try await actions.archive([.thread(threadId)], undoWindow: nil)
        #expect(result.undo == nil && result.action.pushed == 1 && server.performed.count == 1)
    }

    /// E-10, E-11: an archive whose undo window ended while no action was pushing it goes out with
    /// the next sync; the server refuses it; the front end hears "Couldn't archive" on the feed.
    @Test func aChangeRefusedOnTheSyncsPushIsReportedOnTheFeed() async throws {
        let (threadId, _) = try await thread(1)
        let actions = actions
        _ = try await actions.archive([.thread(threadId)], undoWindow: .seconds(5))
        clock.advance(seconds: 6)
        server.answer(.refused("NO [CANNOT] the mailbox is read-only"))
        let store = SQLiteMailActionStore(database: database)
        let pusher = LocalChangesPusher(
            credentials: .unusable, operations: PendingOperationProcessor(store: store, server: server, clock: clock),
            queue: SendQueueProcessor(
                store: SQLiteOutboxStore(database: database), submitter: ScriptedSubmitter(), server: server,
                folders: store, clock: clock),
            lock: NoLocks())
        let stream = changes.changes()
        let sync = SyncAccountsUseCase(
            accounts: SQLiteAccountRepository(database: database), credentials: .unusable, synchronizer: engine,
            pusher: pusher, changes: changes, failedChanges: actions)
        _ = try await sync(account: nil) { _ in }
        var failure: PendingChangeSummary?
        for await change in stream {
            if case .changeFailed(let summary) = change {
                failure = summary
                break
            }
        }
        #expect(failure?.kind == .archive)
        #expect(try await inboxCopies() == 1, "reverted: the thread is back in the Inbox")
    }

    // MARK: The change feed

    @Test func changesMadeInOneTaskReachASubscriberInAnother() async throws {
        let (threadId, emails) = try await thread(2, unread: [1], withoutBodies: [1])
        let subscriber = Task { [changes] in
            var seen: [MailChange] = []
            for await change in changes.changes() {
                seen.append(change)
                if seen.contains(where: { if case .syncState(_, .idle, _) = $0 { true } else { false } }) { break }
            }
            return seen
        }
        while changes.subscriberCount == 0 { await Task.yield() }
        // The sync engine, in a task of its own.
        let sync = SyncAccountsUseCase(
            accounts: SQLiteAccountRepository(database: database), credentials: .unusable, synchronizer: engine,
            changes: changes)
        let opening = try await openThread()(threadId: threadId)
        _ = await (try? conversation(opening))?.1?.outcome()
        _ = try await Task.detached { try await sync(account: nil) { _ in } }.value
        let seen = await subscriber.value
        #expect(seen.contains(.threadsChanged(accountId: account.id)), "mark read on open")
        #expect(seen.contains(.bodyArrived(emailId: emails[1], threadId: threadId)))
        #expect(seen.contains(.newMail(accountId: account.id, accountName: account.name, count: 1)))
        #expect(seen.contains(.syncState(accountId: account.id, state: .syncingFolders, detail: nil)))
    }
}

/// The sync engine's side for the reading tests: bodies fetched into the real store (or a failure),
/// held until released to show the page does not wait; `sync` reports states and new mail.
final class RecordingEngine: MailSynchronizing {
    private let state = Mutex<(held: Bool, failure: TernError?, waiters: [CheckedContinuation<Void, Never>])>((false, nil, []))

    func holdFetches() { state.withLock { $0.held = true } }
    func releaseFetches() {
        let waiters = state.withLock { state in
            state.held = false
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
    func failFetches(with error: TernError) { state.withLock { $0.failure = error } }

    func fetchBodies(_ requests: [FolderBodyRequest], account: Account, credentials: CredentialSupply) async throws -> Int {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.held { state.waiters.append(continuation) }
                return !state.held
            }
            if resumeNow { continuation.resume() }
        }
        if let failure = state.withLock({ $0.failure }) { throw failure }
        return requests.count
    }

    func sync(account: Account, credentials: CredentialSupply, progress: @escaping @Sendable (SyncProgress) -> Void) async throws -> SyncReport {
        progress(.state(account: account.name, .syncingFolders))
        progress(
            .newMail(
                account: account.name,
                messages: [
                    NewMessage(
                        emailId: 1, from: EmailAddress(address: "a@example.org"), subject: "Hi",
                        date: Date())
                ]))
        progress(.state(account: account.name, .idle))
        return SyncReport(account: account.name, folders: [], firstPageMilliseconds: nil, seconds: 0)
    }

    func watch(account: Account, credentials: CredentialSupply, progress: @escaping @Sendable (SyncProgress) -> Void) async throws {}
    func loadOlder(account: Account, folderPath: String, credentials: CredentialSupply) async throws -> OlderMailResult { .fetched(count: 0) }
}

struct FixedMeteredState: MeteredConnectionDetecting {
    let metered: Bool?
    func isMetered() async -> Bool? { metered }
}

/// Credentials that no test should need: the IMAP side is a double.
struct FailingSecrets: SecretResolver, OAuthTokenStore, OAuthAuthorizer {
    func secret(for account: Account) async throws -> String { "unused" }
    func tokens(for accountID: Account.ID) async throws -> OAuthTokens? { nil }
    func save(_ tokens: OAuthTokens, for accountID: Account.ID) async throws {}
    func delete(for accountID: Account.ID) async throws {}
    func authorize(account: Account, clientID: String, announce: @escaping @Sendable (URL) -> Void) async throws -> OAuthTokens {
        throw TernError.secretUnavailable("no sign-in in tests")
    }
    func refresh(_ tokens: OAuthTokens, clientID: String, provider: OAuthProvider) async throws -> OAuthTokens {
        throw TernError.secretUnavailable("no refresh in tests")
    }
}

extension AccountCredentials {
    static let unusable = AccountCredentials(
        secrets: FailingSecrets(), tokens: FailingSecrets(), authorizer: FailingSecrets(),
        accounts: UnusedAccounts())
}

struct UnusedAccounts: AccountRepository {
    func allAccounts() async throws -> [Account] { [] }
    func account(named name: AccountName) async throws -> Account? { nil }
    func insert(_ account: Account) async throws {}
    func update(_ account: Account) async throws {}
    func delete(id: Account.ID) async throws -> Bool { false }
}
