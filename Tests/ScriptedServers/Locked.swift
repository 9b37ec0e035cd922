import Synchronization

/// Shared mutable test state for concurrent tasks and the servers' event loops.
public final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    public init(_ value: Value) { storage = Mutex(value) }
    public func withLock<T>(_ body: (inout Value) -> T) -> T { storage.withLock { body(&$0) } }
}
