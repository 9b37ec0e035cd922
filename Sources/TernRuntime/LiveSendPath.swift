import Foundation
import TernCore

/// The live send path as `TernServices` wires it (the SMTP submitter, the IMAP actions for Sent
/// copies, the composer, the undo-window holds), for a tool that drives the real send queue on a
/// scratch store: `tern-bench send` times it (NFR-SYNC-03). Offered as SPI so that the product's
/// public surface stays the use cases, and so that no benchmark code needs to live in the product.
@_spi(Tooling) public struct LiveSendPath: Sendable {
    public let submitter: any MessageSubmitting
    public let server: any ServerMailActions
    public let composer: any MessageComposing
    public let holds: any SendHoldOwnership
}

extension TernServices {
    /// `holdsDirectory` holds the undo-window claims' lock files.
    @_spi(Tooling) public func liveSendPath(holdsDirectory: URL) -> LiveSendPath {
        LiveSendPath(
            submitter: LiveMessageSubmitter(environment: [:]), server: LiveServerMailActions(connections: connections),
            composer: OutgoingMessageComposer(), holds: FileSendHolds(directory: holdsDirectory))
    }
}
