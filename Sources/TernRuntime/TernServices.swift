import Foundation
import MailStore
import TernCore

/// The composition root: opens the store under `TernHome` and hands front ends the use cases,
/// wired to live implementations. Front ends depend on this and on `TernCore`, never on GRDB,
/// SQL or sockets.
public struct TernServices: Sendable {
    public let home: TernHome
    let database: TernDatabase
    let secrets: any SecretResolver
    let accountRepository: any AccountRepository
    let tokens: any OAuthTokenStore
    let authorizer: any OAuthAuthorizer
    let environment: [String: String]

    public static func open(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> TernServices {
        let home = TernHome.fromEnvironment(environment)
        let database = try TernDatabase(home: home)
        return TernServices(
            home: home, database: database, secrets: ShellSecretResolver(environment: environment, home: home),
            accountRepository: SQLiteAccountRepository(database: database),
            tokens: TokenStoreChoice.make(home: home, environment: environment),
            authorizer: LoopbackOAuthAuthorizer(configuration: .fromEnvironment(environment), environment: environment),
            environment: environment)
    }

    public var addAccount: AddAccountUseCase { AddAccountUseCase(accounts: accountRepository, secrets: secrets, signIn: signIn) }
    public var signIn: SignInUseCase { SignInUseCase(accounts: accountRepository, tokens: tokens, authorizer: authorizer) }
    var credentials: AccountCredentials {
        AccountCredentials(secrets: secrets, tokens: tokens, authorizer: authorizer, accounts: accountRepository, locks: locks)
    }
    public var listAccounts: ListAccountsUseCase { ListAccountsUseCase(accounts: accountRepository) }
    public var removeAccount: RemoveAccountUseCase {
        RemoveAccountUseCase(accounts: accountRepository, files: LocalAccountFiles(home: home))
    }

    public var checkServers: CheckServersUseCase {
        CheckServersUseCase(accounts: accountRepository, credentials: credentials, probe: LiveServerProbe())
    }

    public var syncAccounts: SyncAccountsUseCase {
        SyncAccountsUseCase(accounts: accountRepository, credentials: credentials,
                            synchronizer: LiveMailSynchronizer(store: SQLiteSyncStore(database: database), locks: locks), pusher: pusher)
    }

    /// Under `$TERN_HOME/locks/`: one pusher per account, one writer per folder, one token refresh
    /// per account, across processes.
    var locks: FileLocks { FileLocks(directory: home.url.appendingPathComponent("locks")) }

    /// FR-SYNC-01 step 7: a thread's bodies when it is opened.
    public var fetchThreadBodies: FetchThreadBodiesUseCase {
        FetchThreadBodiesUseCase(accounts: accountRepository, credentials: credentials, store: SQLiteSyncStore(database: database),
                                 synchronizer: LiveMailSynchronizer(store: SQLiteSyncStore(database: database), locks: locks))
    }

    /// FR-SYNC-01 step 5: older mail on demand.
    public var loadOlderMail: LoadOlderMailUseCase {
        LoadOlderMailUseCase(accounts: accountRepository, credentials: credentials,
                             synchronizer: LiveMailSynchronizer(store: SQLiteSyncStore(database: database), locks: locks))
    }

    var operations: PendingOperationProcessor {
        PendingOperationProcessor(store: SQLiteMailActionStore(database: database), server: LiveServerMailActions())
    }

    /// Pending changes, the send queue and Sent copies, for one account at a time.
    public var pusher: LocalChangesPusher {
        LocalChangesPusher(
            credentials: credentials, operations: operations,
            queue: SendQueueProcessor(store: SQLiteOutboxStore(database: database), submitter: LiveMessageSubmitter(environment: environment),
                                      server: LiveServerMailActions(), folders: SQLiteMailActionStore(database: database)),
            lock: locks)
    }

    /// FR-SYNC-10: mark, star, archive, delete.
    public var mailActions: MailActionsUseCase {
        MailActionsUseCase(accounts: accountRepository, credentials: credentials, store: SQLiteMailActionStore(database: database),
                           processor: operations)
    }

    /// FR-SYNC-07: send and the Outbox.
    public var outbox: OutboxUseCase {
        OutboxUseCase(accounts: accountRepository, composer: LiveMessageComposer(), store: SQLiteOutboxStore(database: database), pusher: pusher)
    }

    public var mailQueries: any MailQueries { SQLiteMailQueries(database: database) }

    public var downloadAttachment: DownloadAttachmentUseCase {
        DownloadAttachmentUseCase(accounts: accountRepository, credentials: credentials, store: SQLiteAttachmentStore(database: database),
                                  fetcher: LiveAttachmentFetcher(), home: home)
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
