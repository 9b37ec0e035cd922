/// The platform's word that the network is back (FR-SYNC-07, NFR-SYNC-03; issue 34): a queue
/// waiting only for the server to be reachable, and an engine waiting to retry a failed run, try
/// at once instead of at their next scheduled look. NetworkManager's state on the D-Bus system bus
/// here (`NetworkManagerReturnSignal` in the runtime), `NWPathMonitor` on Apple platforms. The
/// scheduled looks stay: a platform that cannot tell, or a server that comes back on its own, is
/// found by them.
public protocol NetworkReturnSignal: Sendable {
    /// How many times the network has come back since listening began (0 before).
    var returnsHeard: Int { get }
    /// Begins listening, if it has not begun: a long-running loop calls it as it starts, so a
    /// return that comes before its first wait is heard too.
    func startListening()
    /// Returns once more than `seen` returns have been heard (listening from the first call), or
    /// when the task is cancelled. Where the platform cannot tell, only cancellation ends it.
    func waitForReturn(beyond seen: Int) async
}

/// Where nothing tells (tests, platforms without a connectivity service): the scheduled looks only.
public struct NoNetworkReturnSignal: NetworkReturnSignal {
    public init() {}
    public var returnsHeard: Int { 0 }
    public func startListening() {}
    public func waitForReturn(beyond seen: Int) async {
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    }
}

extension NetworkReturnSignal {
    /// Runs `sleep` to its end (false), or less if the network comes back after `seen` (true then).
    func cutShort(_ sleep: @escaping @Sendable () async throws -> Void, onReturnBeyond seen: Int) async throws -> Bool {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await sleep()
                return false
            }
            group.addTask {
                await waitForReturn(beyond: seen)
                try Task.checkCancellation()
                return true
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
    }
}
