import Foundation
import TernCore

/// Resolves an account's secret from its source at the moment it is needed
/// (PLATFORM.md: `password_command`, or an environment variable). The secret is returned to the
/// caller and never written anywhere; error messages name the source, never the secret.
public struct ShellSecretResolver: SecretResolver {
    let environment: [String: String]
    let home: TernHome
    /// A password manager may ask for a passphrase; a command that hangs longer than this is a failure.
    let timeout: Duration

    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment, home: TernHome,
        timeout: Duration = .seconds(60)
    ) {
        self.environment = environment
        self.home = home
        self.timeout = timeout
    }

    public func secret(for source: CredentialSource, accountID: Account.ID) async throws -> String {
        switch source {
        case .passwordEnvironment(let variable):
            guard let value = environment[variable], !value.isEmpty else {
                throw TernError.secretUnavailable("environment variable \(variable) is not set")
            }
            return value
        case .passwordCommand(let command):
            return try await run(command)
        case .oauth2:
            // OAuth accounts have tokens, not a password: `AccountCredentials` handles them.
            throw TernError.secretUnavailable("this account signs in with OAuth; run 'tern account login' to sign in")
        }
    }

    func run(_ command: String) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw TernError.secretUnavailable("password command could not start: \(error.localizedDescription)")
        }
        let timeout = self.timeout
        let watchdog = Task.detached {
            try await Task.sleep(for: timeout)
            if process.isRunning { process.terminate() }
        }
        let (stdout, stderr) = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let stderrData = errors.fileHandleForReading.readDataToEndOfFile()
                let stdoutData = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (stdoutData, stderrData))
            }
        }
        watchdog.cancel()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let detail = String(decoding: stderr, as: UTF8.self)
                .split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            let status = process.terminationReason == .exit ? "exit status \(process.terminationStatus)" : "killed"
            throw TernError.secretUnavailable(
                "password command '\(command)' failed (\(status))\(detail.isEmpty ? "" : ": \(detail)")")
        }
        // Like `pass` and most password commands: the first line is the password.
        let text = String(decoding: stdout, as: UTF8.self)
        let firstLine = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard !firstLine.isEmpty else {
            throw TernError.secretUnavailable("password command '\(command)' printed nothing")
        }
        return firstLine
    }
}
