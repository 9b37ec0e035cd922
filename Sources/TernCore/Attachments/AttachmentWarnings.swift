import FileNameSafety
import Foundation

/// A warning a front end shows, and must have answered, before an attachment is downloaded
/// (FR-ED-03, FR-SYNC-08, AC-U-10, AC-U-10b). Both kinds are shown when both apply.
public struct AttachmentWarning: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable {
        case windowsExecutable, runsCode, script, archive, androidPackage
        /// ≥ 25 MB on a metered connection.
        case largeOnMeteredConnection
    }

    public var kind: Kind
    /// The spec's text, word for word.
    public var text: String

    public init(kind: Kind, text: String) {
        self.kind = kind
        self.text = text
    }

    /// FR-SYNC-08: the size from which a metered connection asks first.
    public static let meteredThresholdBytes: Int64 = 25 * 1024 * 1024

    /// FR-ED-03's table, by extension (case-insensitive; `.tar.gz` by its two last extensions).
    static let dangerousTypes: [(extensions: [String], kind: Kind, text: String)] = [
        (["exe", "bat", "cmd", "com", "msi"], .windowsExecutable, "This file is a Windows executable."),
        (["app", "command", "sh", "pkg", "dmg"], .runsCode, "This file can run code on your Mac."),
        (["js", "vbs", "wsf", "scr"], .script, "This file is a script that can run code."),
        (["zip", "rar", "7z", "tar.gz"], .archive, "This archive may contain executable files."),
        (["apk"], .androidPackage, "This file is an Android application package."),
    ]

    /// The warnings for an attachment, the type's first, then the metered one. The type is judged on
    /// the name without its invisible characters (`AttachmentFilename.judgedName`, issue 32).
    public static func before(downloading filename: String, size: Int64, metered: Bool) -> [AttachmentWarning] {
        var warnings: [AttachmentWarning] = []
        let name = AttachmentFilename.judgedName(filename)
        if let type = dangerousTypes.first(where: { type in type.extensions.contains { name.hasSuffix("." + $0) } }) {
            warnings.append(AttachmentWarning(kind: type.kind, text: type.text))
        }
        if metered, size >= meteredThresholdBytes {
            warnings.append(AttachmentWarning(kind: .largeOnMeteredConnection, text: "This attachment is \(megabytes(size)). Download on cellular?"))
        }
        return warnings
    }

    /// "30 MB" for 30 MiB, as mail clients show sizes.
    static func megabytes(_ bytes: Int64) -> String {
        "\((bytes + 512 * 1024) / (1024 * 1024)) MB"
    }
}

/// Whether the connection is metered (PLATFORM.md: NetworkManager's metered state when it is
/// available); nil when it cannot be told.
public protocol MeteredConnectionDetecting: Sendable {
    func isMetered() async -> Bool?
}

/// The metered state the warnings use: the `metered` setting (`yes`, `no`), or with `auto` what
/// the system says (not metered when it says nothing).
public struct AttachmentWarningsUseCase: Sendable {
    let settings: any SettingsStore
    let detector: any MeteredConnectionDetecting

    public init(settings: any SettingsStore, detector: any MeteredConnectionDetecting) {
        self.settings = settings
        self.detector = detector
    }

    public func isMetered() async -> Bool {
        switch (try? await settings.settings().meteredConnection) ?? .auto {
        case .yes: true
        case .no: false
        case .auto: await detector.isMetered() ?? false
        }
    }

    public func warnings(filename: String, size: Int64) async -> [AttachmentWarning] {
        AttachmentWarning.before(downloading: filename, size: size, metered: await isMetered())
    }
}
