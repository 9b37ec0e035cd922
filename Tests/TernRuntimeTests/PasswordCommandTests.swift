import Foundation
import TernCore
import Testing

@testable import TernRuntime

/// Issue 21: the password command runs in a process group of its own that a timeout kills whole,
/// its two output streams are read together, and its errors never quote it.
@Suite(.timeLimit(.minutes(1)))
struct PasswordCommandTests {
    static func account(_ command: String) -> Account {
        Account(
            name: "work", emailAddress: "me@tern.test", provider: .imap,
            imap: ServerEndpoint(host: "127.0.0.1", port: 1, security: .implicitTLS),
            smtp: ServerEndpoint(host: "127.0.0.1", port: 1, security: .implicitTLS),
            username: "me", credential: .passwordCommand(command))
    }

    static func resolver(timeout: Duration) -> ShellSecretResolver {
        ShellSecretResolver(
            environment: ProcessInfo.processInfo.environment, home: TernHome(url: FileManager.default.temporaryDirectory),
            timeout: timeout)
    }

    /// Alive and not a zombie waiting to be reaped.
    static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let state = stat.split(separator: ")").last?.split(separator: " ").first
        else { return false }
        return state != "Z" && state != "X"
    }

    @Test func theTimeoutStopsTheCommandAndEverythingItStarted() async throws {
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("tern-pw-\(UUID().uuidString)")
        // A background job holding standard output, and the shell waiting for it.
        let command = "sleep 300 & echo $! > '\(pidFile.path)'; wait"
        let started = ContinuousClock.now
        await #expect {
            _ = try await Self.resolver(timeout: .seconds(1)).secret(for: Self.account(command))
        } throws: { error in
            guard case TernError.secretUnavailable(let text) = error else { return false }
            return text.contains("did not finish within 1 s")
        }
        #expect(ContinuousClock.now - started < .seconds(30), "the background job did not hold the read open")
        let pid = try #require(Int32(try String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        try await Task.sleep(for: .milliseconds(200))
        #expect(!Self.isRunning(pid), "the background job was killed with its group")
    }

    @Test func muchOutputOnStandardOutputDoesNotStall() async throws {
        // 300 kB fills the stdout pipe long before the command exits; nothing is on stderr.
        let command = "head -c 300000 /dev/zero | tr '\\0' x; echo"
        let secret = try await Self.resolver(timeout: .seconds(20)).secret(for: Self.account(command))
        #expect(secret.count == 300_000)
    }

    @Test func aBackgroundJobLeftByTheCommandDoesNotDelayTheAnswer() async throws {
        let started = ContinuousClock.now
        let secret = try await Self.resolver(timeout: .seconds(20)).secret(for: Self.account("echo pw; sleep 30 &"))
        #expect(secret == "pw")
        // Well under the job's 30 s, with room for a loaded machine (it took 11 s once with the suite in parallel).
        #expect(ContinuousClock.now - started < .seconds(25))
    }

    @Test func anErrorNamesTheAccountAndStatusButNeverTheCommand() async throws {
        let command = "echo 'token=hunter2' > /dev/null; echo 'vault is locked' >&2; echo 'second line' >&2; exit 3"
        await #expect {
            _ = try await Self.resolver(timeout: .seconds(20)).secret(for: Self.account(command))
        } throws: { error in
            guard case TernError.secretUnavailable(let text) = error else { return false }
            return text == "the password command of account 'work' failed (exit status 3): vault is locked"
        }
    }

    @Test func aCommandThatPrintsNothingIsAnError() async throws {
        await #expect {
            _ = try await Self.resolver(timeout: .seconds(20)).secret(for: Self.account("true"))
        } throws: { error in
            guard case TernError.secretUnavailable(let text) = error else { return false }
            return text == "the password command of account 'work' printed nothing"
        }
    }
}
