import ArgumentParser
import Foundation
import HTMLSafety

/// `tern sanitize [--allow-remote] [--json] [FILE…]`: what Tern would show of an HTML body.
struct SanitizeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sanitize",
        abstract: "Sanitize HTML as Tern does before showing it: no scripts, no remote loads, no trackers, quotes folded.")

    @Flag(name: .customLong("allow-remote"), help: "Load remote images (trackers are removed anyway).")
    var allowRemote = false
    @Flag(name: .customLong("plain"), help: "The input is a plain-text body: render it as HTML.")
    var plain = false
    @Argument(help: "HTML files (standard input when none).")
    var files: [String] = []
    @OptionGroup var output: OutputOptions

    func run() throws {
        let inputs: [(String, Data)]
        if files.isEmpty {
            inputs = [("-", FileHandle.standardInput.readDataToEndOfFile())]
        } else {
            inputs = try files.map { path in
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw ValidationError("cannot read \(path)")
                }
                return (path, data)
            }
        }
        let options = SanitizeOptions(allowRemoteImages: allowRemote)
        for (_, data) in inputs {
            let result =
                plain
                ? PlainTextRenderer.render(String(decoding: data, as: UTF8.self))
                : HTMLSanitizer.sanitize([UInt8](data), options: options)
            if output.json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                FileHandle.standardOutput.write(TerminalText.json(try encoder.encode(result)) + Data("\n".utf8))
            } else if isatty(STDOUT_FILENO) == 1 {
                print(result.html)
            } else {
                // Markup for a browser or a pipe (the sanitizer's browser and CSS tests read it): the
                // data as it is; only a terminal gets the escaped form.
                FileHandle.standardOutput.write(Data((result.html + "\n").utf8))
            }
        }
    }
}
