import Foundation
import GRDB
import Synchronization
import TernCore
import Testing

@testable import MailStore

/// Bad input gets one clear error and changes nothing.
@Suite struct TernDatabaseTests {
    func snapshot(_ directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return files
    }

    /// The database and any WAL content: GRDB leaves an empty WAL and the shared-memory index
    /// behind, which the next connection to close removes.
    func storedBytes(_ directory: URL) throws -> [String: Data] {
        try snapshot(directory).filter { name, data in !name.hasSuffix("-shm") && !data.isEmpty }
    }

    /// Issue 38: the writer keeps statement journals in memory and an 8 MB page cache (a first sync wrote
    /// 650 MB of statement journals to /var/tmp without); readers keep SQLite's defaults.
    @Test func writerKeepsStatementJournalsInMemoryWithAnEightMegabyteCache() throws {
        let database = try TernDatabase.temporary()
        let writer = try database.writer.write { db in
            (try Int.fetchOne(db, sql: "PRAGMA temp_store"), try Int.fetchOne(db, sql: "PRAGMA cache_size"))
        }
        #expect(writer.0 == 2)
        #expect(writer.1 == -8192)
        let reader = try database.writer.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA temp_store"), try Int.fetchOne(db, sql: "PRAGMA cache_size"))
        }
        #expect(reader.0 == 0)
        #expect(reader.1 == -2000)
    }

    @Test func corruptFileIsRefusedAndLeftAlone() throws {
        let home = Fixtures.temporaryHome()
        try FileManager.default.createDirectory(at: home.url, withIntermediateDirectories: true)
        var garbage = Data("this is not sqlite ".utf8)
        garbage.append(Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
        try garbage.write(to: home.databaseURL)
        let before = try snapshot(home.url)
        do {
            _ = try TernDatabase(home: home)
            Issue.record("opened a corrupt database")
        } catch let error as TernError {
            guard case .databaseUnusable(let text) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(text.contains("not a valid Tern database"))
            #expect(!error.message.contains("\n"))
        }
        #expect(try snapshot(home.url) == before)
    }

    @Test func truncatedDatabaseIsRefused() throws {
        let home = Fixtures.temporaryHome()
        do {
            let database = try TernDatabase(home: home)
            try database.writer.write { db in try Fixtures.account().insert(db) }
            try database.writer.close()
        }
        let data = try Data(contentsOf: home.databaseURL)
        try data.prefix(data.count / 2).write(to: home.databaseURL)
        #expect(throws: TernError.self) { _ = try TernDatabase(home: home) }
    }

    @Test func databaseFromNewerTernIsRefusedAndLeftAlone() throws {
        let home = Fixtures.temporaryHome()
        do {
            let database = try TernDatabase(home: home)
            try database.writer.write { db in
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
            }
            try database.writer.close()
        }
        let before = try snapshot(home.url)
        do {
            _ = try TernDatabase(home: home)
            Issue.record("opened a database from a newer Tern")
        } catch let error as TernError {
            #expect(error.message.contains("newer version of Tern"))
            #expect(error.message.contains("v99-from-the-future"))
        }
        #expect(try snapshot(home.url) == before)
    }

    @Test func homeThatCannotBeCreatedIsReported() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tern-file-\(UUID().uuidString)")
        try Data("x".utf8).write(to: file)
        let home = TernHome(url: file.appendingPathComponent("home"))
        #expect(throws: TernError.self) { _ = try TernDatabase(home: home) }
        do {
            _ = try TernDatabase(home: home)
        } catch let error as TernError {
            #expect(error.message.contains("is not a directory"))
        }
    }

    @Test func storeIsPrivateToItsOwner() throws {
        let home = Fixtures.temporaryHome()
        _ = try TernDatabase(home: home)
        let homeMode = try FileManager.default.attributesOfItem(atPath: home.url.path)[.posixPermissions] as? Int
        let fileMode = try FileManager.default.attributesOfItem(atPath: home.databaseURL.path)[.posixPermissions] as? Int
        #expect(homeMode == 0o700)
        #expect(fileMode == 0o600)
    }

    /// Issue 21: a home made beforehand with access for others (`mkdir` under umask 022) is closed.
    @Test func anExistingHomeOthersCanReadIsMadePrivate() throws {
        let home = Fixtures.temporaryHome()
        try FileManager.default.createDirectory(at: home.url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        _ = try TernDatabase(home: home)
        #expect(try FileManager.default.attributesOfItem(atPath: home.url.path)[.posixPermissions] as? Int == 0o700)
    }

    @Test func aSharedDirectoryIsRefusedAsHomeAndLeftAlone() throws {
        let home = Fixtures.temporaryHome()
        try FileManager.default.createDirectory(at: home.url, withIntermediateDirectories: true)
        chmod(home.url.path, 0o1777)
        #expect { _ = try TernDatabase(home: home) } throws: { error in
            (error as? TernError)?.message.contains("is a shared directory") == true
        }
        #expect(try FileManager.default.attributesOfItem(atPath: home.url.path)[.posixPermissions] as? Int == 0o1777)
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to give the directory away"))
    func anotherUsersHomeOthersCanReadIsRefusedAndLeftAlone() throws {
        let home = Fixtures.temporaryHome()
        try FileManager.default.createDirectory(at: home.url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        chown(home.url.path, 65534, 65534)
        #expect { _ = try TernDatabase(home: home) } throws: { error in
            (error as? TernError)?.message.contains("belongs to another user") == true
        }
        #expect(try FileManager.default.attributesOfItem(atPath: home.url.path)[.posixPermissions] as? Int == 0o755)
    }

    /// A page damaged in the middle of the file passes the cheap checks; the full check, due once
    /// `integrityCheckInterval` has passed, refuses it and leaves the file as it was.
    @Test func damagedPageIsFoundByTheDueIntegrityCheck() throws {
        let created = Date(timeIntervalSince1970: 1_800_000_000)
        let home = try Self.storeWithDamagedPage(created: created)

        let nextDay = created.addingTimeInterval(24 * 3600)
        do {
            let database = try TernDatabase(home: home, now: nextDay)
            #expect(try database.lastIntegrityCheck() == created)
            _ = try database.writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            try database.writer.close()
        }
        let before = try storedBytes(home.url)
        let nextWeek = created.addingTimeInterval(TernDatabase.integrityCheckInterval + 1)
        do {
            _ = try TernDatabase(home: home, now: nextWeek)
            Issue.record("opened a damaged database")
        } catch let error as TernError {
            #expect(error.message.contains("damaged") || error.message.contains("not a valid Tern database"))
            #expect(!error.message.contains("\n"))
        }
        #expect(try storedBytes(home.url) == before)
    }

    /// Issue 38: opened `deferred`, a store the weekly check is due on opens without it, and the check
    /// run afterwards (as `tern serve` does once started) finds the damage.
    @Test func aDeferredCheckRunsAfterOpeningAndFindsTheDamage() throws {
        let created = Date(timeIntervalSince1970: 1_800_000_000)
        let home = try Self.storeWithDamagedPage(created: created)

        let nextWeek = created.addingTimeInterval(TernDatabase.integrityCheckInterval + 1)
        let database = try TernDatabase(home: home, now: nextWeek, integrityCheck: .deferred)
        #expect(try database.lastIntegrityCheck() == created)
        // Not due an hour after the last check: nothing is read.
        try database.checkIntegrityIfDue(now: created.addingTimeInterval(3600))
        #expect { try database.checkIntegrityIfDue(now: nextWeek) } throws: { error in
            (error as? TernError)?.message.contains("damaged") == true || (error as? TernError)?.message.contains("not a valid") == true
        }
        #expect(try database.lastIntegrityCheck() == created)
    }

    /// A store created (and fully checked) at `created`, then one page in the middle of the file
    /// overwritten: the cheap checks at opening pass, the full check does not.
    static func storeWithDamagedPage(created: Date) throws -> TernHome {
        let home = Fixtures.temporaryHome()
        let rootPage: Int
        let pageSize: Int
        do {
            let database = try TernDatabase(home: home, now: created)
            try database.writer.write { db in try Fixtures.account().insert(db) }
            #expect(try database.lastIntegrityCheck() == created)
            (rootPage, pageSize) = try database.writer.read { db in
                (
                    try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'trustedSender'")!,
                    try Int.fetchOne(db, sql: "PRAGMA page_size")!
                )
            }
            _ = try database.writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            try database.writer.close()
        }
        let handle = try FileHandle(forWritingTo: home.databaseURL)
        try handle.seek(toOffset: UInt64((rootPage - 1) * pageSize))
        try handle.write(contentsOf: Data(repeating: 0xA5, count: pageSize))
        try handle.close()
        return home
    }

    @Test func checkOnDemandRecordsItsTime() throws {
        let database = try TernDatabase(home: Fixtures.temporaryHome(), now: Date(timeIntervalSince1970: 1_800_000_000))
        let later = Date(timeIntervalSince1970: 1_800_000_500)
        try database.checkIntegrity(now: later)
        #expect(try database.lastIntegrityCheck() == later)
    }

    /// Opening takes turns: several openers of one fresh home all succeed (CI once saw two
    /// `tern sync` processes starting together fail with "database is locked").
    @Test func openersOfOneFreshHomeTakeTurns() throws {
        let home = Fixtures.temporaryHome()
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            do {
                let database = try TernDatabase(home: home)
                _ = try database.appliedMigrations()
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
    }
}
