import Foundation
import TernCore

/// PLATFORM.md: tokens go to the Secret Service (through `secret-tool`) when a desktop session
/// offers one, else to a 0600 file under `$TERN_HOME/secrets/` (a 0700 directory).
enum TokenStoreChoice {
    static func make(home: TernHome, environment: [String: String]) -> any OAuthTokenStore {
        let choice = environment["TERN_TOKEN_STORE"] ?? "auto"
        if choice == "secret-service" || (choice == "auto" && SecretServiceTokenStore.isAvailable(environment: environment)) {
            return SecretServiceTokenStore(fallback: FileTokenStore(home: home))
        }
        return FileTokenStore(home: home)
    }
}

struct FileTokenStore: OAuthTokenStore {
    let home: TernHome

    func tokens(for accountID: Account.ID) async throws -> OAuthTokens? {
        guard let data = try? Data(contentsOf: home.tokenFileURL(for: accountID)), !data.isEmpty else { return nil }
        return try? JSONDecoder.tokens.decode(OAuthTokens.self, from: data)
    }

    func save(_ tokens: OAuthTokens, for accountID: Account.ID) async throws {
        let url = home.tokenFileURL(for: accountID)
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
            let data = try JSONEncoder.tokens.encode(tokens)
            // Created 0600 before the secret is written, then moved into place atomically.
            let temporary = directory.appendingPathComponent(".\(accountID).\(UUID().uuidString).tmp")
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw TernError.storageUnavailable("cannot create \(temporary.path)")
            }
            let handle = try FileHandle(forWritingTo: temporary)
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
            guard rename(temporary.path, url.path) == 0 else {
                try? FileManager.default.removeItem(at: temporary)
                throw TernError.storageUnavailable("cannot store the OAuth token at \(url.path): \(String(cString: strerror(errno)))")
            }
            // The rename is durable only once the directory is: after a crash the old file could
            // come back, with a refresh token a rotating provider has already revoked.
            try Self.synchronizeDirectory(directory)
        } catch let error as TernError {
            throw error
        } catch {
            throw TernError.storageUnavailable("cannot store the OAuth token: \(error.localizedDescription)")
        }
    }

    func delete(for accountID: Account.ID) async throws {
        try? FileManager.default.removeItem(at: home.tokenFileURL(for: accountID))
    }

    static func synchronizeDirectory(_ directory: URL) throws {
        let descriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw TernError.storageUnavailable("cannot open \(directory.path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw TernError.storageUnavailable("cannot sync \(directory.path): \(String(cString: strerror(errno)))") }
    }
}

/// The freedesktop Secret Service through `secret-tool`; the token never touches the disk here.
struct SecretServiceTokenStore: OAuthTokenStore {
    let fallback: FileTokenStore

    static func isAvailable(environment: [String: String]) -> Bool {
        environment["DBUS_SESSION_BUS_ADDRESS"] != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/secret-tool")
    }

    func tokens(for accountID: Account.ID) async throws -> OAuthTokens? {
        guard let output = try? run(["lookup", "service", "tern", "account", accountID.rawValue], input: nil), !output.isEmpty else {
            return try await fallback.tokens(for: accountID)
        }
        return try? JSONDecoder.tokens.decode(OAuthTokens.self, from: output)
    }

    func save(_ tokens: OAuthTokens, for accountID: Account.ID) async throws {
        let data = try JSONEncoder.tokens.encode(tokens)
        do {
            _ = try run(["store", "--label", "Tern OAuth token", "service", "tern", "account", accountID.rawValue], input: data)
        } catch {
            throw TernError.storageUnavailable("the Secret Service refused the token: \(error)")
        }
    }

    func delete(for accountID: Account.ID) async throws {
        _ = try? run(["clear", "service", "tern", "account", accountID.rawValue], input: nil)
        try await fallback.delete(for: accountID)
    }

    private func run(_ arguments: [String], input: Data?) throws -> Data {
        try SecretTool.run(arguments, input: input)
    }
}

extension JSONEncoder {
    static var tokens: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

extension JSONDecoder {
    static var tokens: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
