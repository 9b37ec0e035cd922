import Foundation
import TernCore

/// What the web app remembers between requests, one part per concern. Timed policy is not here:
/// the undo window is the core's `UndoSendCoordinator`, the sync engine's schedule its `SyncEngineRunner`,
/// and bodies that arrive come on the change feed.
struct WebState: Sendable {
    /// The latest sync state per account (the folder pane), from the change feed.
    let syncStatuses: SyncStatusBoard
    /// Attachment downloads running, for Cancel.
    let downloads: AttachmentDownloads
    /// The composer's prefill, made once per composer.
    let prefills: ComposePrefillCache
    /// FR-COMP-04's contact index, rebuilt after a minute.
    let contacts: ContactIndexCache
    /// Files attached in the composer, until sent or discarded.
    let uploads: UploadStaging
    /// Issue 35: browser sign-ins waiting for their provider's answer.
    let oauthSignIns: PendingOAuthSignIns
    let autosaveSeconds: Int

    init(changes: ChangeFeed, home: URL, autosaveSeconds: Int = 30) {
        syncStatuses = SyncStatusBoard(changes: changes)
        downloads = AttachmentDownloads()
        prefills = ComposePrefillCache()
        contacts = ContactIndexCache()
        uploads = UploadStaging(directory: home.appendingPathComponent("uploads"))
        oauthSignIns = PendingOAuthSignIns()
        self.autosaveSeconds = autosaveSeconds
    }
}
