import Foundation
import TernCore

/// PLATFORM.md's "metered connection": NetworkManager's `Metered` property over D-Bus (`busctl`),
/// read at most every 30 s. Nil (not known) when NetworkManager or busctl is not there.
struct NetworkManagerMeteredDetector: MeteredConnectionDetecting {
    /// NMMetered: 0 unknown, 1 yes, 2 no, 3 guess yes, 4 guess no.
    static func metered(fromBusctlOutput output: String) -> Bool? {
        let fields = output.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, fields[0] == "u", let value = Int(fields[1]) else { return nil }
        switch value {
        case 1, 3: return true
        case 2, 4: return false
        default: return nil
        }
    }

    func isMetered() async -> Bool? {
        await Self.answers.current()
    }

    /// Asked again after 30 s: stage D checks before every batch, and a laptop moves between
    /// networks while `tern serve` runs (issue 20).
    private static let answers = MeteredAnswers()

    actor MeteredAnswers {
        private var last: (answer: Bool?, at: ContinuousClock.Instant)?

        func current() -> Bool? {
            if let last, ContinuousClock.now - last.at < .seconds(30) { return last.answer }
            let answer = NetworkManagerMeteredDetector.query()
            last = (answer, .now)
            return answer
        }
    }

    fileprivate static func query() -> Bool? {
        let candidates = ["/usr/bin/busctl", "/bin/busctl"]
        guard let busctl = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: busctl)
        process.arguments = [
            "--system", "--timeout=1", "get-property", "org.freedesktop.NetworkManager", "/org/freedesktop/NetworkManager",
            "org.freedesktop.NetworkManager", "Metered"
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return metered(fromBusctlOutput: String(decoding: data, as: UTF8.self))
    }
}
