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

    /// How long a full `quick_check` stays good. Reading the whole file costs time in proportion
    /// to the mailbox (180 ms for 50,000 messages), so it is not paid on every `tern` command; a
    /// killed process cannot damage a WAL database, and the cheap checks below catch a file that
    /// is not SQLite, was written by a newer Tern or was cut short.
    public static let integrityCheckInterval: TimeInterval = 7 * 24 * 3600

    /// When opening reads the whole file through (`PRAGMA quick_check`) once `integrityCheckInterval`
    /// has passed since the last time.
    public enum IntegrityCheckTiming: Sendable {
        /// Before anything writes: the store is refused if damaged. Reading a 2.5 GB store takes
        /// seconds, paid by whichever command opens it first that week.
        case whenDue
        /// Not at opening (issue 38: start-up); the process calls `checkIntegrityIfDue` when it has
        /// started (`tern serve`, `tern sync --watch` in the background, on a reader connection).
        case deferred
    }

    public init(home: TernHome, now: Date = Date(), integrityCheck: IntegrityCheckTiming = .whenDue) throws {
        let url = home.databaseURL
        try Self.prepareHome(home)
        // Two Tern processes starting on one home (two `tern sync`, a sync and `tern serve`) take
        // turns through the checks, the switch to WAL and the migrations.
        writer = try HomeOpeningLock.whileHeld(home) {
            var integrityChecked = true
            // Issue 38: the checking connection stays open until the pool has opened. Closed first, it
            // was the last connection: it checkpointed the WAL into the file and deleted it (three
            // fsyncs), and the pool then wrote a transaction to make a WAL again (two more), on every
            // start of every command.
            var checking: DatabaseQueue?
            defer { try? checking?.close() }
            if FileManager.default.fileExists(atPath: url.path) {
                let preflight = try Self.preflight(url, now: now, integrityCheck: integrityCheck)
                checking = preflight.connection
                integrityChecked = preflight.integrityChecked
            }
            do {
                var configuration = Configuration()
                configuration.foreignKeysEnabled = true
                configuration.busyMode = .timeout(10)
                configuration.label = "tern"
                configuration.prepareDatabase { db in try TernDatabase.prepareWriter(db) }
                let pool = try DatabasePool(path: url.path, configuration: configuration)
                try SchemaMigrations.migrator.migrate(pool)
                if integrityChecked {
                    try Self.recordIntegrityCheck(pool, at: now)
                }
                return pool
            } catch let error as DatabaseError {
                throw Self.unusable(url, error)
            }
        }
        self.url = url
        Self.restrictPermissions(of: url)
    }

    /// Issue 38: the writer connection's settings for the sync's large transactions (a batch of 250
    /// messages with their bodies, search rows and threads). Measured on a first sync of 10,168
    /// messages (`strace`, `perf`), with SQLite's defaults:
    /// - every statement that changes rows of a table with indexes or FTS5 keeps the pages it
    ///   changes in a statement journal, which SQLite writes to a file in /var/tmp past 64 KiB: 650 MB
    ///   in 323,000 `pwrite` calls for 130 MB of mail, two thirds of the sync's writes.
    ///   `temp_store = MEMORY` keeps statement journals (and temporary b-trees) in memory;
    /// - a 2 MB page cache is smaller than one batch's working set (email and FTS5 pages), so pages
    ///   were read back from the WAL and the file (410 MB of `pread`): 8 MB.
    /// Not changed: checkpoints every 8,000 pages instead of 1,000 saved 0.1-0.2 s of 3.9 s but left
    /// up to 32 MB of WAL beside the store after every sync.
    /// Readers keep SQLite's defaults: they read a few pages per query.
    static func prepareWriter(_ db: Database) throws {
        guard !db.configuration.readonly else { return }
        try db.execute(sql: "PRAGMA temp_store = MEMORY; PRAGMA cache_size = -8192")
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
            try makePrivate(path)
        } else {
            try createDirectories(home.url.path)
        }
        guard access(path, W_OK | X_OK) == 0 else {
            throw TernError.storageUnavailable("TERN_HOME '\(path)' is not writable: \(String(cString: strerror(errno)))")
        }
    }

    /// Mail is private (PLATFORM.md): a home Tern creates is 0700, and one that already exists with
    /// access for others (made by hand, or by `mkdir` under a 022 umask) is tightened to 0700. One
    /// that belongs to another user is not Tern's to change: refused, with what to do.
    static func makePrivate(_ path: String) throws {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw TernError.storageUnavailable("cannot read TERN_HOME '\(path)': \(String(cString: strerror(errno)))")
        }
        let mode = status.st_mode & 0o7777
        guard mode & 0o077 != 0 else { return }
        guard mode & 0o1000 == 0 else { // S_ISVTX: a shared directory such as /tmp, never to be closed
            throw TernError.storageUnavailable(
                "TERN_HOME '\(path)' is a shared directory (mode \(String(mode, radix: 8))); use a directory of its own")
        }
        guard status.st_uid == geteuid() else {
            throw TernError.storageUnavailable(
                "TERN_HOME '\(path)' belongs to another user (uid \(status.st_uid)) and others can read it (mode \(String(mode, radix: 8))); use a directory of your own"
            )
        }
        guard chmod(path, mode & 0o700) == 0 else {
            throw TernError.storageUnavailable(
                "TERN_HOME '\(path)' can be read by others (mode \(String(mode, radix: 8))) and cannot be made private: \(String(cString: strerror(errno)))"
            )
        }
    }

    /// Read-only checks on an existing file before anything may write to it. Returns whether the
    /// full integrity check ran (it runs when the last one is older than `integrityCheckInterval`,
    /// unless `deferred`), and the connection that read, for the caller to close once its pool is
    /// open (it is closed here when a check fails).
    static func preflight(_ url: URL, now: Date, integrityCheck: IntegrityCheckTiming = .whenDue) throws -> (
        integrityChecked: Bool, connection: DatabaseQueue
    ) {
        guard access(url.path, R_OK | W_OK) == 0 else {
            throw TernError.storageUnavailable("database '\(url.path)' is not readable and writable: \(String(cString: strerror(errno)))")
        }
        do {
            // Not `readonly`: a read-only connection to a WAL database leaves -shm/-wal files behind,
            // while a read-write connection that only reads removes them again when it closes.
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            let queue = try DatabaseQueue(path: url.path, configuration: configuration)
            var handedOver = false
            defer { if !handedOver { try? queue.close() } }
            let checked = try queue.read { db -> Bool in
                // Reads the header and schema: fails on a file that is not a database, and on one
                // shorter than its header says (SQLite compares the two before the first read).
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
                if try SchemaMigrations.migrator.hasBeenSuperseded(db) {
                    let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
                    let unknown = Set(applied).subtracting(SchemaMigrations.identifiers).sorted()
                    throw TernError.databaseUnusable(
                        "'\(url.path)' was written by a newer version of Tern (schema \(unknown.joined(separator: ", "))); upgrade Tern to open it")
                }
                if integrityCheck == .deferred { return false }
                if let last = try lastIntegrityCheck(db), now.timeIntervalSince(last) < integrityCheckInterval {
                    return false
                }
                try requireIntegrity(db, url)
                return true
            }
            handedOver = true
            return (checked, queue)
        } catch let error as DatabaseError {
            throw unusable(url, error)
        }
    }

    static func lastIntegrityCheck(_ db: Database) throws -> Date? {
        guard try db.tableExists("storeHealth") else { return nil }
        return try Double.fetchOne(db, sql: "SELECT lastIntegrityCheckAt FROM storeHealth WHERE id = 1")
            .map(Date.init(timeIntervalSince1970:))
    }

    static func requireIntegrity(_ db: Database, _ url: URL) throws {
        let quickCheck = try String.fetchOne(db, sql: "PRAGMA quick_check(1)") ?? "no answer"
        if quickCheck != "ok" {
            let finding = quickCheck.replacingOccurrences(of: "*** in database main ***", with: "")
                .split(whereSeparator: \.isNewline).joined(separator: "; ")
            throw TernError.databaseUnusable("'\(url.path)' is damaged (\(finding)); move it aside to start a fresh store")
        }
    }

    static func recordIntegrityCheck(_ writer: some DatabaseWriter, at now: Date) throws {
        try writer.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO storeHealth (id, lastIntegrityCheckAt) VALUES (1, ?)",
                arguments: [now.timeIntervalSince1970])
        }
    }

    /// A database error worded for people, naming the file (issue 20: a full disk, a store another
    /// process holds, a damaged file), or nil for errors that are Tern's own bugs.
    public static func ternError(_ error: any Error, home: TernHome) -> TernError? {
        guard let error = error as? DatabaseError else { return nil }
        return unusable(home.databaseURL, error)
    }

    static func unusable(_ url: URL, _ error: DatabaseError) -> TernError {
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return .storeBusy("another process has been writing '\(url.path)' for more than 10 s; nothing was changed")
        case .SQLITE_FULL:
            return .storageUnavailable("the disk holding '\(url.path)' is full; nothing was lost, and Tern goes on once there is space")
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return .databaseUnusable(
                "'\(url.path)' is not a valid Tern database (\(error.message ?? "corrupt")); move it aside to start a fresh store")
        case .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_IOERR:
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
    /// Reads the whole file now (`tern status --check`), whatever the last check said.
    public func checkIntegrity(now: Date = Date()) throws {
        do {
            try writer.read { db in try Self.requireIntegrity(db, url) }
            try Self.recordIntegrityCheck(writer, at: now)
        } catch let error as DatabaseError {
            throw Self.unusable(url, error)
        }
    }

    /// The full check of a store opened with `deferred`, when the last one is older than
    /// `integrityCheckInterval` (else nothing). It reads on a reader connection of the pool, beside
    /// the process's writes (WAL), and throws the same `TernError` opening would have.
    public func checkIntegrityIfDue(now: Date = Date()) throws {
        if let last = try lastIntegrityCheck(), now.timeIntervalSince(last) < Self.integrityCheckInterval { return }
        try checkIntegrity(now: now)
    }

    /// When the last full integrity check passed.
    public func lastIntegrityCheck() throws -> Date? {
        try writer.read { db in try Self.lastIntegrityCheck(db) }
    }

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

/// An exclusive `flock` on the home directory for the time a process opens the store. It is
/// separate from SQLite's own POSIX locks on the database file (Linux keeps the two apart, and
/// opening the database file here would drop SQLite's locks when closed), and the kernel releases
/// it if the process dies while holding it.
enum HomeOpeningLock {
    static func whileHeld<Result>(_ home: TernHome, _ body: () throws -> Result) throws -> Result {
        let descriptor = open(home.url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw TernError.storageUnavailable("cannot open TERN_HOME '\(home.url.path)': \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw TernError.storageUnavailable("cannot lock TERN_HOME '\(home.url.path)': \(String(cString: strerror(errno)))")
            }
        }
        return try body()
    }
}
