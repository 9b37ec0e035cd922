import Foundation
import GRDB
import Testing
import TernCore
@testable import MailStore

/// Bad input gets one clear error and changes nothing.
@Suite struct DatabaseOpeningTests {
    func snapshot(_ directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return files
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
            guard case .databaseUnusable(let text) = error else { Issue.record("wrong error \(error)"); return }
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
}
