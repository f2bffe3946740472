import Foundation

/// A value handed between threads under a lock.
package final class Box<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    package init(_ value: Value) { stored = value }
    package var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// Changes the value under one hold of the lock: `box.value += 1` from
    /// several threads is a locked read and a separate locked write, and
    /// loses updates.
    package func update(_ body: (inout Value) -> Void) {
        lock.withLock { body(&stored) }
    }
}
