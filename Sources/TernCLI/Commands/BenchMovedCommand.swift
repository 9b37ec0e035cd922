import ArgumentParser
import TernCore

/// `tern bench` was the measurements of BENCHMARKS.md; they are a tool of their own now,
/// `tern-bench`, that the product does not link (issue 33). Says where they went.
struct BenchMovedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bench", abstract: "Moved to tern-bench.", shouldDisplay: false)

    @Argument(parsing: .allUnrecognized) var arguments: [String] = []

    func run() throws {
        let command = (["tern-bench"] + arguments).joined(separator: " ")
        throw TernError.invalidInput(
            "benchmarks moved to their own tool: build it with `swift build -c release --product tern-bench`, then run `\(command)`")
    }
}
