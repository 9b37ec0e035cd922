import Foundation
import IMAP
import MIME
import MailStore
import Sync
import TernCore

/// The composition root: opens the store under `TernHome` and builds every use case once, wired to
/// live implementations; a process holds one (a long-running `tern serve` for days) and every front
/// end calls its use cases. Front ends depend on this and on `TernCore`, never on GRDB, SQL or sockets.
public final class TernServices: Sendable {
    public let home: TernHome
    @_spi(Tooling) public let database: TernDatabase
    let secrets: any SecretResolver
    @_spi(Tooling) public let accountRepository: any AccountRepository
    let tokens: any OAuthTokenStore
    let authorizer: any OAuthAuthorizer
    let environment: [String: String]
    @_spi(Tooling) public let credentials: AccountCredentials
    /// Under `$TERN_HOME/locks/`: one pusher per account, one writer per folder, one token refresh
    /// per account, across processes.
    let locks: FileLocks
    let operations: PendingOperationProcessor
    /// FR-SYNC-09: every IMAP connection of the process, one pool per account.
    let connections: AccountConnectionPools

    /// What changed, for live front ends (the web app's server-sent events).
    public let changes: ChangeFeed
    public let addAccount: AddAccountUseCase
    public let signIn: SignInUseCase
    public let listAccounts: ListAccountsUseCase
    public let removeAccount: RemoveAccountUseCase
    /// Issue 35: the web app's "Add account" (discovery, both servers tried, the password kept).
    public let setUpAccount: SetUpAccountUseCase
    /// Issue 35: the OAuth apps the person registered, one per provider.
    public let oauthClients: OAuthClientsUseCase
    /// Issue 35: the web app's browser sign-in (authorization request, code exchange).
    public let browserSignIn: BrowserOAuthSignIn
    public let accountSettings: AccountSettingsUseCase
    /// Issue 35: the addresses each account sends from, with names and signatures.
    public let identities: IdentitiesUseCase
    public let checkServers: CheckServersUseCase
    /// Issue 35: `tern account add --trust-certificate`.
    public let trustCertificates: TrustCertificatesUseCase
    public let syncAccounts: SyncAccountsUseCase
    /// `tern status`: each account's sync state, last successful sync, next retry and waiting work.
    public let accountStatus: AccountStatusUseCase
    /// FR-SYNC-01 step 7: a thread's bodies when it is opened.
    public let fetchThreadBodies: FetchThreadBodiesUseCase
    /// FR-SYNC-01 step 5: older mail on demand.
    public let loadOlderMail: LoadOlderMailUseCase
    /// Pending changes, the send queue and Sent copies, for one account at a time.
    public let pusher: LocalChangesPusher
    /// FR-SYNC-10, FR-ED-01: mark, star, archive and delete with undo.
    public let mailActions: MailActionsUseCase
    /// Issue 36: create, rename and delete folders on the server.
    public let folderChanges: FolderChangesUseCase
    /// Issue 36: snooze a conversation until a time, and list what is snoozed.
    public let snooze: SnoozeUseCase
    /// FR-SYNC-07: send and the Outbox.
    public let outbox: OutboxUseCase
    public let mailQueries: any MailQueries
    /// FR-ED-01: folders, thread lists and search, for the front ends.
    public let browse: BrowseMailUseCase
    /// The change feed's word that a thread's bodies arrived, waited for within a bound.
    public let bodyArrivals: ThreadBodyArrivals
    public let downloadAttachment: DownloadAttachmentUseCase
    /// FR-ED-01..05: open a thread, a page of it, one message rendered.
    public let openThread: OpenThreadUseCase
    /// FR-ED-04: a body made safe to show.
    public let renderMessage: RenderMessageUseCase
    public let trustedSenders: TrustedSendersUseCase
    public let settings: SettingsUseCase
    /// FR-ED-03, FR-SYNC-08: warnings before a download.
    public let attachmentWarnings: AttachmentWarningsUseCase
    /// FR-COMP-01: a new message, reply, reply-all or forward, prefilled.
    public let compose: ComposeUseCase
    /// FR-COMP-01: what the front end checks and asks before sending.
    public let composeValidation: ComposeValidationUseCase
    /// FR-COMP-04: recipient suggestions from the local contact cache.
    public let contactsAutocomplete: ContactsAutocompleteUseCase
    /// FR-COMP-01 drafts and FR-COMP-02 sending with undo.
    public let drafts: DraftsUseCase
    /// FR-COMP-02, FR-ED-01: the undo windows, read from the settings in this one place.
    public let undoWindows: UndoWindowsUseCase
    /// FR-COMP-02: the process's sends in their undo window, let go at its end or taken back.
    public let undoSend: UndoSendCoordinator
    /// `tern serve` and `tern sync --watch`: the sync engine run until stopped, retried on its schedule.
    public let syncRunner: SyncEngineRunner
    /// FR-ED-02 and FR-COMP-03: summaries and smart replies from the provider the settings choose.
    public let summarizeThread: SummarizeThreadUseCase
    public let smartReplies: SmartReplyUseCase
    /// Issue 37: Send receipt and Ignore.
    public let readReceipts: ReadReceiptUseCase
    /// Issue 37: `tern privacy`.
    public let privacyReport: PrivacyReportUseCase
    /// Issue 36: one-click unsubscribe (RFC 8058) and the mailto form (RFC 2369).
    public let unsubscribe: UnsubscribeUseCase
    /// Issue 36: a message's original bytes from the server (`tern export`, Show original, Download message).
    public let originalMessage: OriginalMessageUseCase

