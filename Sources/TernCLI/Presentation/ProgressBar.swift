import Foundation
import Synchronization
import TernCore

/// A one-line progress bar on standard error for a download (FR-ED-03's determinate progress when
/// the size is known, bytes alone when it is not). Redrawn at most ten times a second.
final class ProgressBar: Sendable {
    private let label: String
    private let lastDrawn = Mutex<ContinuousClock.Instant?>(nil)
    static let width = 30

    init(label: String) {
        self.label = TerminalText.line(label)
    }

    func show(_ event: AttachmentProgress) {
        switch event.phase {
        case .downloading:
            let now = ContinuousClock.now
            let due = lastDrawn.withLock { last in
                guard last.map({ now - $0 >= .milliseconds(100) }) ?? true else { return false }
                last = now
                return true
            }
            if due { draw(Self.line(label: label, received: event.receivedBytes, total: event.totalBytes)) }
        case .retrying:
            draw("\(label): connection lost, retrying…")
        case .finished, .failed, .cancelled:
            break
        }
    }

    func clear() {
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    private func draw(_ line: String) {
        FileHandle.standardError.write(Data("\r\(line)\u{1B}[K".utf8))
    }

    static func line(label: String, received: Int64, total: Int64?) -> String {
        guard let total, total > 0 else { return "\(label) \(size(received))" }
        let fraction = min(1, Double(received) / Double(total))
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        return "\(label) [\(bar)] \(Int(fraction * 100))% \(size(received)) of \(size(total))"
    }

    static func size(_ bytes: Int64) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1024 * 1024 { return "\(bytes / 1024) KB" }
        return String(format: "%.1f MB", Double(bytes) / 1_048_576)
    }
}

/// Ctrl-C cancels the work instead of killing the process, so the use case cleans up (the partial
/// file, the download state) before `tern` exits.
enum CancelledByInterrupt {
    static func run<Result: Sendable>(_ work: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let task = Task { try await work() }
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { task.cancel() }
        source.resume()
        defer {
            source.cancel()
            signal(SIGINT, SIG_DFL)
        }
        return try await task.value
    }
}
