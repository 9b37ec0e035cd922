/// The value of `operation`, or nil once `limit` has passed first; the loser is cancelled. What
/// Assist's budget (FR-ED-02 "Fallback Behavior") and `tern thread`'s wait for a summary share.
public func withDeadline<Value: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async -> Value) async -> Value? {
    await withTaskGroup(of: Value?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