    /// A store error (SQLite busy, full, damaged) as a `TernError` naming the database file.
    public static func storeError(_ error: any Error, environment: [String: String] = ProcessInfo.processInfo.environment) -> TernError? {
        TernDatabase.ternError(error, home: TernHome.fromEnvironment(environment))
    }

    /// `longRunning` (`tern serve`, `tern sync --watch`): a connection that cannot be made is tried
    /// again on FR-SYNC-09's schedule (5, 15, 45 s, or `TERN_RECONNECT_BACKOFF`) while operations
    /// wait; a one-shot command reports it at once.
    public static func open(environment: [String: String] = ProcessInfo.processInfo.environment, longRunning: Bool = false) throws -> TernServices {
        let home = TernHome.fromEnvironment(environment)
        // Issue 38: the weekly full read of the store is not paid at start-up; long-running processes
        // run it once started (`checkStoreIntegrityIfDue`), `tern status --check` on demand.
        return try TernServices(
            home: home, database: TernDatabase(home: home, integrityCheck: .deferred), environment: environment, longRunning: longRunning)
    }

    @_spi(Tooling) public init(home: TernHome, database: TernDatabase, environment: [String: String], longRunning: Bool = false) {
        let lockDirectory = home.url.appendingPathComponent("locks")
        let connections = AccountConnectionPools(
            reconnect: longRunning ? .configured(environment: environment) : BackoffSchedule([]),
            slotBudget: { accountId, slots in FileConnectionSlotBudget(directory: lockDirectory, accountId: accountId, slots: slots) })
        self.connections = connections
        self.home = home
        self.database = database
        self.environment = environment
        let secrets = ShellSecretResolver(environment: environment, home: home)
        let accounts = SQLiteAccountRepository(database: database)
        let tokens = TokenStoreChoice.make(home: home, environment: environment)
        let oauthClientStore = SQLiteOAuthClientStore(database: database)
        let oauthConfigurations = OAuthConfigurations(environment: environment, clients: oauthClientStore)
        let authorizer = LoopbackOAuthAuthorizer(configurations: oauthConfigurations, environment: environment)
        let locks = FileLocks(directory: home.url.appendingPathComponent("locks"))
        let holds = FileSendHolds(directory: home.url.appendingPathComponent("locks"))
        let credentials = AccountCredentials(secrets: secrets, tokens: tokens, authorizer: authorizer, accounts: accounts, locks: locks)
        let changes = ChangeFeed()
        let syncStore = SQLiteSyncStore(database: database)
        let settingsStore = SQLiteSettingsStore(database: database)
        let attachmentWarnings = AttachmentWarningsUseCase(settings: settingsStore, detector: NetworkManagerMeteredDetector())
        let userWork = UserWorkTracker()
        let synchronizer = LiveMailSynchronizer(
            store: syncStore, locks: locks, connections: connections,
            catchUp: CatchUpGate(settings: settingsStore, metered: attachmentWarnings, userWork: userWork),
            userWork: userWork)
        let actionStore = SQLiteMailActionStore(database: database)
        let operations = PendingOperationProcessor(store: actionStore, server: LiveServerMailActions(connections: connections))
        let draftStore = SQLiteDraftStore(database: database)
        let downloadAttachment = DownloadAttachmentUseCase(
            accounts: accounts, credentials: credentials,
            store: SQLiteAttachmentStore(database: database), fetcher: LiveAttachmentFetcher(connections: connections, userWork: userWork),
            home: home, changes: changes,
            warnings: attachmentWarnings)
        let composeValidation = ComposeValidationUseCase(syntax: MIMEMailSyntax())
        let attachmentLoader = LiveComposeAttachmentLoader(downloads: downloadAttachment)
        let draftFiles = LocalDraftFiles(directory: home.url.appendingPathComponent("drafts"))
        let pendingFolderChanges = SQLitePendingFolderChangeStore(database: database)
        let folderChanges = FolderChangesUseCase(
            accounts: accounts, credentials: credentials, store: syncStore, server: LiveServerFolderChanges(connections: connections),
            changes: changes, queue: pendingFolderChanges)
        let pusher = LocalChangesPusher(
            credentials: credentials, operations: operations,
            queue: SendQueueProcessor(
                store: SQLiteOutboxStore(database: database), submitter: LiveMessageSubmitter(environment: environment, userWork: userWork),
                server: LiveServerMailActions(connections: connections), folders: actionStore, holds: holds, drafts: draftStore,
                // FR-SYNC-07's 30 s, 2 min, 8 min; `TERN_SEND_RETRY_SCHEDULE` shortens it for fault tests.
                retryDelays: ConfiguredDelays.parse(environment, "TERN_SEND_RETRY_SCHEDULE"),
                // Issue 36: when a Send later message counts as sent late; `TERN_SEND_LATE_AFTER` shortens it for tests.
                lateAfter: ConfiguredDelays.parse(environment, "TERN_SEND_LATE_AFTER").first,
                attachments: QueuedForwardCompletion(
                    drafts: draftStore, attachments: attachmentLoader, composer: OutgoingMessageComposer(),
                    outbox: SQLiteOutboxStore(database: database))),
            drafts: DraftSyncProcessor(
                store: draftStore, server: LiveDraftMailbox(connections: connections), coding: DraftMessageCodec(), attachments: attachmentLoader,
                folders: actionStore, changes: changes,
                checkInterval: .seconds(environment["TERN_DRAFT_CHECK_SECONDS"].flatMap(Int.init).map { max(1, $0) } ?? 60),
                files: draftFiles),
            lock: locks, snoozes: SnoozeWaker(store: actionStore, folders: actionStore, changes: changes), folders: folderChanges)
        let signIn = SignInUseCase(accounts: accounts, tokens: tokens, authorizer: authorizer)
        let mailActions = MailActionsUseCase(
            accounts: accounts, credentials: credentials, store: actionStore, processor: operations,
            changes: changes, folderChanges: folderChanges)
        let fetchThreadBodies = FetchThreadBodiesUseCase(
            accounts: accounts, credentials: credentials, store: syncStore,
            synchronizer: synchronizer, changes: changes)
        let trustedSenderStore = SQLiteTrustedSenderStore(database: database)
        let renderMessage = RenderMessageUseCase(sanitizer: HTMLSafetyBodySanitizer(), trustedSenders: trustedSenderStore)
        let queries = SQLiteMailQueries(database: database)

        self.secrets = secrets
        self.accountRepository = accounts
        self.tokens = tokens
        self.authorizer = authorizer
        self.credentials = credentials
        self.locks = locks
        self.operations = operations
        self.changes = changes
        self.folderChanges = folderChanges
        self.snooze = SnoozeUseCase(accounts: accounts, actions: mailActions, folderChanges: folderChanges, store: actionStore)
        self.signIn = signIn
        let addAccount = AddAccountUseCase(accounts: accounts, secrets: secrets, signIn: signIn)
        self.addAccount = addAccount
        self.listAccounts = ListAccountsUseCase(accounts: accounts)
        let keptPasswords = KeptPasswords(home: home, environment: environment)
        self.removeAccount = RemoveAccountUseCase(
            accounts: accounts, files: LocalAccountFiles(home: home), drafts: draftStore,
            draftFiles: LocalDraftFiles(directory: home.url.appendingPathComponent("drafts")), passwords: keptPasswords, changes: changes)
        self.setUpAccount = SetUpAccountUseCase(
            discover: { caFile in Self.liveDiscovery(environment: environment, caFile: caFile) },
            probe: LiveServerProbe(), accounts: accounts, addAccount: addAccount, passwords: keptPasswords, changes: changes, tokens: tokens)
        self.oauthClients = OAuthClientsUseCase(store: oauthClientStore)
        self.browserSignIn = BrowserOAuthSignIn(configurations: oauthConfigurations)
        self.accountSettings = AccountSettingsUseCase(accounts: accounts)
        let identityStore = SQLiteIdentityRepository(database: database)
        self.identities = IdentitiesUseCase(accounts: accounts, identities: identityStore)
        self.checkServers = CheckServersUseCase(accounts: accounts, credentials: credentials, probe: LiveServerProbe())
        self.trustCertificates = TrustCertificatesUseCase(probe: LiveServerProbe())
        let syncStatuses = SQLiteSyncStatusStore(database: database)
        // Heard only by the long-running loops, from their first wait for the network on.
        let networkReturns = NetworkManagerReturnSignal()
        let syncAccounts = SyncAccountsUseCase(
            accounts: accounts, credentials: credentials, synchronizer: synchronizer, pusher: pusher,
            changes: changes, failedChanges: mailActions, statuses: syncStatuses, processId: getpid(),
            networkReturns: networkReturns)
        self.syncAccounts = syncAccounts
        self.accountStatus = AccountStatusUseCase(accounts: accounts, store: syncStatuses, isRunning: Self.isRunning)
        self.fetchThreadBodies = fetchThreadBodies
        self.loadOlderMail = LoadOlderMailUseCase(
            accounts: accounts, credentials: credentials, synchronizer: synchronizer,
            folders: SQLiteSyncStore(database: database))
        self.pusher = pusher
        self.mailActions = mailActions
        let outbox = OutboxUseCase(
            accounts: accounts, composer: OutgoingMessageComposer(), store: SQLiteOutboxStore(database: database), pusher: pusher,
            holds: holds)
        self.outbox = outbox
        let originalStore = SQLiteOriginalMessageStore(database: database)
        let sourceFetcher = LiveMessageSourceFetcher(connections: connections, userWork: userWork)
        self.unsubscribe = UnsubscribeUseCase(
            store: originalStore, accounts: accounts, credentials: credentials, headers: sourceFetcher,
            poster: HTTPOneClickPoster(environment: environment), outbox: outbox)
        self.originalMessage = OriginalMessageUseCase(
            store: originalStore, accounts: accounts, credentials: credentials, fetcher: sourceFetcher, headers: MIMEMessageHeaderReader())
        self.readReceipts = ReadReceiptUseCase(
            store: SQLiteReadReceiptStore(database: database), accounts: accounts, settings: settingsStore, outbox: outbox,
            actions: mailActions, changes: changes)
        self.privacyReport = PrivacyReportUseCase(store: SQLitePrivacyReportStore(database: database), sanitizer: HTMLSafetyBodySanitizer())
        self.mailQueries = queries
        self.browse = BrowseMailUseCase(queries: queries, pendingFolders: pendingFolderChanges, accounts: accounts)
        self.bodyArrivals = ThreadBodyArrivals(changes: changes)
        self.downloadAttachment = downloadAttachment
        self.renderMessage = renderMessage
        self.openThread = OpenThreadUseCase(
            queries: queries, actions: mailActions, bodies: fetchThreadBodies, renderer: renderMessage,
            trustedSenders: trustedSenderStore, attachmentWarnings: attachmentWarnings, settings: settingsStore)
        self.trustedSenders = TrustedSendersUseCase(store: trustedSenderStore, changes: changes)
        let settings = SettingsUseCase(store: settingsStore, changes: changes)
        self.settings = settings
        let undoWindows = UndoWindowsUseCase(settings: settings)
        self.undoWindows = undoWindows
        self.attachmentWarnings = attachmentWarnings
        let composeStore = SQLiteComposeStore(database: database)
        self.compose = ComposeUseCase(
            accounts: accounts, store: composeStore, syntax: MIMEMailSyntax(), sanitizer: HTMLSafetyBodySanitizer(),
            bodies: fetchThreadBodies, identities: identityStore)
        self.composeValidation = composeValidation
        self.contactsAutocomplete = ContactsAutocompleteUseCase(store: composeStore)
        let drafts = DraftsUseCase(
            accounts: accounts, store: draftStore, coding: DraftMessageCodec(),
            files: draftFiles, attachments: attachmentLoader,
            validation: composeValidation, outbox: outbox, pusher: pusher, changes: changes)
        self.drafts = drafts
        self.undoSend = UndoSendCoordinator(steps: drafts, windows: undoWindows)
        // FR-SYNC-04 Error → Idle: 5, 15, 45 s, then every 2 min; `TERN_SYNC_RETRY_SCHEDULE` shortens it for fault tests.
        self.syncRunner = SyncEngineRunner(
            work: syncAccounts, retryDelays: ConfiguredDelays.parse(environment, "TERN_SYNC_RETRY_SCHEDULE"), accountChanges: changes,
            networkReturns: networkReturns)
        // TERN_ASSIST_BUDGET_SECONDS: how long a summary or suggestions may take before their
        // section is hidden (a local model on a laptop CPU needs seconds; tests set less).
        let assistBudget = AssistBudget(seconds: environment["TERN_ASSIST_BUDGET_SECONDS"].flatMap(Double.init).map { max(0.05, $0) } ?? 30)
        let assistStore = SQLiteAssistStore(database: database)
        let assistLoader = AssistThreadLoader(store: assistStore, sanitizer: HTMLSafetyBodySanitizer())
        let assistProviders = SettingsAssistProviders(settings: settingsStore, timeoutSeconds: assistBudget.seconds)
        self.summarizeThread = SummarizeThreadUseCase(loader: assistLoader, store: assistStore, providers: assistProviders, budget: assistBudget)
        self.smartReplies = SmartReplyUseCase(loader: assistLoader, providers: assistProviders, budget: assistBudget)
    }

