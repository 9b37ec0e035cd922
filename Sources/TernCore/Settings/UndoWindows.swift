import Foundation

/// FR-COMP-02 and FR-ED-01: the undo windows, read from the settings here and nowhere else, so the
/// web app and the CLI wait the same time and show the same number.
public struct UndoWindowsUseCase: Sendable {
    let settings: SettingsUseCase

    public init(settings: SettingsUseCase) {
        self.settings = settings
    }

    /// How long a sent message waits for Undo (`undo-send-delay`; zero: sent at once).
    public func send() async throws -> Duration {
        let current = try await settings.current()
        return .seconds(current.undoSendDelay)
    }

    /// How long an archive or delete can be undone before it reaches the server (`undo-action-window`).
    public func action() async throws -> Duration {
        let current = try await settings.current()
        return .seconds(current.undoActionWindow)
    }
}

extension Duration {
    /// Whole seconds, as a front end shows a window ("Undo (5)").
    public var wholeSeconds: Int { Int(components.seconds) }
    /// Whole milliseconds, as a page's timer counts what is left of a paused window.
    public var wholeMilliseconds: Int { Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000) }
}
