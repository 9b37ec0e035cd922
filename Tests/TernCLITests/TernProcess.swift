import Foundation

/// Runs the built `tern` executable as a user would, with its own TERN_HOME.
struct TernProcess {
    let home: URL
    var environment: [String: String]

    init(home: URL? = nil) {
        self.home = home ?? FileManager.default.temporaryDirectory.appendingPathComponent("tern-cli-\(UUID().uuidString)")
        var environment = ProcessInfo.processInfo.environment
        environment["TERN_HOME"] = self.home.path
        self.environment = environment
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `tern` binary sits next to the test bundle in the build directory.
    static var executable: URL {
        let testBinary = URL(
            fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                ?? CommandLine.arguments[0])
        var directory = testBinary.deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("tern")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/tern")
    }

    @discardableResult
    func run(_ arguments: String...) throws -> Result {
        try run(arguments: arguments)
    }

    func run(arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Every byte of every file under TERN_HOME (database, WAL, attachments, secrets).
    func allStoredBytes() throws -> Data {
        var data = Data()
        guard let walker = FileManager.default.enumerator(at: home, includingPropertiesForKeys: [.isRegularFileKey]) else { return data }
        for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            data.append(try Data(contentsOf: url))
        }
        return data
    }
}
