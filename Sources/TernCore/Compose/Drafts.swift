import Foundation

/// A message saved before it was sent (FR-COMP-01 "Draft lifecycle", FR-SYNC-05). Saved locally
/// first; its server copy in the account's Drafts mailbox follows, best-effort and retried.
/// Every version of one draft carries the same Message-ID (`messageId`): that is how a new
/// version finds and replaces the previous one on the server, and how the Drafts list knows a
/// synced copy is this draft and not another.
public struct Draft: Sendable, Hashable, Codable, Identifiable {
    public typealias ID = DraftID

    public var id: ID
    public var accountId: Account.ID
    public var messageId: String
    public var content: ComposeDraft
    /// Grows by one with every save that changed something, and when the server's version replaces it.
    public var revision: Int
    public var createdDate: Date
    public var updatedDate: Date
    public var sync: DraftSyncStatus
    /// The server copy this draft last wrote or read, when it has one.
    public var serverCopy: DraftServerCopy?
    /// FR-COMP-01 "Conflict": the server's version replaced the local one since the composer opened
    /// it ("This draft was updated on another device. Reload?"); cleared by the next save or reload.
    public var changedOnServer: Bool
    /// FR-COMP-02: the queued message of this draft while it is in its undo window. The draft stays
    /// until the window ends, so Undo, or a process killed in the window, leaves it a draft.
    public var heldEmailId: EmailID?

    public init(
        id: ID, accountId: Account.ID, messageId: String, content: ComposeDraft, revision: Int, createdDate: Date, updatedDate: Date,
        sync: DraftSyncStatus, serverCopy: DraftServerCopy? = nil, changedOnServer: Bool = false, heldEmailId: EmailID? = nil
    ) {
        self.id = id
        self.accountId = accountId
        self.messageId = messageId
        self.content = content
        self.revision = revision
        self.createdDate = createdDate
        self.updatedDate = updatedDate
        self.sync = sync
        self.serverCopy = serverCopy
        self.changedOnServer = changedOnServer
        self.heldEmailId = heldEmailId
    }
}

/// Where a draft stands with the server.
public struct DraftSyncStatus: Sendable, Hashable, Codable {
    public enum State: String, Sendable, Hashable, Codable {
        /// A revision the server does not have yet.
        case pending
        /// The server's copy is this revision.
        case synced
        /// Discarded or sent: the server copy is to be removed, then the row.
        case removing
    }

    public var state: State
    /// Failed attempts since the last success; the retries back off but never give up (a draft is
    /// never lost locally, and a server that comes back gets it).
    public var attempts: Int
    public var notBefore: Date?
    /// The last failure, in the server's or the network's words.
    public var lastError: String?

    public init(state: State, attempts: Int = 0, notBefore: Date? = nil, lastError: String? = nil) {
        self.state = state
        self.attempts = attempts
        self.notBefore = notBefore
        self.lastError = lastError
    }
}

/// A draft's copy on the server: a UID only names it under its mailbox's UIDVALIDITY.
public struct DraftServerCopy: Sendable, Hashable, Codable {
    public var mailbox: String
    public var uid: Int64
    public var uidValidity: Int64

    public init(mailbox: String, uid: Int64, uidValidity: Int64) {
        self.mailbox = mailbox
        self.uid = uid
        self.uidValidity = uidValidity
    }
}

/// A row of the Drafts list: a local draft, or a draft another client saved in the server's Drafts
/// mailbox that Tern has only as synced mail (opening it adopts it: `DraftsUseCase.open(serverEmailId:)`).
public struct DraftSummary: Sendable, Hashable, Codable {
    public enum Origin: String, Sendable, Hashable, Codable {
        case local
        case server
    }

    public var origin: Origin
    /// The draft's id (`local`) or the synced message's email id (`server`).
    public var id: Int64
    public var accountId: Account.ID
    public var subject: String
    public var to: [EmailAddress]
    public var snippet: String
    public var updatedDate: Date
    public var sync: DraftSyncStatus.State?
    public var lastError: String?

