import Foundation
import TernCore

/// Where a running `tern serve` leaves its sign-in address for `tern serve --print-url` (issue 32):
/// the address is printed with its token only on a terminal, so a service's journal never holds
/// it. The file is `$TERN_HOME/secrets/serve.json`, 0600 in the 0700 secrets folder, readable by the
/// same user as the mail store itself, and removed when the server stops.
public struct ServeAddressFile: Sendable {
    struct Contents: Codable, Equatable {
        var pid: Int32
        var host: String
        var port: Int
        var token: String
    }

    public enum ReadError: Error, Equatable, Sendable {
        /// No `tern serve` is running for this `TERN_HOME`.
        case notRunning
    }

    let url: URL

    public init(home: TernHome) {
        url = home.secretsURL.appendingPathComponent("serve.json")
    }

    /// Written before the address is announced, created 0600 then moved into place.
    public func write(_ configuration: WebServerConfiguration) throws {
        let manager = FileManager.default
        try manager.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let contents = Contents(pid: getpid(), host: configuration.host, port: configuration.port, token: configuration.token)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".serve-\(UUID().uuidString).json")
        guard manager.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        do {
            try JSONEncoder().encode(contents).write(to: temporary)
            guard rename(temporary.path, url.path) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
        } catch {
            try? manager.removeItem(at: temporary)
            throw error
        }
    }

    /// Removed only when it is still this process's (a newer server may have replaced it).
    public func remove() {
        guard let contents = try? read(), contents.pid == getpid() else { return }
        try? FileManager.default.removeItem(at: url)
    }

    /// The running server's sign-in address.
    public func signInAddress() throws(ReadError) -> String {
        guard let contents = try? read(), contents.pid > 0, kill(contents.pid, 0) == 0 || errno == EPERM else { throw .notRunning }
        return WebServerConfiguration(host: contents.host, port: contents.port, token: contents.token).signInAddress
    }

    private func read() throws -> Contents {
        try JSONDecoder().decode(Contents.self, from: Data(contentsOf: url))
    }
}
