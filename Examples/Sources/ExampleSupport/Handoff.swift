import Foundation

/// A value handed back from another thread (the examples wait for it).
public final class Handoff<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    public init(_ value: Value) { stored = value }

    public var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// Changes the value in place under the lock (a read then a write of
    /// `value` could lose another thread's change in between).
    public func update(_ change: (inout Value) -> Void) {
        lock.withLock { change(&stored) }
    }
}