    /// The local draft this row is, when it is one.
    public var localDraftId: DraftID? { origin == .local ? DraftID(id) : nil }
    /// The synced message this row is, when it is one.
    public var serverEmailId: EmailID? { origin == .server ? EmailID(id) : nil }

    public init(
        origin: Origin, id: Int64, accountId: Account.ID, subject: String, to: [EmailAddress], snippet: String, updatedDate: Date,
        sync: DraftSyncStatus.State? = nil, lastError: String? = nil
    ) {
        self.origin = origin
        self.id = id
        self.accountId = accountId
        self.subject = subject
        self.to = to
        self.snippet = snippet
        self.updatedDate = updatedDate
        self.sync = sync
        self.lastError = lastError
    }
}

/// What a save did.
public struct DraftSave: Sendable, Hashable, Codable {
    public var draftId: Draft.ID
    public var revision: Int
    /// False when the content was the saved revision already (a save is idempotent).
    public var changed: Bool
    public var savedDate: Date

    public init(draftId: Draft.ID, revision: Int, changed: Bool, savedDate: Date) {
        self.draftId = draftId
        self.revision = revision
        self.changed = changed
        self.savedDate = savedDate
    }
}

/// The drafts' persistence. Each call is one transaction.
public protocol DraftStore: Sendable {
    /// Inserts a draft (`id` nil) or stores a new revision when `content` differs from the stored
    /// one; an unchanged save writes nothing. A new revision is `pending` for the server.
    func save(id: Draft.ID?, accountId: Account.ID, messageId: String, content: ComposeDraft, at date: Date) async throws
        -> DraftSave
    func draft(id: Draft.ID) async throws -> Draft?
    /// The draft whose queued message is `emailId` (in its undo window).
    func draft(holding emailId: EmailID) async throws -> Draft?
    /// Local drafts of an account (every account when nil), newest first; not those being removed
    /// or in their undo window.
    func drafts(accountId: Account.ID?) async throws -> [Draft]
    /// Messages in the Drafts mailboxes (as synced) that are no local draft's copy: drafts written
    /// by other clients.
    func serverOnlyDrafts(accountId: Account.ID?) async throws -> [DraftSummary]
    /// A synced message in a Drafts mailbox, to adopt as a local draft: its row, attachments and copy.
    func serverDraft(emailId: EmailID) async throws -> (original: OriginalMessage, copy: DraftServerCopy)?
    /// Adopts a server draft: a local draft that is that copy (`synced`), same Message-ID.
    func adopt(accountId: Account.ID, messageId: String, content: ComposeDraft, copy: DraftServerCopy, at date: Date) async throws -> Draft.ID
    /// Sent or discarded: removed at once when it has no server copy, else marked `removing`.
    func remove(id: Draft.ID) async throws
    /// Drafts with work for the server (`pending` or `removing`), due at `date` unless `ignoreBackoff`.
    func due(accountId: Account.ID, at date: Date, ignoreBackoff: Bool) async throws -> [Draft]
    /// Synced drafts of an account, to compare with the server's Drafts mailbox.
    func synced(accountId: Account.ID) async throws -> [Draft]
    /// The server now holds `revision`: `synced`, unless a newer revision was saved meanwhile.
    func recordUploaded(id: Draft.ID, revision: Int, copy: DraftServerCopy) async throws
    /// FR-COMP-01 "Conflict": the server's version replaces the local content (a new revision,
    /// `synced`, `changedOnServer`).
    func replaceFromServer(id: Draft.ID, content: ComposeDraft, copy: DraftServerCopy, at date: Date) async throws
    /// The server copy is gone and the draft is removed (removal done, or deleted on another device).
    func delete(id: Draft.ID) async throws
    func recordSyncFailure(id: Draft.ID, error: String, attempts: Int, notBefore: Date) async throws
    func clearChangedOnServer(id: Draft.ID) async throws
    /// FR-COMP-02: links the draft to its queued message for the undo window, or unlinks it.
    func setHeld(id: Draft.ID, emailId: EmailID?) async throws
    /// A held message whose owner died (PLATFORM.md): its queued copy deleted and its draft made
    /// pending for the server again, in one transaction. False when no draft holds it.
    func returnOrphanToDraft(emailId: EmailID) async throws -> Bool
}

