import Foundation

/// Where Tern keeps its data: `$TERN_HOME`, else `$XDG_DATA_HOME/tern`, else `~/.local/share/tern`.
public struct TernHome: Sendable, Hashable {
    public let url: URL

    public init(url: URL) { self.url = url.standardizedFileURL }

    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> TernHome {
        if let home = environment["TERN_HOME"], !home.isEmpty {
            return TernHome(url: URL(fileURLWithPath: home, isDirectory: true))
        }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            return TernHome(url: URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("tern", isDirectory: true))
        }
        let userHome =
            environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return TernHome(url: userHome.appendingPathComponent(".local/share/tern", isDirectory: true))
    }

    public var databaseURL: URL { url.appendingPathComponent("tern.sqlite") }
    public var attachmentsURL: URL { url.appendingPathComponent("attachments", isDirectory: true) }
    public var secretsURL: URL { url.appendingPathComponent("secrets", isDirectory: true) }
    /// Tern's own temporary files (the `$EDITOR` file), here rather than in the shared /tmp (issue 32).
    public var temporaryURL: URL { url.appendingPathComponent("tmp", isDirectory: true) }

    public func attachmentsURL(for accountID: Account.ID) -> URL {
        attachmentsURL.appendingPathComponent(accountID.rawValue, isDirectory: true)
    }

    /// A password typed into the web app's "Add account" (issue 35), when no Secret Service keeps it.
    public func passwordFileURL(for accountID: Account.ID) -> URL {
        secretsURL.appendingPathComponent("\(accountID).password")
    }

    public func tokenFileURL(for accountID: Account.ID) -> URL {
        secretsURL.appendingPathComponent("\(accountID).json")
    }
}
