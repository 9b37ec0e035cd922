import Foundation

/// What the specs make configurable, by the name a person types (`tern settings set metered yes`).
public enum SettingKey: String, Sendable, Hashable, Codable, CaseIterable {
    /// FR-COMP-02: seconds a sent message waits for Undo: 0, 5, 10, 15 or 30.
    case undoSendDelay = "undo-send-delay"
    /// FR-SYNC-08, PLATFORM.md: whether the connection is metered: auto (ask the system), yes, no.
    case meteredConnection = "metered"
    /// FR-SYNC-01 step 7: the body policy accounts start with: none, recent:DAYS, all.
    case bodyDownload = "body-download"
    /// FR-ED-01: seconds an archive or delete can be undone before it reaches the server.
    case undoActionWindow = "undo-action-window"
    /// FR-ED-02, FR-COMP-03 (PLATFORM.md "On-device AI"): who writes summaries and smart replies:
    /// builtin (on this machine, offline), endpoint (a local OpenAI-compatible server), off.
    case assistProvider = "assist"
    /// The OpenAI-compatible server's base URL (`http://127.0.0.1:8080/v1`), loopback unless allowed below.
    case assistEndpoint = "assist-endpoint"
    /// The model name sent to the endpoint (llama.cpp ignores it; Ollama needs it).
    case assistModel = "assist-model"
    /// yes lets the endpoint be on another machine: mail then leaves this one (the Settings screen warns).
    case assistAllowRemote = "assist-allow-remote"
    /// FR-SYNC-01 stage D: on, or paused by the person ("User cancels catch-up"; `on` resumes it).
    case catchUp = "catch-up"
    /// FR-SYNC-01 stage D on a metered connection (FR-SYNC-08): pause (the default) or continue.
    case catchUpOnMetered = "catch-up-on-metered"
    /// Issue 39: the app's appearance: system (follows `prefers-color-scheme`), light or dark.
    case theme = "theme"
    /// Issue 39: how much room the list and the conversation take: comfortable or compact.
    case density = "density"
    /// Issue 39, the Detail spec's Dynamic Type note: the app's and message bodies' text size, in
    /// percent of the browser's own size (which 100 keeps).
    case textSize = "text-size"
    /// Issue 37: ask (each request shown with Send receipt and Ignore) or never (all hidden, none sent).
    case readReceipts = "read-receipts"
}

/// Issue 39: the app's colour scheme.
public enum ThemeSetting: String, Sendable, Hashable, Codable, CaseIterable {
    case system, light, dark
}

/// Issue 39: the list's and the conversation's spacing.
public enum DensitySetting: String, Sendable, Hashable, Codable, CaseIterable {
    case comfortable, compact
}

/// FR-SYNC-01 stage D, as the person set it.
public enum CatchUpSetting: String, Sendable, Hashable, Codable, CaseIterable {
    case on, paused
}

/// What stage D does on a metered connection.
public enum MeteredCatchUpSetting: String, Sendable, Hashable, Codable, CaseIterable {
    case pause, `continue`
}

/// Who writes summaries and smart replies.
public enum AssistProviderSetting: String, Sendable, Hashable, Codable, CaseIterable {
    case builtin, endpoint, off
}

/// FR-SYNC-08's metered override.
public enum MeteredSetting: String, Sendable, Hashable, Codable, CaseIterable {
    case auto, yes, no
}

/// Every setting with its typed value; defaults for what was never set.
public struct TernSettings: Sendable, Hashable, Codable {
    public static let undoSendDelayChoices = [0, 5, 10, 15, 30]
    /// Issue 39: up to 200 %, the size WCAG 1.4.4 asks text to be readable at.
    public static let textSizeChoices = [100, 115, 130, 150, 175, 200]

    public var undoSendDelay = 5
    public var meteredConnection = MeteredSetting.auto
    public var bodyDownload = BodyHydrationPolicy.recent(days: 30)
    public var undoActionWindow = 5
    public var assistProvider = AssistProviderSetting.builtin
    public var assistEndpoint = ""
    public var assistModel = ""
    public var assistAllowRemote = false
    public var catchUp = CatchUpSetting.on
    public var catchUpOnMetered = MeteredCatchUpSetting.pause
    public var theme = ThemeSetting.system
    public var density = DensitySetting.comfortable
    public var textSize = 100
    public var readReceipts = ReadReceiptSetting.ask

    public init() {}

    /// The value as text, as `tern settings` shows it and the store keeps it.
    public func text(of key: SettingKey) -> String {
        switch key {
        case .undoSendDelay: String(undoSendDelay)
        case .meteredConnection: meteredConnection.rawValue
        case .bodyDownload: bodyDownload.settingText
        case .undoActionWindow: String(undoActionWindow)
        case .assistProvider: assistProvider.rawValue
        case .assistEndpoint: assistEndpoint
        case .assistModel: assistModel
        case .assistAllowRemote: assistAllowRemote ? "yes" : "no"
        case .catchUp: catchUp.rawValue
        case .catchUpOnMetered: catchUpOnMetered.rawValue
        case .theme: theme.rawValue
        case .density: density.rawValue
        case .textSize: String(textSize)
        case .readReceipts: readReceipts.rawValue
        }
    }

