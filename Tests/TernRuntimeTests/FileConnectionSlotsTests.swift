import Foundation
import IMAP
import Synchronization
import TernCore
import Testing

@testable import TernRuntime

/// FR-SYNC-09 across processes: an account's five connections as lock files under `$TERN_HOME/locks`. Two budgets over
/// one directory stand for two processes (a `flock` belongs to an open file, not to a process); a killed `flock(1)`
/// stands for a `tern` killed with SIGKILL.
@Suite(.timeLimit(.minutes(1))) struct FileConnectionSlotsTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tern-slots-\(UUID().uuidString)")
    let account: AccountID = "4f1c2a9e-0000-4000-8000-000000000001"

    func budget(_ slots: Int, account: AccountID? = nil) -> FileConnectionSlotBudget {
        FileConnectionSlotBudget(directory: directory, accountId: account ?? self.account, slots: slots)
    }

    @Test func twoBudgetsOverOneDirectoryShareTheSlotsAndTheWaiterGetsTheNextOneFreed() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let serve = budget(2)
        let command = budget(2)
        let first = try await serve.takeSlot()
        let second = try await serve.takeSlot()
        #expect(!serve.isWantedElsewhere())
        let got = Mutex(false)
        let waiting = Task {
            let slot = try await command.takeSlot()
            got.withLock { $0 = true }
            return slot
        }
        try await eventually { serve.isWantedElsewhere() }
        #expect(!command.isWantedElsewhere(), "its own wait is not someone else's")
        try await Task.sleep(for: .milliseconds(50))
        #expect(!got.withLock { $0 }, "no third slot")
        first.release()
        let taken = try await waiting.value
        #expect(!serve.isWantedElsewhere())
        // Full again: the slot went to the waiter, not back to anyone who asks without waiting.
        let another = Task { try await serve.takeSlot() }
        try await eventually { command.isWantedElsewhere() }
        taken.release()
        try await another.value.release()
        second.release()
    }

    @Test func eachAccountHasSlotsOfItsOwn() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let held = try await budget(1).takeSlot()
        let other = try await budget(1, account: "4f1c2a9e-0000-4000-8000-000000000002").takeSlot()
        #expect(!budget(1).isWantedElsewhere())
        other.release()
        held.release()
    }

    @Test func theSlotFilesAreThePersonsAlone() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let slots = budget(5)
        let slot = try await slots.takeSlot()
        let attributes = try FileManager.default.attributesOfItem(atPath: slots.slotPath(0))
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        slot.release()
        slot.release()
    }

    @Test func aSlotNoLongerReferencedIsFree() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        var slot: (any ConnectionSlot)? = try await budget(1).takeSlot()
        #expect(slot != nil)
        slot = nil
        try await budget(1).takeSlot().release()
    }

    @Test func aCancelledWaitLeavesTheQueueToOthers() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let holder = budget(1)
        let held = try await holder.takeSlot()
        let cancelled = Task { try await budget(1).takeSlot() }
        try await eventually { holder.isWantedElsewhere() }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(!holder.isWantedElsewhere())
        held.release()
        try await budget(1).takeSlot().release()
    }

    @Test func theSlotOfAKilledProcessIsFreeAtOnce() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let slots = budget(1)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let owner = Process()
        owner.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        // `-o`: the lock stays with flock(1) itself, not with the command it runs.
        owner.arguments = ["-o", slots.slotPath(0), "sleep", "30"]
        try owner.run()
        defer { if owner.isRunning { kill(owner.processIdentifier, SIGKILL) } }
        try await eventually { !FileConnectionSlotsTests.isFree(slots.slotPath(0)) }
        let got = Mutex(false)
        let waiting = Task {
            let slot = try await slots.takeSlot()
            got.withLock { $0 = true }
            return slot
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(!got.withLock { $0 }, "the other process's slot is held")
        let sleeper = Self.child(of: owner.processIdentifier)
        kill(owner.processIdentifier, SIGKILL)
        if sleeper > 0 { kill(sleeper, SIGKILL) }
        try await waiting.value.release()
    }

    private static func isFree(_ path: String) -> Bool {
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return true }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
        flock(descriptor, LOCK_UN)
        return true
    }

    /// The `sleep` flock(1) runs, so it does not linger once its parent is killed.
    private static func child(of parent: Int32) -> Int32 {
        let children = Process()
        let found = Pipe()
        children.executableURL = URL(fileURLWithPath: "/usr/bin/pgrep")
        children.arguments = ["-P", String(parent)]
        children.standardOutput = found
        guard (try? children.run()) != nil else { return 0 }
        children.waitUntilExit()
        return Int32(
            String(decoding: found.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
}

/// Waits (up to twenty seconds: a loaded machine) for what another task or process does.
private func eventually(_ condition: () async throws -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(2))
    }
    Issue.record("the condition did not come true", sourceLocation: sourceLocation)
}