/// What a pass asks of the Drafts mailbox for one draft.
public struct DraftServerRequest: Sendable, Hashable {
    public enum Action: Sendable, Hashable {
        /// Put this version in, then remove every other copy with its Message-ID (older versions,
        /// and one a crash left between APPEND and removal). `known`: the copy last written or read.
        case upload(raw: [UInt8], date: Date, known: DraftServerCopy?)
        /// Remove every copy with its Message-ID.
        case remove
        /// Compare the mailbox with `known` (a synced draft).
        case check(known: DraftServerCopy)
    }

    public var draftId: Draft.ID
    public var messageId: String
    public var action: Action

    public init(draftId: Draft.ID, messageId: String, action: Action) {
        self.draftId = draftId
        self.messageId = messageId
        self.action = action
    }
}

public enum DraftServerOutcome: Sendable, Hashable {
    case uploaded(DraftServerCopy)
    case removed
    case unchanged
    /// Another client saved a newer version: its bytes, and where it is.
    case changedOnServer(raw: [UInt8], copy: DraftServerCopy)
    /// Another client deleted it (or sent it).
    case deletedOnServer
    /// Not done; tried again later.
    case failed(String)
}

/// The IMAP side of drafts (the Sync module): one connection per pass, the Drafts mailbox the
/// folder marked `\Drafts` (created when the server has none).
public protocol DraftMailboxServer: Sendable {
    func perform(_ requests: [DraftServerRequest], draftsMailbox: String?, account: Account, credentials: CredentialSupply) async throws
        -> [Draft.ID: DraftServerOutcome]
}

/// A draft as bytes for the Drafts mailbox, and back (the MIME module).
public protocol DraftMessageCoding: Sendable {
    /// RFC 5322 bytes of a draft: recipients optional, Bcc kept (it is the writer's own copy), the
    /// Markdown source as the text part.
    func encode(_ draft: ComposeDraft, messageId: String, attachments: [OutgoingAttachment], date: Date) throws -> [UInt8]
    /// The fields of a draft another client wrote. Attachments are not carried over (`nil` body
    /// when the message has no text part Tern can read).
    func decode(_ raw: [UInt8]) -> DecodedDraft
    func newMessageId(for sender: EmailAddress) -> String
}

/// What `DraftMessageCoding.decode` reads back.
public struct DecodedDraft: Sendable, Hashable {
    public var from: EmailAddress?
    public var to: [EmailAddress]
    public var cc: [EmailAddress]
    public var bcc: [EmailAddress]
    public var subject: String
    public var body: String
    public var inReplyTo: String?
    public var references: [String]
    public var attachmentNames: [String]

    public init(
        from: EmailAddress?, to: [EmailAddress], cc: [EmailAddress], bcc: [EmailAddress], subject: String, body: String,
        inReplyTo: String?, references: [String], attachmentNames: [String]
    ) {
        self.from = from
        self.to = to
        self.cc = cc
        self.bcc = bcc
        self.subject = subject
        self.body = body
        self.inReplyTo = inReplyTo
        self.references = references
        self.attachmentNames = attachmentNames
    }
}

/// The bytes of a composed message's attachments: a forwarded original's (downloaded when not
/// local yet) or a file's.
public protocol ComposeAttachmentLoading: Sendable {
    func load(_ attachment: ComposedAttachment) async throws -> OutgoingAttachment
}

/// A draft's own copies of the files attached to it, so a draft outlives the upload staging area
/// and files the user moves (the runtime keeps them under `$TERN_HOME/drafts/`).
public protocol DraftFiles: Sendable {
    /// The path the draft keeps for `path`: a copy in the draft's directory (`key`), or `path`
    /// itself when it is there already.
    func keep(_ path: String, key: String) throws -> String
    /// The draft's directory and every file in it.
    func removeAll(key: String)
}
