import Foundation
import TernCore

/// Resolves an account's secret from its source at the moment it is needed
/// (PLATFORM.md: `password_command`, or an environment variable). The secret is returned to the
/// caller and never written anywhere; error messages name the account, never the command (which
/// may hold an inlined secret) nor its output.
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

    public func secret(for account: Account) async throws -> String {
        switch account.credential {
        case .passwordEnvironment(let variable):
            guard let value = environment[variable], !value.isEmpty else {
                throw TernError.secretUnavailable("environment variable \(variable) is not set")
            }
            return value
        case .passwordCommand(let command):
            return try await run(command, account: account.name)
        case .oauth2:
            // OAuth accounts have tokens, not a password: `AccountCredentials` handles them.
            throw TernError.secretUnavailable("this account signs in with OAuth; run 'tern account login' to sign in")
        }
    }

    func run(_ command: String, account: AccountName) async throws -> String {
        let what = "the password command of account '\(account)'"
        let result: PasswordCommand.Outcome
        do {
            result = try await PasswordCommand(command: command, environment: environment, timeout: timeout).run()
        } catch {
            throw TernError.secretUnavailable("\(what) could not start: \(error)")
        }
        switch result.ending {
        case .timedOut:
            throw TernError.secretUnavailable("\(what) did not finish within \(Int(timeout.components.seconds)) s and was stopped")
        case .signal(let number):
            throw TernError.secretUnavailable("\(what) was killed by signal \(number)\(Self.detail(result.stderr))")
        case .exit(let status) where status != 0:
            throw TernError.secretUnavailable("\(what) failed (exit status \(status))\(Self.detail(result.stderr))")
        case .exit:
            break
        }
        // Like `pass` and most password commands: the first line is the password.
        let text = String(decoding: result.stdout, as: UTF8.self)
        let firstLine = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard !firstLine.isEmpty else { throw TernError.secretUnavailable("\(what) printed nothing") }
        return firstLine
    }

    /// The first line the command wrote to standard error (what `pass` or `gpg` say went wrong).
    static func detail(_ stderr: Data) -> String {
        let line = String(decoding: stderr, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return line.isEmpty ? "" : ": \(line.prefix(200))"
    }
}
