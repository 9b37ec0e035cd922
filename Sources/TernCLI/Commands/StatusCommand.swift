import ArgumentParser
import Foundation
import TernRuntime

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show where Tern keeps its data and what the store holds.")
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let status = try services().storeStatus()
        if output.json {
            try printJSON(status)
            return
        }
        print("Home:     \(status.home)")
        print("Database: \(status.database) (schema \(status.schema))")
        for (table, count) in status.counts.sorted(by: { $0.key < $1.key }) {
            print("  \(table.padding(toLength: 18, withPad: " ", startingAt: 0)) \(count)")
        }
    }
}
