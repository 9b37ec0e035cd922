import Foundation
import GRDB
import TernCore

/// The local store: one SQLite database in WAL mode at `$TERN_HOME/tern.sqlite`.
///
/// Opening never damages what is there: an existing file is first checked with reads only
/// (is it SQLite at all, was it written by a newer Tern), and only then migrated. A failure is a
/// `TernError` with one line that says what is wrong and leaves the files as they were.
public final class TernDatabase: Sendable {
    public let writer: DatabasePool
    public let url: URL

    public init(home: TernHome) throws {
        let url = home.databaseURL
        try Self.prepareHome(home)
        if FileManager.default.fileExists(atPath: url.path) {
            try Self.preflight(url)
        }
        do {
            var configuration = Configuration()
            configuration.foreignKeysEnabled = true
            configuration.busyMode = .timeout(10)
            configuration.label = "tern"
            writer = try DatabasePool(path: url.path, configuration: configuration)
            try SchemaMigrations.migrator.migrate(writer)
        } catch let error as DatabaseError {
            throw Self.unusable(url, error)
        }
        self.url = url
        Self.restrictPermissions(of: url)
    }

    /// An in-memory-like database in a temporary directory, for tests.
    public static func temporary() throws -> TernDatabase {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-test-\(UUID().uuidString)")
        return try TernDatabase(home: TernHome(url: directory))
    }

    /// The applied migration identifiers, newest last.
    public func appliedMigrations() throws -> [String] {
        try writer.read { db in try SchemaMigrations.migrator.appliedMigrations(db) }
    }

    static func prepareHome(_ home: TernHome) throws {
        let path = home.url.path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw TernError.storageUnavailable("TERN_HOME '\(path)' exists and is not a directory")
            }
        } else {
            try createDirectories(home.url.path)
        }
        guard access(path, W_OK | X_OK) == 0 else {
            throw TernError.storageUnavailable("TERN_HOME '\(path)' is not writable: \(String(cString: strerror(errno)))")
        }
    }

    /// Read-only checks on an existing file before anything may write to it.
    static func preflight(_ url: URL) throws {
        guard access(url.path, R_OK | W_OK) == 0 else {
            throw TernError.storageUnavailable("database '\(url.path)' is not readable and writable: \(String(cString: strerror(errno)))")
        }
        do {
            // Not `readonly`: a read-only connection to a WAL database leaves -shm/-wal files behind,
            // while a read-write connection that only reads removes them again when it closes.
            let queue = try DatabaseQueue(path: url.path)
            try queue.read { db in
                // Forces SQLite to read the header and schema: fails on a file that is not a database.
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
                if try SchemaMigrations.migrator.hasBeenSuperseded(db) {
                    let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
                    let unknown = Set(applied).subtracting(SchemaMigrations.identifiers).sorted()
                    throw TernError.databaseUnusable(
                        "'\(url.path)' was written by a newer version of Tern (schema \(unknown.joined(separator: ", "))); upgrade Tern to open it")
                }
                let quickCheck = try String.fetchOne(db, sql: "PRAGMA quick_check(1)")
                if quickCheck != "ok" {
                    throw TernError.databaseUnusable("'\(url.path)' is damaged (\(quickCheck ?? "unknown")); move it aside to start a fresh store")
                }
            }
            try queue.close()
        } catch let error as DatabaseError {
            throw unusable(url, error)
        }
    }

    static func unusable(_ url: URL, _ error: DatabaseError) -> TernError {
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return .databaseUnusable("'\(url.path)' is not a valid Tern database (\(error.message ?? "corrupt")); move it aside to start a fresh store")
        case .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_IOERR, .SQLITE_FULL:
            return .storageUnavailable("cannot write database '\(url.path)': \(error.message ?? "\(error.resultCode)")")
        default:
            return .databaseUnusable("'\(url.path)': \(error.message ?? "\(error.resultCode)")")
        }
    }

    /// Mail is private: the database and its WAL files are readable by their owner only.
    static func restrictPermissions(of url: URL) {
        for suffix in ["", "-wal", "-shm"] {
            chmod(url.path + suffix, 0o600)
        }
    }

    /// `mkdir -p` with mode 0700 for what it creates, reporting the system's reason on failure
    /// (Foundation's errors on Linux do not say why).
    static func createDirectories(_ path: String) throws {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: current, isDirectory: &isDirectory) {
                guard isDirectory.boolValue else {
                    throw TernError.storageUnavailable("cannot create TERN_HOME '\(path)': '\(current)' is not a directory")
                }
                continue
            }
            if mkdir(current, 0o700) != 0 && errno != EEXIST {
                throw TernError.storageUnavailable("cannot create TERN_HOME '\(path)': \(String(cString: strerror(errno)))")
            }
        }
    }
}

extension TernDatabase {
    /// Row counts of the main tables, for `tern status`.
    public func rowCounts() throws -> [String: Int] {
        try writer.read { db in
            var counts: [String: Int] = [:]
            for table in ["account", "folder", "email", "emailFolder", "thread", "attachment", "contactCacheEntry", "trustedSender"] {
                counts[table] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0
            }
            return counts
        }
    }
}
