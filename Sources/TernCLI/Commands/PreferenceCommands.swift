import ArgumentParser
import Foundation
import TernCore

/// `tern trust add|list|remove|clear`: FR-ED-04's trusted senders, whose remote images load
/// without asking (trackers are still blocked).
struct TrustCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust", abstract: "Senders whose remote images always load (trackers are still blocked).",
        subcommands: [Add.self, List.self, Remove.self, Clear.self], defaultSubcommand: List.self)

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Trust a sender, by exact address.")
        @Argument(help: "The sender's address.")
        var address: String
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let sender = try await services().trustedSenders.add(address)
            if output.json { return try printJSON(sender) }
            print("remote images from \(sender.senderEmail) will load")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List trusted senders.")
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let senders = try await services().trustedSenders.list()
            if output.json { return try printJSON(senders) }
            if senders.isEmpty { return print("no trusted senders") }
            let formatter = ISO8601DateFormatter()
            print(TextTable(header: ["SENDER", "SINCE"], rows: senders.map { [$0.senderEmail, formatter.string(from: $0.createdDate)] }).rendered)
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Stop trusting a sender.")
        @Argument var address: String

        func run() async throws {
            try await services().trustedSenders.remove(address)
            print("remote images from \(address.lowercased()) will be blocked again")
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "clear", abstract: "Stop trusting every sender.")
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let removed = try await services().trustedSenders.clear()
            if output.json { return try printJSON(["removed": removed]) }
            print("removed \(removed) trusted sender\(removed == 1 ? "" : "s")")
        }
    }
}

/// `tern settings [list | get KEY | set KEY VALUE | reset KEY]`.
struct SettingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings", abstract: "Show or change settings (undo-send-delay, metered, body-download, undo-action-window).",
        subcommands: [List.self, Get.self, Set.self, Reset.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Every setting with its value.")
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let values = try await services().settings.list()
            if output.json { return try printJSON(Dictionary(uniqueKeysWithValues: values.map { ($0.key.rawValue, $0.value) })) }
            print(TextTable(header: ["SETTING", "VALUE"], rows: values.map { [$0.key.rawValue, $0.value] }).rendered)
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "One setting's value.")
        @Argument var key: SettingKey
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let value = try await services().settings.current().text(of: key)
            if output.json { return try printJSON([key.rawValue: value]) }
            print(value)
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Change a setting.")
        @Argument var key: SettingKey
        @Argument var value: String

        func run() async throws {
            try await services().settings.set(key, to: value)
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reset", abstract: "Back to the default value.")
        @Argument var key: SettingKey

        func run() async throws {
            try await services().settings.reset(key)
        }
    }
}

extension SettingKey: ExpressibleByArgument {}
