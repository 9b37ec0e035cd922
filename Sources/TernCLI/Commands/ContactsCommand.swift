import ArgumentParser
import Foundation
import TernCore
import TernRuntime

/// `tern contacts QUERY`: FR-COMP-04's suggestions for what was typed, from local mail only.
struct ContactsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contacts", abstract: "Suggest recipients: people in your synced mail whose name or address has a word starting with QUERY.")

    @Argument(help: "What was typed (case and accents do not matter).")
    var query: String
    @Option(help: "At most this many suggestions.")
    var limit = ContactsAutocompleteUseCase.defaultLimit
    @OptionGroup var output: OutputOptions

    func run() async throws {
        guard limit > 0 else { throw ValidationError("--limit must be at least 1") }
        let suggestions = try await services().contactsAutocomplete.suggestions(for: query, limit: limit)
        if output.json {
            try printJSON(suggestions)
            return
        }
        if suggestions.isEmpty {
            print("No contact matches '\(TerminalText.line(query))'.")
            return
        }
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        print(
            TextTable(
                header: ["NAME", "ADDRESS", "SEEN", "LAST"],
                rows: suggestions.map {
                    [$0.name ?? "", $0.address, String($0.frequency), formatter.string(from: $0.lastSeenDate)]
                }
            ).rendered)
    }
}
