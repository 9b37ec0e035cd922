import Foundation
import TernCore
import Testing

@testable import TernRuntime

/// FR-COMP-02, PLATFORM.md: a message's undo-window hold belongs to a process and dies with it, SIGKILL included.
@Suite struct FileSendHoldsTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-holds-\(UUID().uuidString)")

    @Test func aClaimHoldsUntilReleased() throws {
        let holds = FileSendHolds(directory: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(holds.isOrphaned(messageId: "<a@x>"))
        let claim = try holds.claim(messageId: "<a@x>")
        #expect(!holds.isOrphaned(messageId: "<a@x>"))
        #expect(holds.isOrphaned(messageId: "<b@x>"))
        #expect(throws: TernError.self) { try holds.claim(messageId: "<a@x>") }
        claim.release()
        #expect(holds.isOrphaned(messageId: "<a@x>"))
        #expect(!FileManager.default.fileExists(atPath: holds.path("<a@x>")))
    }

    @Test func aHoldOfAKilledProcessIsOrphaned() throws {
        let holds = FileSendHolds(directory: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let owner = Process()
        owner.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        // `-o`: the lock stays with flock(1) itself, not with the command it runs.
        owner.arguments = ["-o", holds.path("<c@x>"), "sleep", "30"]
        try owner.run()
        var held = false
        for _ in 0..<100 where !held {
            held = !holds.isOrphaned(messageId: "<c@x>")
            if !held { Thread.sleep(forTimeInterval: 0.02) }
        }
        #expect(held, "another process's lock is seen")
        // The `sleep` flock(1) runs is found first, so it does not linger once its parent is killed.
        let children = Process()
        let found = Pipe()
        children.executableURL = URL(fileURLWithPath: "/usr/bin/pgrep")
        children.arguments = ["-P", String(owner.processIdentifier)]
        children.standardOutput = found
        try children.run()
        children.waitUntilExit()
        let sleeper =
            Int32(
                String(decoding: found.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        kill(owner.processIdentifier, SIGKILL)
        if sleeper > 0 { kill(sleeper, SIGKILL) }
        var orphaned = false
        for _ in 0..<100 where !orphaned {
            orphaned = holds.isOrphaned(messageId: "<c@x>")
            if !orphaned { Thread.sleep(forTimeInterval: 0.02) }
        }
        #expect(orphaned)
    }
}
