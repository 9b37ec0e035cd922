import Foundation
import Testing

@testable import MailTransport

/// Issue 21: the CA file, read at every connection, must not be changeable by another user: not
/// the file, and not through a directory above it.
struct CAFileOwnershipTests {
    /// A private directory under the system's temporary one, holding `ca.pem` (not a valid PEM: the
    /// check comes before the file is parsed).
    static func caFile(fileMode: mode_t = 0o644, directoryMode: mode_t = 0o700) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-ca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("ca.pem").path
        _ = FileManager.default.createFile(atPath: file, contents: Data("-----BEGIN CERTIFICATE-----\n".utf8))
        chmod(file, fileMode)
        chmod(directory.path, directoryMode)
        return file
    }

    static func refusal(_ path: String) -> String? {
        do {
            try CAFileOwnership.check(path)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func aFileOnlyItsOwnerCanChangeIsAccepted() throws {
        #expect(Self.refusal(try Self.caFile()) == nil)
    }

    @Test func aFileOthersCanWriteIsRefusedAtEveryConnection() throws {
        let path = try Self.caFile(fileMode: 0o666)
        #expect(Self.refusal(path)?.contains("can be changed by other users (mode 666)") == true)
        // Where every IMAP and SMTP connection gets its TLS context.
        #expect(throws: TransportFailure.self) { _ = try TLSPolicy.clientContext(caFile: path) }
        do {
            _ = try TLSPolicy.clientContext(caFile: path)
        } catch {
            #expect(error.description.contains("chmod go-w"), "\(error)")
        }
    }

    @Test func aFileInADirectoryOthersCanWriteIsRefused() throws {
        let path = try Self.caFile(directoryMode: 0o777)
        #expect(Self.refusal(path)?.contains("a directory above the CA file") == true)
    }

    @Test func aFileInASharedStickyDirectoryIsAccepted() throws {
        // /tmp: others may create files there but cannot replace this one.
        let path = try Self.caFile(directoryMode: 0o1777)
        #expect(Self.refusal(path) == nil)
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to give the file away"))
    func aFileOfAnotherUserIsRefused() throws {
        let path = try Self.caFile()
        chown(path, 65534, 65534)
        #expect(Self.refusal(path)?.contains("belongs to another user") == true)
    }

    @Test func aMissingFileIsRefusedWithTheReason() {
        #expect(Self.refusal("/nonexistent/ca.pem")?.contains("No such file") == true)
    }
}
