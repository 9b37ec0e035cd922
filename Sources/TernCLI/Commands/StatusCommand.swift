import ArgumentParser
import Foundation
import TernRuntime

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show where Tern keeps its data and what the store holds.")
    @OptionGroup var output: OutputOptions
    @Flag(help: "Read the whole database through now (PRAGMA quick_check), whatever the last check said.")
    var check = false

    func run() async throws {
        let status = try services().storeStatus(checkIntegrity: check)
        if output.json {
            try printJSON(status)
            return
        }
        print("Home:     \(status.home)")
        print("Database: \(status.database) (schema \(status.schema))")
        if let checked = status.lastIntegrityCheck {
            print("Checked:  \(checked.formatted(.iso8601)) (integrity ok)")
        }
        for (table, count) in status.counts.sorted(by: { $0.key < $1.key }) {
            print("  \(table.padding(toLength: 18, withPad: " ", startingAt: 0)) \(count)")
        }
    }
}
