import Foundation

/// After `tern archive` or `tern delete` returns, the change still has to reach the server when its
/// undo window ends: a detached `tern changes push --after T` does that (its output discarded). If it
/// never runs (killed, machine off), the change stays pending in the store and the next `tern sync`,
/// watch or `tern serve` pushes it: the user meant it (FR-ED-01).
enum BackgroundPush {
    static func start(after date: Date, environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard environment["TERN_NO_BACKGROUND_PUSH"] != "1",
            let executable = Bundle.main.executableURL ?? URL(string: "file:///proc/self/exe")
        else { return }
        let process = Process()
        process.executableURL = executable.resolvingSymlinksInPath()
        process.arguments = ["changes", "push", "--after", String(date.timeIntervalSince1970)]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
    }
}
