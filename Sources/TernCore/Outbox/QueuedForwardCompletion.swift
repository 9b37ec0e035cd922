import Foundation

/// CO01-15 (issue 34): a forward may be queued offline. Its original's attachments that are not
/// local are pending; the queue downloads them when the server can be reached and writes the
/// message's real bytes before its SMTP transaction, which never starts while one is missing.
public protocol QueuedAttachmentCompleting: Sendable {
    /// Downloads what `entry` still lacks and stores its complete message. Throws the download's
    /// failure: a transient one (`TernError.isTransient`, the server not reachable) keeps the
    /// message waiting in its place; any other fails it.
    func complete(_ entry: OutboxEntry, account: Account) async throws
}

/// The live completion: the draft the message was sent from (linked to it until it is sent)
/// holds what was written and which originals' attachments go with it; the message is built again
/// from it with every attachment, under the same Message-ID and date, so what goes out is what the
/// person sent and a recovery after a crash finds it in Sent.
public struct QueuedForwardCompletion: QueuedAttachmentCompleting {
    let drafts: any DraftStore
    let attachments: any ComposeAttachmentLoading
    let composer: any MessageComposing
    let outbox: any OutboxStore
    let clock: any WallClock

    public init(
        drafts: any DraftStore, attachments: any ComposeAttachmentLoading, composer: any MessageComposing, outbox: any OutboxStore,
        clock: any WallClock = SystemClock()
    ) {
        self.drafts = drafts
        self.attachments = attachments
        self.composer = composer
        self.outbox = outbox
        self.clock = clock
    }

    public func complete(_ entry: OutboxEntry, account: Account) async throws {
        guard let draft = try await drafts.draft(holding: entry.emailId) else {
            throw TernError.notFound("the draft of message \(entry.emailId), whose forwarded attachments were to be downloaded")
        }
        var loaded: [OutgoingAttachment] = []
        for attachment in draft.content.attachments { loaded.append(try await attachments.load(attachment)) }
        let standIn = try await outbox.submission(emailId: entry.emailId)
        let date = standIn?.date ?? entry.queuedDate ?? clock.now()
        var message = draft.content.outgoingMessage(date: date, attachments: loaded)
        message.messageId = standIn.flatMap { $0.messageId.isEmpty ? nil : $0.messageId }
        let composed = try composer.compose(message, accountId: account.id, at: date)
        try await outbox.completeAttachments(entry.emailId, with: composed)
    }
}
