import Foundation

/// A schedule from the environment, for tests that stop a server: seconds, comma-separated (e.g.
/// `0.2,0.4,0.8`), each at most an hour. Empty when the variable is unset or names no delay.
enum ConfiguredDelays {
    static func parse(_ environment: [String: String], _ name: String) -> [Duration] {
        (environment[name] ?? "").split(separator: ",")
            .compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }.filter { $0 >= 0 && $0 <= 3600 }
            .map { .milliseconds(Int($0 * 1000)) }
    }
}
