import GRDB

/// The store's schema, as an ordered list of migrations from an empty database.
///
/// A migration is never edited once it has shipped: a schema change is a new migration appended
/// at the end, so that a database written by any earlier Tern migrates forward (tested for every
/// prefix in `SchemaMigrationsTests`). docs/data-model.md describes the resulting schema.
public enum SchemaMigrations {
    /// Identifiers in order. A database that has applied one not listed here was written by a newer Tern.
    public static var identifiers: [String] { migrator.migrations }

    public static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-core-entities", migrate: createCoreEntities)
        migrator.registerMigration("v2-search-index", migrate: createSearchIndex)
        migrator.registerMigration("v3-local-feature-entities", migrate: createLocalFeatureEntities)
        migrator.registerMigration("v4-thread-nodes", migrate: createThreadNodes)
        migrator.registerMigration("v5-outbox-and-pending-operations", migrate: createOutboxAndPendingOperations)
        migrator.registerMigration("v6-folder-message-count", migrate: addFolderMessageCount)
        migrator.registerMigration("v7-store-health", migrate: createStoreHealth)
        migrator.registerMigration("v8-pending-operation-uid-validity", migrate: addPendingOperationUIDValidity)
        migrator.registerMigration("v9-settings-and-undo-window", migrate: createSettingsAndUndoWindow)
        migrator.registerMigration("v10-account-aliases", migrate: addAccountAliases)
        migrator.registerMigration("v11-drafts", migrate: createDrafts)
        migrator.registerMigration("v12-assist", migrate: addAssistColumns)
        migrator.registerMigration("v13-folder-archive-and-mailbox-id", migrate: addFolderArchiveAndMailboxId)
        migrator.registerMigration("v14-account-sync-status", migrate: createAccountSyncStatus)
        migrator.registerMigration("v15-sender-authentication", migrate: addSenderAuthentication)
        migrator.registerMigration("v16-identities", migrate: createIdentities)
        migrator.registerMigration("v17-search-operator-indexes", migrate: addSearchOperatorIndexes)
        migrator.registerMigration("v18-read-receipts", migrate: addReadReceipts)
        migrator.registerMigration("v19-message-privacy", migrate: createMessagePrivacy)
        migrator.registerMigration("v20-queued-forward-attachments", migrate: addAwaitingAttachments)
        migrator.registerMigration("v21-original-recipient", migrate: addOriginalRecipient)
        migrator.registerMigration("v22-list-unsubscriptions", migrate: createListUnsubscriptions)
        migrator.registerMigration("v23-account-pinned-certificates", migrate: addAccountPinnedCertificates)
        migrator.registerMigration("v24-account-plaintext-security", migrate: allowAccountPlaintextSecurity)
        migrator.registerMigration("v25-scheduled-send", migrate: addScheduledSend)
        migrator.registerMigration("v26-pending-move-and-copy", migrate: addPendingMoveAndCopy)
        migrator.registerMigration("v27-thread-list-order", migrate: orderThreadListIndexByThread)
        migrator.registerMigration("v28-pending-bodies-and-unindexed-emails", migrate: indexPendingBodiesAndUnindexedEmails)
        migrator.registerMigration("v29-scheduled-send-index", migrate: indexScheduledSends)
        migrator.registerMigration("v30-account-microsoft-provider", migrate: allowAccountMicrosoftProvider)
        migrator.registerMigration("v31-oauth-clients", migrate: createOAuthClients)
        migrator.registerMigration("v32-pending-folder-changes", migrate: createPendingFolderChanges)
        migrator.registerMigration("v33-email-woken-date", migrate: addEmailWokenDate)
        migrator.registerMigration("v34-email-date-blocks", migrate: createEmailDateBlocks)
        migrator.registerMigration("v35-search-index-coverage", migrate: createSearchIndexCoverage)
        migrator.registerMigration("v36-folder-counts", migrate: createFolderCounts)
        return migrator
    }

    /// Account, Folder, Thread, Email, EmailFolder, ThreadFolder, Attachment (Foundation section 5,
    /// as inferred in docs/data-model.md).
    static func createCoreEntities(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE account (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL UNIQUE,
                    emailAddress TEXT NOT NULL,
                    displayName TEXT,
                    provider TEXT NOT NULL CHECK (provider IN ('gmail', 'imap')),
                    imapHost TEXT NOT NULL,
                    imapPort INTEGER NOT NULL CHECK (imapPort BETWEEN 1 AND 65535),
                    imapSecurity TEXT NOT NULL CHECK (imapSecurity IN ('tls', 'starttls')),
                    smtpHost TEXT NOT NULL,
                    smtpPort INTEGER NOT NULL CHECK (smtpPort BETWEEN 1 AND 65535),
                    smtpSecurity TEXT NOT NULL CHECK (smtpSecurity IN ('tls', 'starttls')),
                    username TEXT NOT NULL,
                    credentialKind TEXT NOT NULL CHECK (credentialKind IN ('password-command', 'password-env', 'oauth2')),
                    credentialReference TEXT NOT NULL,
                    caFile TEXT,
                    isActive BOOLEAN NOT NULL DEFAULT 1,
                    syncWindowDays INTEGER NOT NULL DEFAULT 90,
                    bodyHydration TEXT NOT NULL DEFAULT 'recent:30',
                    createdDate DATETIME NOT NULL,
                    lastSyncDate DATETIME
                );

                CREATE TABLE folder (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    path TEXT NOT NULL,
                    displayName TEXT NOT NULL,
                    delimiter TEXT,
                    folderType TEXT NOT NULL CHECK (folderType IN
                        ('inbox', 'sent', 'drafts', 'trash', 'spam', 'starred', 'custom', 'all', 'important', 'container')),
                    uidValidity INTEGER,
                    uidNext INTEGER,
                    highestModSeq INTEGER,
                    forwardCursorUID INTEGER,
                    backfillCursorUID INTEGER,
                    initialFastCompleted BOOLEAN NOT NULL DEFAULT 0,
                    catchUpStatus TEXT NOT NULL DEFAULT 'idle' CHECK (catchUpStatus IN
                        ('idle', 'running', 'paused', 'completed', 'error')),
                    reachedServerHistoryBoundary BOOLEAN NOT NULL DEFAULT 0,
                    lastSyncDate DATETIME,
                    lastSyncError TEXT,
                    UNIQUE (accountId, path)
                );

                CREATE TABLE thread (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    subject TEXT NOT NULL,
                    normalizedSubject TEXT NOT NULL,
                    latestDate DATETIME NOT NULL,
                    earliestDate DATETIME NOT NULL,
                    messageCount INTEGER NOT NULL DEFAULT 0,
                    unreadCount INTEGER NOT NULL DEFAULT 0,
                    participants TEXT NOT NULL DEFAULT '[]',
                    snippet TEXT,
                    hasAttachments BOOLEAN NOT NULL DEFAULT 0,
                    isStarred BOOLEAN NOT NULL DEFAULT 0,
                    aiSummary TEXT,
                    aiSummaryDate DATETIME
                );
                -- Unified inbox and per-account lists by date; subject fallback lookup (FR-SYNC-06 step 4).
                CREATE INDEX thread_by_account_date ON thread(accountId, latestDate DESC);
                CREATE INDEX thread_by_subject ON thread(accountId, normalizedSubject, latestDate);

                CREATE TABLE email (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    threadId INTEGER REFERENCES thread(id) ON DELETE SET NULL,
                    messageId TEXT,
                    headerMessageId TEXT,
                    dedupKey TEXT NOT NULL,
                    inReplyTo TEXT,
                    "references" TEXT,
                    subject TEXT NOT NULL DEFAULT '',
                    fromName TEXT,
                    fromAddress TEXT NOT NULL DEFAULT '',
                    toAddresses TEXT NOT NULL DEFAULT '[]',
                    ccAddresses TEXT NOT NULL DEFAULT '[]',
                    bccAddresses TEXT NOT NULL DEFAULT '[]',
                    replyTo TEXT NOT NULL DEFAULT '[]',
                    dateSent DATETIME,
                    dateReceived DATETIME NOT NULL,
                    snippet TEXT,
                    bodyPlain TEXT,
                    bodyHTML TEXT,
                    bodyTruncated BOOLEAN NOT NULL DEFAULT 0,
                    bodiesFetched BOOLEAN NOT NULL DEFAULT 0,
                    bodyStructure TEXT,
                    sizeBytes INTEGER NOT NULL DEFAULT 0,
                    hasAttachments BOOLEAN NOT NULL DEFAULT 0,
                    isRead BOOLEAN NOT NULL DEFAULT 0,
                    isStarred BOOLEAN NOT NULL DEFAULT 0,
                    isAnswered BOOLEAN NOT NULL DEFAULT 0,
                    isDraft BOOLEAN NOT NULL DEFAULT 0,
                    deletedDate DATETIME,
                    sendState TEXT NOT NULL DEFAULT 'none' CHECK (sendState IN ('none', 'queued', 'sending', 'failed', 'sent')),
                    sendRetryCount INTEGER NOT NULL DEFAULT 0 CHECK (sendRetryCount >= 0),
                    sendQueuedDate DATETIME,
                    sendNotBefore DATETIME,
                    sendAttemptStartedDate DATETIME,
                    sendError TEXT,
                    createdDate DATETIME NOT NULL
                );
                -- FR-SYNC-01 step 6: one Email per Message-ID per account, else per canonical key.
                CREATE UNIQUE INDEX email_by_message_id ON email(accountId, messageId) WHERE messageId IS NOT NULL;
                CREATE UNIQUE INDEX email_by_dedup_key ON email(accountId, dedupKey);
                -- Thread view: messages of a thread in order.
                CREATE INDEX email_by_thread ON email(threadId, dateReceived);
                -- FR-SYNC-06: parent lookup when threading a new message.
                CREATE INDEX email_by_header_message_id ON email(accountId, headerMessageId);
                -- FR-SYNC-07: the Outbox and the send queue (FIFO per account).
                CREATE INDEX email_outbox ON email(accountId, sendState, sendQueuedDate);

                CREATE TABLE emailFolder (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    emailId INTEGER NOT NULL REFERENCES email(id) ON DELETE CASCADE,
                    folderId INTEGER NOT NULL REFERENCES folder(id) ON DELETE CASCADE,
                    imapUID INTEGER NOT NULL CHECK (imapUID > 0),
                    modSeq INTEGER,
                    serverFlags TEXT NOT NULL DEFAULT '',
                    UNIQUE (folderId, imapUID)
                );
                CREATE INDEX emailFolder_by_email ON emailFolder(emailId, folderId);

                -- Denormalised per-folder thread list (thread list by folder and date is the hottest query).
                -- Maintained by the sync engine in the same transaction as emailFolder.
                CREATE TABLE threadFolder (
                    threadId INTEGER NOT NULL REFERENCES thread(id) ON DELETE CASCADE,
                    folderId INTEGER NOT NULL REFERENCES folder(id) ON DELETE CASCADE,
                    latestDate DATETIME NOT NULL,
                    messageCount INTEGER NOT NULL DEFAULT 0,
                    unreadCount INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (folderId, threadId)
                ) WITHOUT ROWID;
                CREATE INDEX threadFolder_by_folder_date ON threadFolder(folderId, latestDate DESC);
                CREATE INDEX threadFolder_by_thread ON threadFolder(threadId);

                CREATE TABLE attachment (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    emailId INTEGER NOT NULL REFERENCES email(id) ON DELETE CASCADE,
                    partId TEXT NOT NULL,
                    filename TEXT NOT NULL,
                    mimeType TEXT NOT NULL,
                    sizeBytes INTEGER NOT NULL DEFAULT 0,
                    contentId TEXT,
                    isInline BOOLEAN NOT NULL DEFAULT 0,
                    transferEncoding TEXT,
                    isDownloaded BOOLEAN NOT NULL DEFAULT 0,
                    localPath TEXT,
                    lastAccessDate DATETIME,
                    UNIQUE (emailId, partId),
                    CHECK (isDownloaded = 0 OR localPath IS NOT NULL)
                );
                -- FR-SYNC-08: LRU eviction walks downloaded attachments by last access.
                CREATE INDEX attachment_lru ON attachment(lastAccessDate) WHERE isDownloaded = 1;
                """)
    }

    /// FR-SYNC-04 Indexing: SearchIndex as FTS5, one row per email (rowid = email.id).
    /// `unicode61 remove_diacritics 2` and prefix indexes are the shape proven for mail (Geary).
    static func createSearchIndex(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE VIRTUAL TABLE searchIndex USING fts5(
                    subject, sender, recipients, content,
                    tokenize = 'unicode61 remove_diacritics 2',
                    prefix = '2 3'
                );
                -- FTS tables cannot carry foreign keys: removing an email removes its index row.
                CREATE TRIGGER searchIndex_delete AFTER DELETE ON email BEGIN
                    DELETE FROM searchIndex WHERE rowid = old.id;
                END;
                -- Emails whose index row is missing or failed: retried without blocking sync (FR-SYNC-04).
                CREATE TABLE searchIndexState (
                    emailId INTEGER PRIMARY KEY REFERENCES email(id) ON DELETE CASCADE,
                    indexedDate DATETIME,
                    failureCount INTEGER NOT NULL DEFAULT 0,
                    lastError TEXT
                );
                """)
    }

    /// TrustedSender (FR-ED-04) and ContactCacheEntry (FR-COMP-04): feature-local entities.
    static func createLocalFeatureEntities(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE trustedSender (
                    id TEXT PRIMARY KEY NOT NULL,
                    senderEmail TEXT NOT NULL UNIQUE COLLATE NOCASE,
                    createdDate DATETIME NOT NULL
                );

                CREATE TABLE contactCacheEntry (
                    id TEXT PRIMARY KEY NOT NULL,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    emailAddress TEXT NOT NULL COLLATE NOCASE,
                    displayName TEXT,
                    lastSeenDate DATETIME NOT NULL,
                    frequency INTEGER NOT NULL DEFAULT 1 CHECK (frequency >= 1),
                    UNIQUE (accountId, emailAddress)
                );
                -- Autocomplete ranks by frequency; eviction drops the least frequent, then oldest.
                CREATE INDEX contact_by_rank ON contactCacheEntry(accountId, frequency DESC, lastSeenDate DESC);
                """)
    }

    /// FR-SYNC-06 in the store: the Message-ID graph, so a new message is threaded by looking up
    /// its own ids only (`ThreadLinker` over `SQLiteThreadNodes`). A component is a thread in the
    /// making; `thread.component` names the thread of a component that holds stored messages.
    static func createThreadNodes(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE threadNode (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    -- NULL: the node of a message without a usable Message-ID (or with another message's).
                    messageId TEXT,
                    component INTEGER NOT NULL,
                    isPresent BOOLEAN NOT NULL DEFAULT 0,
                    hasParent BOOLEAN NOT NULL DEFAULT 0
                );
                CREATE UNIQUE INDEX threadNode_by_message_id ON threadNode(accountId, messageId) WHERE messageId IS NOT NULL;
                CREATE INDEX threadNode_by_component ON threadNode(component);
                ALTER TABLE thread ADD COLUMN component INTEGER;
                CREATE UNIQUE INDEX thread_by_component ON thread(component) WHERE component IS NOT NULL;
                """)
    }

    /// FR-SYNC-07 and FR-SYNC-05/10: what goes from Tern to the server survives a restart. A queued
    /// message keeps the exact bytes it will send (one Message-ID for every attempt, so the Sent
    /// check after a crash can find it); a local change waiting for the server is a row, not a task.
    static func createOutboxAndPendingOperations(_ db: Database) throws {
        try db.execute(
            sql: """
                -- FR-COMP-02: the undo-send window. Unlike a retry's sendNotBefore it does not hold up the
                -- messages queued after it.
                ALTER TABLE email ADD COLUMN sendHoldUntil DATETIME;

                CREATE TABLE outgoingMessage (
                    emailId INTEGER PRIMARY KEY NOT NULL REFERENCES email(id) ON DELETE CASCADE,
                    rawMessage BLOB NOT NULL,
                    envelopeSender TEXT NOT NULL,
                    -- JSON array of addresses: To, Cc and Bcc (Bcc appears nowhere else).
                    envelopeRecipients TEXT NOT NULL,
                    -- The server's answer to the end of DATA, once accepted.
                    serverReply TEXT,
                    sentDate DATETIME
                );

                CREATE TABLE pendingOperation (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL CHECK (kind IN ('addFlag', 'removeFlag', 'archive', 'delete', 'fileSentCopy')),
                    -- addFlag/removeFlag: the IMAP flag, \\Seen or \\Flagged.
                    flag TEXT,
                    emailId INTEGER NOT NULL REFERENCES email(id) ON DELETE CASCADE,
                    -- The copy acted on (NULL for fileSentCopy). Not a foreign key to emailFolder: archive
                    -- and delete remove that row at once (optimistically) and put it back on revert.
                    folderId INTEGER REFERENCES folder(id) ON DELETE CASCADE,
                    imapUID INTEGER,
                    -- The copy's server flags when the change was made: what a revert restores.
                    serverFlags TEXT,
                    modSeq INTEGER,
                    state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'failed')),
                    attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                    notBefore DATETIME,
                    lastError TEXT,
                    createdDate DATETIME NOT NULL
                );
                CREATE INDEX pendingOperation_due ON pendingOperation(accountId, state, notBefore);
                -- Sync skips copies with a pending archive/delete and flags with a pending push.
                CREATE INDEX pendingOperation_by_copy ON pendingOperation(folderId, imapUID);
                CREATE INDEX pendingOperation_by_email ON pendingOperation(emailId);
                """)
    }

    /// FR-SYNC-02 incremental: the server's message count at the last sync, so one pipelined STATUS
    /// tells an unchanged folder (same UIDVALIDITY, UIDNEXT, count and HIGHESTMODSEQ) without
    /// selecting and searching it.
    static func addFolderMessageCount(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE folder ADD COLUMN serverMessageCount INTEGER")
    }

    /// When the whole file was last read through by `PRAGMA quick_check`: opening runs it again
    /// only when that is older than `TernDatabase.integrityCheckInterval` (docs/decisions.md).
    static func createStoreHealth(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE storeHealth (
                    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
                    lastIntegrityCheckAt REAL NOT NULL
                )
                """)
    }

    /// The folder's UIDVALIDITY when a pending change named its copy by UID (RFC 9051 section
    /// 2.3.1.1: a UID means nothing under another UIDVALIDITY). The push compares it with the
    /// server's after SELECT, and a folder reset cancels the changes made under the old one, so a
    /// queued delete can never expunge whichever message holds that UID now. Rows written before
    /// this migration take their folder's current value: the best that is known of them.
    static func addPendingOperationUIDValidity(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE pendingOperation ADD COLUMN uidValidity INTEGER;
                UPDATE pendingOperation SET uidValidity = (SELECT uidValidity FROM folder WHERE folder.id = pendingOperation.folderId)
                WHERE folderId IS NOT NULL;
                """)
    }

    /// The typed settings (`TernSettings`: undo-send delay, metered override, …) as key → text, and
    /// FR-ED-01's undo window on archive and delete: the token of the action an operation belongs to
    /// while it waits (`notBefore`) for its window to end.
    static func createSettingsAndUndoWindow(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE setting (
                    key TEXT PRIMARY KEY NOT NULL,
                    value TEXT NOT NULL
                );
                ALTER TABLE pendingOperation ADD COLUMN undoToken TEXT;
                CREATE INDEX pendingOperation_by_undo ON pendingOperation(undoToken) WHERE undoToken IS NOT NULL;
                """)
    }

    /// FR-COMP-01: the account's other addresses, which Reply All leaves out like the primary one.
    /// Space-separated (an address has no space outside a quoted local part, which an alias never needs).
    static func addAccountAliases(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE account ADD COLUMN aliases TEXT NOT NULL DEFAULT ''")
    }

    /// Issue 19: what the cached thread summary was written from (provider and messages), and the
    /// bulk-mail headers smart replies stay silent on. Mail synced before keeps 0: only its
    /// sender and text tell.
    static func addAssistColumns(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE thread ADD COLUMN aiSummaryKey TEXT")
        try db.execute(sql: "ALTER TABLE email ADD COLUMN bulkMarkers INTEGER NOT NULL DEFAULT 0")
    }

    /// Issue 22: `archive`, the role of a server's `\\Archive` folder (synced, unlike Gmail's
    /// `\\All`), is allowed by the folder type's CHECK, which SQLite cannot alter: the table is
    /// rebuilt (GRDB runs migrations with foreign keys off, so the tables that reference it keep
    /// their rows, and the renamed table takes their references). `mailboxId` is the folder's
    /// RFC 8474 MAILBOXID on a server with OBJECTID, which tells a renamed folder from a new one.
    /// Folders stored as `all` from a `\\Archive` become `archive` at the next discovery.
    static func addFolderArchiveAndMailboxId(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE newFolder (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    path TEXT NOT NULL,
                    displayName TEXT NOT NULL,
                    delimiter TEXT,
                    folderType TEXT NOT NULL CHECK (folderType IN
                        ('inbox', 'sent', 'drafts', 'trash', 'spam', 'starred', 'custom', 'all', 'archive', 'important', 'container')),
                    uidValidity INTEGER,
                    uidNext INTEGER,
                    highestModSeq INTEGER,
                    forwardCursorUID INTEGER,
                    backfillCursorUID INTEGER,
                    initialFastCompleted BOOLEAN NOT NULL DEFAULT 0,
                    catchUpStatus TEXT NOT NULL DEFAULT 'idle' CHECK (catchUpStatus IN
                        ('idle', 'running', 'paused', 'completed', 'error')),
                    reachedServerHistoryBoundary BOOLEAN NOT NULL DEFAULT 0,
                    lastSyncDate DATETIME,
                    lastSyncError TEXT,
                    serverMessageCount INTEGER,
                    mailboxId TEXT,
                    UNIQUE (accountId, path)
                );
                INSERT INTO newFolder (id, accountId, path, displayName, delimiter, folderType, uidValidity, uidNext, highestModSeq,
                    forwardCursorUID, backfillCursorUID, initialFastCompleted, catchUpStatus, reachedServerHistoryBoundary,
                    lastSyncDate, lastSyncError, serverMessageCount)
                SELECT id, accountId, path, displayName, delimiter, folderType, uidValidity, uidNext, highestModSeq,
                    forwardCursorUID, backfillCursorUID, initialFastCompleted, catchUpStatus, reachedServerHistoryBoundary,
                    lastSyncDate, lastSyncError, serverMessageCount FROM folder;
                DROP TABLE folder;
                ALTER TABLE newFolder RENAME TO folder;
                """)
    }

    /// FR-COMP-01 "Draft lifecycle": drafts saved locally first, with what their server copy is.
    /// `content` is the composer's fields as sorted-keys JSON (`ComposeDraft`), compared whole for
    /// idempotent saves; every version shares `messageId`, unique per account.
    static func createDrafts(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE draft (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    messageId TEXT NOT NULL,
                    content TEXT NOT NULL,
                    revision INTEGER NOT NULL DEFAULT 1,
                    createdDate DATETIME NOT NULL,
                    updatedDate DATETIME NOT NULL,
                    syncState TEXT NOT NULL DEFAULT 'pending' CHECK (syncState IN ('pending', 'synced', 'removing')),
                    syncAttempts INTEGER NOT NULL DEFAULT 0,
                    syncNotBefore DATETIME,
                    syncError TEXT,
                    serverMailbox TEXT,
                    serverUID INTEGER,
                    serverUIDValidity INTEGER,
                    changedOnServer BOOLEAN NOT NULL DEFAULT 0,
                    heldEmailId INTEGER REFERENCES email(id) ON DELETE SET NULL,
                    UNIQUE (accountId, messageId)
                );
                CREATE INDEX draft_by_account ON draft(accountId, syncState, updatedDate);
                CREATE INDEX draft_by_held ON draft(heldEmailId) WHERE heldEmailId IS NOT NULL;
                """)
    }

    /// `tern status` (issue 20): each account's last FR-SYNC-04 state, written by whichever process
    /// syncs it (`processId`, so a state left by a killed process is told from a live one).
    static func createAccountSyncStatus(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE accountSyncStatus (
                    accountId TEXT PRIMARY KEY NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    state TEXT NOT NULL,
                    detail TEXT,
                    changedDate DATETIME NOT NULL,
                    processId INTEGER NOT NULL,
                    lastSuccessfulSync DATETIME,
                    lastError TEXT,
                    nextRetry DATETIME
                );
                """)
    }

    /// Issue 32: a trusted sender's images load only when the account's provider vouched for the
    /// From. `email.authenticationResults`: the message's `Authentication-Results` as read at sync
    /// (JSON), NULL for mail stored before, which stays unverified. `account.authservId`: whose
    /// results count, when the provider table has no entry (NULL: the table's).
    static func addSenderAuthentication(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE email ADD COLUMN authenticationResults TEXT")
        try db.execute(sql: "ALTER TABLE account ADD COLUMN authservId TEXT")
    }

    /// Issue 35: the addresses a person sends from, each with a display name and a signature. Every
    /// account gets its own address as its default identity (with its display name) and one
    /// identity per alias it had. `emailKey` is the address lowercased, the one comparison.
    /// `account.aliases` stays: the non-default identities' addresses, written with every change
    /// of them, as what the rest of the store reads as the person's addresses.
    /// `email.deliveredTo`: the addresses of `Delivered-To` and `X-Original-To` (JSON), empty for
    /// mail stored before.
    static func createIdentities(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE identity (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    emailAddress TEXT NOT NULL,
                    emailKey TEXT NOT NULL,
                    displayName TEXT,
                    signature TEXT,
                    isDefault BOOLEAN NOT NULL DEFAULT 0,
                    UNIQUE (accountId, emailKey)
                );
                CREATE UNIQUE INDEX identityDefault ON identity(accountId) WHERE isDefault;
                ALTER TABLE email ADD COLUMN deliveredTo TEXT NOT NULL DEFAULT '[]';
                """)
        let accounts = try Row.fetchAll(db, sql: "SELECT id, emailAddress, displayName, aliases FROM account ORDER BY createdDate, name")
        for account in accounts {
            let address: String = account["emailAddress"]
            let aliases = (account["aliases"] as String? ?? "").split(separator: " ").map(String.init)
            try db.execute(
                sql: "INSERT INTO identity (accountId, emailAddress, emailKey, displayName, isDefault) VALUES (?, ?, ?, ?, 1)",
                arguments: [account["id"] as String, address, address.lowercased(), account["displayName"] as String?])
            for alias in aliases where alias.lowercased() != address.lowercased() {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO identity (accountId, emailAddress, emailKey, displayName) VALUES (?, ?, ?, ?)",
                    arguments: [account["id"] as String, alias, alias.lowercased(), account["displayName"] as String?])
            }
        }
    }

    /// Issue 36: the flags few emails have, as partial indexes of ids, so `is:unread`, `is:starred` and
    /// `has:attachment` alone walk only their emails, newest first, instead of every email
    /// (EXPLAIN QUERY PLAN in `SearchQueryCompilerTests`); small, and cheap to keep up at sync. Date and
    /// size ranges have none: with the newest-first order and the limit, SQLite walks the email table
    /// from its newest row and stops at the limit rather than sort a range (docs/decisions.md).
    static func addSearchOperatorIndexes(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE INDEX email_unread ON email(id) WHERE isRead = 0;
                CREATE INDEX email_starred ON email(id) WHERE isStarred = 1;
                CREATE INDEX email_with_attachments ON email(id) WHERE hasAttachments = 1;
                """)
    }

    /// Issue 37: `email.readReceiptTo`, where a read receipt would go (the addresses of
    /// `Disposition-Notification-To` or `Return-Receipt-To`, JSON like the other address columns;
    /// `[]` for mail stored before, whose requests are not known); `email.readReceiptState`, the
    /// person's Send receipt (`sent`) or Ignore (`ignored`).
    static func addReadReceipts(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE email ADD COLUMN readReceiptTo TEXT NOT NULL DEFAULT '[]'")
        try db.execute(sql: "ALTER TABLE email ADD COLUMN readReceiptState TEXT CHECK (readReceiptState IN ('sent', 'ignored'))")
    }

    /// Issue 37's `tern privacy`: what each received message's body tried, counted once by the
    /// sanitizer (`MessagePrivacyFacts`) so a report reads the store instead of sanitizing every
    /// body again. `version` is the sanitizer counting's (`MessagePrivacyFacts.version`); host lists
    /// are JSON. Filled by the report itself for the messages that lack a row.
    static func createMessagePrivacy(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE messagePrivacy (
                    emailId INTEGER PRIMARY KEY REFERENCES email(id) ON DELETE CASCADE,
                    version INTEGER NOT NULL,
                    imageTrackers INTEGER NOT NULL,
                    cssTrackers INTEGER NOT NULL,
                    fontTrackers INTEGER NOT NULL,
                    trackerHosts TEXT NOT NULL,
                    remoteHosts TEXT NOT NULL,
                    linksCleaned INTEGER NOT NULL,
                    linksTracked INTEGER NOT NULL,
                    trackedLinkHosts TEXT NOT NULL
                );
                """)
    }

    /// Issue 34. `awaitingAttachments` (CO01-15): a forward queued while its original's attachments
    /// are not local; its `rawMessage` is a stand-in until the queue downloads them and writes the
    /// real bytes (with the same Message-ID), and no SMTP transaction starts while it is set.
    /// `waitingForServer` (FR-SYNC-07): the message's backoff is a recheck for a server that could not
    /// be reached, not a retry after a refusal: `tern outbox flush` and the network's return skip it.
    static func addAwaitingAttachments(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE outgoingMessage ADD COLUMN awaitingAttachments INTEGER NOT NULL DEFAULT 0")
        try db.execute(sql: "ALTER TABLE outgoingMessage ADD COLUMN waitingForServer INTEGER NOT NULL DEFAULT 0")
    }

    /// Issue 37: `email.originalRecipient`, the address of a receipt-requesting message's
    /// `Original-Recipient` field, repeated in its MDN (RFC 8098 section 3.2.3).
    static func addOriginalRecipient(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE email ADD COLUMN originalRecipient TEXT")
    }

    /// Issue 36: the person's unsubscribes (RFC 2369, RFC 8058), one row per account and list (the
    /// `List-Id`, else the address the request went to), the last result kept: what a front end
    /// shows when the person looks at the list's mail again.
    static func createListUnsubscriptions(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE listUnsubscription (
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    listKey TEXT NOT NULL,
                    method TEXT NOT NULL CHECK (method IN ('one-click', 'mail')),
                    target TEXT NOT NULL,
                    outcome TEXT NOT NULL CHECK (outcome IN ('unsubscribed', 'mail-sent', 'mail-queued', 'refused', 'failed')),
                    detail TEXT NOT NULL,
                    date DATETIME NOT NULL,
                    PRIMARY KEY (accountId, listKey)
                );
                """)
    }

    /// Issue 35: certificates a person trusted by fingerprint, one line `host port sha256` each.
    static func addAccountPinnedCertificates(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE account ADD COLUMN pinnedCertificates TEXT NOT NULL DEFAULT ''")
    }

    /// Issue 35: `none`, a server the person chose to reach without encryption, joins the allowed
    /// securities. SQLite cannot change a CHECK, so the table is rebuilt from its own current
    /// definition (every column added since v1 kept, in order), as SQLite's ALTER TABLE page
    /// describes; foreign keys are checked by the migrator after it.
    static func allowAccountPlaintextSecurity(_ db: Database) throws {
        try rebuildAccountTable(db, replacing: "IN ('tls', 'starttls')", with: "IN ('tls', 'starttls', 'none')")
    }

    /// The account table rebuilt from its own definition with one CHECK's list widened, its rows
    /// kept (SQLite cannot widen a CHECK in place).
    static func rebuildAccountTable(_ db: Database, replacing list: String, with widened: String) throws {
        guard let definition = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'account'") else {
            return
        }
        let relaxed = definition.replacingOccurrences(of: list, with: widened)
        guard let name = relaxed.range(of: "account") else { return }
        try db.execute(sql: relaxed.replacingCharacters(in: name, with: "newAccount"))
        try db.execute(sql: "INSERT INTO newAccount SELECT * FROM account")
        try db.execute(sql: "DROP TABLE account")
        try db.execute(sql: "ALTER TABLE newAccount RENAME TO account")
    }

    /// Issue 36, Send later: `email.sendScheduledAt`, the time a queued message may go (never before
    /// it); NULL for a message sent now.
    static func addScheduledSend(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE email ADD COLUMN sendScheduledAt DATETIME")
    }

    /// Issue 36: a move to any folder and a copy ("Label as…") wait for the server like archive,
    /// naming the folder they go to. SQLite cannot widen a CHECK in place, so the table is rebuilt
    /// with every column it has and its indexes (https://sqlite.org/lang_altertable.html, "other
    /// kinds of table schema changes").
    static func addPendingMoveAndCopy(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE pendingOperation_v20 (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL CHECK (kind IN ('addFlag', 'removeFlag', 'archive', 'delete', 'fileSentCopy', 'move', 'copy')),
                    flag TEXT,
                    emailId INTEGER NOT NULL REFERENCES email(id) ON DELETE CASCADE,
                    folderId INTEGER REFERENCES folder(id) ON DELETE CASCADE,
                    imapUID INTEGER,
                    serverFlags TEXT,
                    modSeq INTEGER,
                    state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'failed')),
                    attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                    notBefore DATETIME,
                    lastError TEXT,
                    createdDate DATETIME NOT NULL,
                    uidValidity INTEGER,
                    undoToken TEXT,
                    -- move and copy: the destination; its deletion leaves the change to fail at its push.
                    targetFolderId INTEGER REFERENCES folder(id) ON DELETE SET NULL
                );
                INSERT INTO pendingOperation_v20 (
                    id, accountId, kind, flag, emailId, folderId, imapUID, serverFlags, modSeq, state, attempts, notBefore,
                    lastError, createdDate, uidValidity, undoToken)
                SELECT id, accountId, kind, flag, emailId, folderId, imapUID, serverFlags, modSeq, state, attempts, notBefore,
                    lastError, createdDate, uidValidity, undoToken
                FROM pendingOperation;
                DROP TABLE pendingOperation;
                ALTER TABLE pendingOperation_v20 RENAME TO pendingOperation;
                CREATE INDEX pendingOperation_due ON pendingOperation(accountId, state, notBefore);
                CREATE INDEX pendingOperation_by_copy ON pendingOperation(folderId, imapUID);
                CREATE INDEX pendingOperation_by_email ON pendingOperation(emailId);
                CREATE INDEX pendingOperation_by_undo ON pendingOperation(undoToken) WHERE undoToken IS NOT NULL;
                CREATE INDEX pendingOperation_by_target ON pendingOperation(targetFolderId) WHERE targetFolderId IS NOT NULL;
                """)
    }

    /// Issue 38: the thread list's order is (latestDate DESC, threadId DESC); the index now holds both, so a
    /// page is a walk of one folder's range that stops at the limit. It held (latestDate DESC) with the key's
    /// threadId ascending after it, which could not give that order: SQLite sorted every row of the folder.
    static func orderThreadListIndexByThread(_ db: Database) throws {
        try db.execute(
            sql: """
                DROP INDEX threadFolder_by_folder_date;
                CREATE INDEX threadFolder_by_folder_date ON threadFolder(folderId, latestDate DESC, threadId DESC);
                """)
    }

    /// Issue 38: what every sync asks about the whole store, as partial indexes of the few rows concerned: the
    /// emails whose text is still to fetch by date (a folder's hydration walks back from the newest to the
    /// policy's cutoff), and the search rows that failed. Both questions read every email before.
    static func indexPendingBodiesAndUnindexedEmails(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE INDEX email_needing_bodies ON email(dateReceived) WHERE bodiesFetched = 0 AND bodyStructure IS NOT NULL;
                CREATE INDEX searchIndexState_unindexed ON searchIndexState(emailId) WHERE indexedDate IS NULL;
                """)
    }

    /// Issue 36: every one-shot command looks for Send later messages whose time came; without an
    /// index that question read every email (the Outbox's index starts with the account).
    static func indexScheduledSends(_ db: Database) throws {
        try db.execute(
            sql: "CREATE INDEX email_scheduled_send ON email(sendScheduledAt) WHERE sendScheduledAt IS NOT NULL AND sendState = 'queued'")
    }

    /// Issue 35: `account.provider` may be `microsoft` (Outlook.com, Microsoft 365), whose tokens
    /// refresh at Microsoft's endpoint.
    static func allowAccountMicrosoftProvider(_ db: Database) throws {
        try rebuildAccountTable(db, replacing: "IN ('gmail', 'imap')", with: "IN ('gmail', 'imap', 'microsoft')")
    }

    /// Issue 35: the OAuth app a person registered with each provider, stored once and used for
    /// every account of that provider (`OAuthClientRegistration`).
    static func createOAuthClients(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE oauthClient (
                    provider TEXT PRIMARY KEY NOT NULL CHECK (provider IN ('google', 'microsoft')),
                    clientId TEXT NOT NULL CHECK (clientId <> ''),
                    clientSecret TEXT
                )
                """)
    }

    /// Issue 36: folder create, rename and delete wait for their undo window like archive, then for the
    /// server. Rows of their own: they name no email, and the stored folders stay as the server has
    /// them until it accepts the change (the folder list lays the waiting ones over them).
    static func createPendingFolderChanges(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE pendingFolderChange (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    accountId TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL CHECK (kind IN ('create', 'rename', 'delete')),
                    path TEXT NOT NULL,
                    -- rename: the new path.
                    newPath TEXT,
                    state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'failed')),
                    attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                    notBefore DATETIME,
                    lastError TEXT,
                    createdDate DATETIME NOT NULL,
                    undoToken TEXT
                );
                CREATE INDEX pendingFolderChange_by_account ON pendingFolderChange(accountId, state, id);
                CREATE INDEX pendingFolderChange_by_undo ON pendingFolderChange(undoToken) WHERE undoToken IS NOT NULL;
                """)
    }

    /// Issue 36: when a snoozed message woke (here, or by the `$WokenAt` keyword another Tern set), so
    /// its thread's row in the per-folder list sorts at that time, on top of the Inbox. No index: the
    /// list still walks `threadFolder_by_folder_date`, whose date counts it.
    static func addEmailWokenDate(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE email ADD COLUMN wokenDate DATETIME")
    }

    /// Issue 38: the received dates of each block of 1,024 email ids, as bounds (`oldest` at or before every
    /// email's date in the block, `newest` at or after). Search lists newest first by id; a date operator
    /// (`before:`, `older_than:`) turns into an id range through this table, so FTS5 and the flag indexes
    /// start at the first block that can hold a match instead of walking every newer email
    /// (`SearchQueryCompiler.idRange`). Triggers only widen the bounds: a deleted email leaves them wider
    /// than needed, never wrong.
    static func createEmailDateBlocks(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE emailDateBlock (
                    block INTEGER PRIMARY KEY,
                    oldest DATETIME NOT NULL,
                    newest DATETIME NOT NULL
                );
                INSERT INTO emailDateBlock (block, oldest, newest)
                    SELECT id >> \(emailDateBlockShift), MIN(dateReceived), MAX(dateReceived) FROM email GROUP BY id >> \(emailDateBlockShift);
                CREATE TRIGGER emailDateBlock_insert AFTER INSERT ON email BEGIN
                    INSERT INTO emailDateBlock (block, oldest, newest) VALUES (new.id >> \(emailDateBlockShift), new.dateReceived, new.dateReceived)
                    ON CONFLICT (block) DO UPDATE SET oldest = MIN(oldest, excluded.oldest), newest = MAX(newest, excluded.newest);
                END;
                CREATE TRIGGER emailDateBlock_update AFTER UPDATE OF id, dateReceived ON email BEGIN
                    INSERT INTO emailDateBlock (block, oldest, newest) VALUES (new.id >> \(emailDateBlockShift), new.dateReceived, new.dateReceived)
                    ON CONFLICT (block) DO UPDATE SET oldest = MIN(oldest, excluded.oldest), newest = MAX(newest, excluded.newest);
                END;
                """)
    }

    /// Issue 38: the highest email id up to which every email is known to have its `searchIndexState` row.
    /// The sync's Indexing step (FR-SYNC-04) looks for emails without one only above it: email ids are
    /// never reused (AUTOINCREMENT) and a state row goes only with its email, so what was checked stays
    /// checked. Counting both tables on every sync walked two million index entries at 1,000,000 messages.
    static func createSearchIndexCoverage(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE searchIndexCoverage (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    checkedThroughEmailId INTEGER NOT NULL
                );
                INSERT INTO searchIndexCoverage (id, checkedThroughEmailId) VALUES (1, 0);
                """)
    }

    /// An email's block in `emailDateBlock` is its id shifted right by this: 1,024 ids a block, about a
    /// thousand rows at 1,000,000 messages, read whole in well under a millisecond.
    static let emailDateBlockShift = 10

    /// Issue 38: each folder's copies and unread copies, kept as the copies and the read flags change, so the
    /// folder list (`tern folders`, the web app's folder pane) reads a row per folder instead of counting a
    /// million index entries. The counts are exactly the list's former statements — `COUNT(*)` of the
    /// folder's `emailFolder` rows, and of those whose email has `isRead = 0` — and the triggers keep them so
    /// for every write, whichever path makes it (sync, local actions and their undo, expunge, folder and
    /// account removal by cascade): nothing in Swift writes this table.
    ///
    /// A deleted email's copies go by cascade after its row is gone (SQLite deletes the row, then runs the
    /// foreign-key actions), so their delete trigger no longer sees whether it was unread: the email's
    /// BEFORE DELETE trigger takes its unread copies off while they are still there. A copy's delete only
    /// updates (a folder deleted in the same cascade has no row left to write), and its insert creates the
    /// row when the folder has none. A migration that rebuilds `email`, `emailFolder` or `folder` drops
    /// these triggers with the old table and must create them again (`FolderCountTests` checks they exist).
    static func createFolderCounts(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE folderCount (
                    folderId INTEGER PRIMARY KEY REFERENCES folder(id) ON DELETE CASCADE,
                    messageCount INTEGER NOT NULL DEFAULT 0,
                    unreadCount INTEGER NOT NULL DEFAULT 0
                );
                INSERT INTO folderCount (folderId, messageCount)
                    SELECT folderId, COUNT(*) FROM emailFolder GROUP BY folderId;
                UPDATE folderCount SET unreadCount = unread.count FROM (
                    SELECT ef.folderId, COUNT(*) AS count FROM email e CROSS JOIN emailFolder ef ON ef.emailId = e.id
                    WHERE e.isRead = 0 GROUP BY ef.folderId
                ) AS unread WHERE unread.folderId = folderCount.folderId;

                CREATE TRIGGER folderCount_copy_added AFTER INSERT ON emailFolder BEGIN
                    INSERT INTO folderCount (folderId, messageCount, unreadCount)
                    VALUES (new.folderId, 1, COALESCE((SELECT isRead = 0 FROM email WHERE id = new.emailId), 0))
                    ON CONFLICT (folderId) DO UPDATE SET
                        messageCount = messageCount + 1, unreadCount = unreadCount + excluded.unreadCount;
                END;
                CREATE TRIGGER folderCount_copy_removed AFTER DELETE ON emailFolder BEGIN
                    UPDATE folderCount SET messageCount = messageCount - 1,
                        unreadCount = unreadCount - COALESCE((SELECT isRead = 0 FROM email WHERE id = old.emailId), 0)
                    WHERE folderId = old.folderId;
                END;
                CREATE TRIGGER folderCount_copy_changed AFTER UPDATE OF emailId, folderId ON emailFolder
                WHEN old.emailId IS NOT new.emailId OR old.folderId IS NOT new.folderId BEGIN
                    UPDATE folderCount SET messageCount = messageCount - 1,
                        unreadCount = unreadCount - COALESCE((SELECT isRead = 0 FROM email WHERE id = old.emailId), 0)
                    WHERE folderId = old.folderId;
                    INSERT INTO folderCount (folderId, messageCount, unreadCount)
                    VALUES (new.folderId, 1, COALESCE((SELECT isRead = 0 FROM email WHERE id = new.emailId), 0))
                    ON CONFLICT (folderId) DO UPDATE SET
                        messageCount = messageCount + 1, unreadCount = unreadCount + excluded.unreadCount;
                END;
                CREATE TRIGGER folderCount_read_changed AFTER UPDATE OF isRead ON email
                WHEN (old.isRead = 0) IS NOT (new.isRead = 0) BEGIN
                    UPDATE folderCount
                    SET unreadCount = unreadCount + (CASE WHEN new.isRead = 0 THEN 1 ELSE -1 END)
                        * (SELECT COUNT(*) FROM emailFolder ef WHERE ef.emailId = new.id AND ef.folderId = folderCount.folderId)
                    WHERE folderId IN (SELECT folderId FROM emailFolder WHERE emailId = new.id);
                END;
                CREATE TRIGGER folderCount_email_removed BEFORE DELETE ON email WHEN old.isRead = 0 BEGIN
                    UPDATE folderCount
                    SET unreadCount = unreadCount
                        - (SELECT COUNT(*) FROM emailFolder ef WHERE ef.emailId = old.id AND ef.folderId = folderCount.folderId)
                    WHERE folderId IN (SELECT folderId FROM emailFolder WHERE emailId = old.id);
                END;
                """)
    }

    /// The triggers that keep `folderCount` (v36).
    static let folderCountTriggers = [
        "folderCount_copy_added", "folderCount_copy_removed", "folderCount_copy_changed", "folderCount_read_changed",
        "folderCount_email_removed"
    ]
}