    /// A process that still runs (`kill(pid, 0)`: EPERM means it runs as another user).
    static func isRunning(_ processId: Int32) -> Bool {
        processId > 0 && (kill(processId, 0) == 0 || errno == EPERM)
    }

    /// Logs out of every server (LOGOUT on each pooled connection): at the end of a command, or
    /// when `tern serve` stops.
    public func shutdown() async {
        await connections.shutdown()
    }

    /// Issue 38: the weekly `PRAGMA quick_check` that opening no longer runs, for `tern serve` and
    /// `tern sync --watch` once they have started: seconds of reading at 1,000,000 messages, on a thread
    /// of its own and a reader connection, beside the process's own work. Throws the `TernError` of a
    /// damaged store.
    public func checkStoreIntegrityIfDue() async throws {
        let database = database
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global(qos: .background).async {
                continuation.resume(with: Result { try database.checkIntegrityIfDue() })
            }
        }
    }

    /// For `tern status`: where the store is, which schema it has and what it holds; with
    /// `checkIntegrity`, the whole file is read through first.
    public func storeStatus(checkIntegrity: Bool = false) throws -> StoreStatus {
        if checkIntegrity {
            try database.checkIntegrity()
        }
        return StoreStatus(
            home: home.url.path, database: database.url.path, schema: try database.appliedMigrations().last ?? "empty",
            counts: try database.rowCounts(), lastIntegrityCheck: try database.lastIntegrityCheck())
    }
}

public struct StoreStatus: Sendable, Codable {
    public var home: String
    public var database: String
    public var schema: String
    public var counts: [String: Int]
    public var lastIntegrityCheck: Date?
}
