import CFirnShims

/// A reference that does not keep its object alive, in place of `weak`,
/// for an object retained and released at a high rate: a live `Database`
/// instance, retained by every object it makes. A `weak` reference gives
/// its object a side table for good, and every retain and release of it
/// then takes the runtime's slow path (`incrementSlow`,
/// `doDecrementSlow`): 10 to 15 % of the CPU of iterating objects
/// (`firn-sdk-probe live`).
///
/// The object clears every such reference to it first thing in its
/// `deinit` (`clear()`). `object` reads the pointer under the same lock and
/// retains it with the runtime's `swift_tryRetain`, which fails once the
/// object's last strong reference is gone: its memory is freed only after
/// its `deinit` has run, and that `deinit` waits for the lock, so a pointer
/// still set under the lock points at memory that is valid, and is either
/// retained or refused.
///
/// A reference obtained from `object` must not be released while holding a
/// lock the object's `deinit` takes (it may be the last one).
package final class UnretainedReference<Object: AnyObject>: @unchecked Sendable {
    private let pointer: Locked<Unmanaged<Object>?>

    package init(_ object: Object) {
        pointer = Locked(.passUnretained(object))
    }

    /// The object, retained, while it has other strong references; nil
    /// once its last one is gone.
    package var object: Object? {
        pointer.withLock { pointer -> Object? in
            guard let pointer, firn_try_retain(pointer.toOpaque()) else { return nil }
            return pointer.takeRetainedValue()
        }
    }

    /// Whether the object has cleared it (it is gone, or going).
    package var isCleared: Bool { pointer.withLock { $0 == nil } }

    /// Whether this refers to `object` (compared by identity, nothing retained).
    package func refers(to object: Object) -> Bool {
        pointer.withLock { $0?.toOpaque() == Unmanaged.passUnretained(object).toOpaque() }
    }

    /// Called by the object's `deinit`: `object` returns nil from now on.
    package func clear() {
        pointer.withLock { $0 = nil }
    }
}
