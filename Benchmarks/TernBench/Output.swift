import ArgumentParser
import Foundation

/// `--json` for every measurement, as `tern` spells it.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false
}

/// The reports as `tern --json` writes JSON (sorted keys, ISO 8601 dates), for the scripts that
/// read them (scripts/bench, scripts/assist_eval.py). Not for a terminal: no escaping of control
/// characters, which the reports' numbers and generated names do not hold.
func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    FileHandle.standardOutput.write(try encoder.encode(value))
    FileHandle.standardOutput.write(Data("\n".utf8))
}