    /// One of an enumeration's values by name, or the error naming them all.
    static func choice<Choice: RawRepresentable & CaseIterable>(_ value: String, of key: SettingKey, typed text: String) throws(SettingError)
        -> Choice where Choice.RawValue == String
    {
        guard let choice = Choice(rawValue: value) else {
            throw SettingError(key: key, value: text, choices: Choice.allCases.map(\.rawValue))
        }
        return choice
    }

    /// Sets one value from text; a value that is not one of the choices is refused, naming them.
    public mutating func set(_ key: SettingKey, from text: String) throws(SettingError) {
        let value = text.trimmingCharacters(in: .whitespaces).lowercased()
        switch key {
        case .undoSendDelay:
            guard let seconds = Int(value), Self.undoSendDelayChoices.contains(seconds) else {
                throw SettingError(key: key, value: text, choices: Self.undoSendDelayChoices.map(String.init))
            }
            undoSendDelay = seconds
        case .meteredConnection: meteredConnection = try Self.choice(value, of: key, typed: text)
        case .bodyDownload:
            guard let policy = BodyHydrationPolicy(settingText: value) else {
                throw SettingError(key: key, value: text, choices: ["none", "recent:DAYS", "all"])
            }
            bodyDownload = policy
        case .undoActionWindow:
            guard let seconds = Int(value), (0...30).contains(seconds) else {
                throw SettingError(key: key, value: text, choices: ["0…30"])
            }
            undoActionWindow = seconds
        case .assistProvider: assistProvider = try Self.choice(value, of: key, typed: text)
        case .assistEndpoint:
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard trimmed.isEmpty || AssistEndpointAddress(trimmed) != nil else {
                throw SettingError(key: key, value: text, choices: ["http://127.0.0.1:PORT/v1", "http://localhost:PORT/v1", "(empty)"])
            }
            assistEndpoint = trimmed
        case .assistModel:
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard trimmed.count <= 200, !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw SettingError(key: key, value: text, choices: ["a model name of at most 200 characters"])
            }
            assistModel = trimmed
        case .assistAllowRemote:
            switch value {
            case "yes", "true", "on": assistAllowRemote = true
            case "no", "false", "off": assistAllowRemote = false
            default: throw SettingError(key: key, value: text, choices: ["yes", "no"])
            }
        case .catchUp: catchUp = try Self.choice(value, of: key, typed: text)
        case .catchUpOnMetered: catchUpOnMetered = try Self.choice(value, of: key, typed: text)
        case .theme: theme = try Self.choice(value, of: key, typed: text)
        case .density: density = try Self.choice(value, of: key, typed: text)
        case .textSize:
            guard let percent = Int(value.hasSuffix("%") ? String(value.dropLast()) : value), Self.textSizeChoices.contains(percent) else {
                throw SettingError(key: key, value: text, choices: Self.textSizeChoices.map(String.init))
            }
            textSize = percent
        case .readReceipts: readReceipts = try Self.choice(value, of: key, typed: text)
        }
    }
}

/// A value a setting does not take.
public struct SettingError: Error, Sendable, Hashable {
    public var key: SettingKey
    public var value: String
    public var choices: [String]

    public init(key: SettingKey, value: String, choices: [String]) {
        self.key = key
        self.value = value
        self.choices = choices
    }
}

extension BodyHydrationPolicy {
    var settingText: String {
        switch self {
        case .none: "none"
        case .recent(let days): "recent:\(days)"
        case .all: "all"
        }
    }

    init?(settingText text: String) {
        switch text {
        case "none": self = .none
        case "all": self = .all
        case "recent": self = .recent(days: 30)
        default:
            guard text.hasPrefix("recent:"), let days = Int(text.dropFirst(7)), days > 0 else { return nil }
            self = .recent(days: days)
        }
    }
}

/// Settings persistence: key → text.
public protocol SettingsStore: Sendable {
    func values() async throws -> [SettingKey: String]
    func setValue(_ value: String, for key: SettingKey) async throws
    func removeValue(for key: SettingKey) async throws
}

extension SettingsStore {
    /// Every setting typed; a stored value this Tern cannot read counts as unset.
    public func settings() async throws -> TernSettings {
        var settings = TernSettings()
        for (key, value) in try await values() { try? settings.set(key, from: value) }
        return settings
    }
}

/// `tern settings`, the web app's Settings screen: read, list and change settings.
public struct SettingsUseCase: Sendable {
    let store: any SettingsStore
    let changes: ChangeFeed?

    public init(store: any SettingsStore, changes: ChangeFeed? = nil) {
        self.store = store
        self.changes = changes
    }

    public func current() async throws -> TernSettings { try await store.settings() }

    /// Each key with its value as text, in `SettingKey` order.
    public func list() async throws -> [(key: SettingKey, value: String)] {
        let settings = try await store.settings()
        return SettingKey.allCases.map { ($0, settings.text(of: $0)) }
    }

    public func set(_ key: SettingKey, to text: String) async throws {
        var settings = try await store.settings()
        do {
            try settings.set(key, from: text)
        } catch {
            throw TernError.invalidSetting(error)
        }
        try await store.setValue(settings.text(of: key), for: key)
        changes?.publish(.settingChanged(key))
    }

    public func reset(_ key: SettingKey) async throws {
        try await store.removeValue(for: key)
        changes?.publish(.settingChanged(key))
    }
}
