import Foundation
import Synchronization
import TernCore

#if canImport(Glibc)
    import Glibc
#endif

/// PLATFORM.md's connectivity listener (issue 34, FR-SYNC-07): NetworkManager's state on the
/// system bus, heard through `gdbus monitor` (GLib's tool, which subscribes with AddMatch and so
/// needs no monitoring privilege) from the first wait on, for the life of the process. Nothing is
/// heard where there is no system bus, no NetworkManager or no gdbus: the scheduled looks remain.
/// `DBUS_SYSTEM_BUS_ADDRESS` names another bus (the tests' private one).
public final class NetworkManagerReturnSignal: NetworkReturnSignal {
    private let returns = GenerationSignal()
    private let started = Mutex(false)

    public init() {}

    public var returnsHeard: Int { returns.generation }

    public func waitForReturn(beyond seen: Int) async {
        startListening()
        await returns.wait(beyond: seen)
    }

    /// NMState: 20 disconnected, 30 disconnecting, 40 connecting, 50 connected to the local network
    /// only, 60 to a site, 70 globally. A rise into any connected state is a return: a mail server
    /// on the local network is reachable from 50 on, and an extra try costs no delivery attempt.
    static func isReturn(from previous: UInt32?, to state: UInt32) -> Bool {
        state >= 50 && state > (previous ?? 0)
    }

    /// The state a line of `gdbus monitor` reports, from the `StateChanged` signal or from
    /// `PropertiesChanged` carrying `State`; nil for any other line.
    static func state(fromMonitorLine line: Substring) -> UInt32? {
        for marker in ["NetworkManager.StateChanged (uint32 ", "'State': <uint32 "] {
            guard let range = line.range(of: marker) else { continue }
            return UInt32(line[range.upperBound...].prefix(while: \.isNumber))
        }
        return nil
    }

    public func startListening() {
        let first = started.withLock { started in
            defer { started = true }
            return !started
        }
        guard first, let gdbus = Self.executable(["/usr/bin/gdbus", "/bin/gdbus"]) else { return }
        let returns = returns
        // A thread of its own, which starts the monitor and reads it: the read blocks for as long as
        // the network stays as it is, and the child's parent-death signal (`setpriv --pdeathsig`,
        // tied to the thread that started it) ends the monitor with this process even when it is killed.
        // SIGKILL: the child inherits the signal mask of a process that blocks SIGTERM to handle it itself.
        Thread.detachNewThread {
            let process = Process()
            let monitor = [
                gdbus, "monitor", "--system", "--dest", "org.freedesktop.NetworkManager", "--object-path",
                "/org/freedesktop/NetworkManager"
            ]
            if let setpriv = Self.executable(["/usr/bin/setpriv", "/bin/setpriv"]) {
                process.executableURL = URL(fileURLWithPath: setpriv)
                process.arguments = ["--pdeathsig", "KILL"] + monitor
            } else {
                process.executableURL = URL(fileURLWithPath: gdbus)
                process.arguments = Array(monitor.dropFirst())
            }
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            do { try process.run() } catch { return }
            MonitorProcesses.adopt(process.processIdentifier)
            let reader = output.fileHandleForReading
            var previous: UInt32?
            var pending = Data()
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    guard let state = Self.state(fromMonitorLine: line[...]) else { continue }
                    if Self.isReturn(from: previous, to: state) { returns.fire() }
                    previous = state
                }
            }
            process.waitUntilExit()
        }
    }

    private static func executable(_ candidates: [String]) -> String? {
        candidates.first(where: FileManager.default.isExecutableFile(atPath:))
    }
}

/// The `gdbus monitor` children, ended when the process exits normally (a killed Tern's by their
/// parent-death signal).
private enum MonitorProcesses {
    static let children = Mutex<[Int32]>([])

    static func adopt(_ pid: Int32) {
        let first = children.withLock { children in
            children.append(pid)
            return children.count == 1
        }
        if first { atexit { MonitorProcesses.endAll() } }
    }

    static func endAll() {
        for pid in children.withLock({ $0 }) { kill(pid, SIGKILL) }
    }
}
