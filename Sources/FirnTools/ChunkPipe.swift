import FirnCore
import Dispatch

/// A bounded queue of byte chunks from one producer thread to one consumer
/// thread: the producer blocks when `capacity` chunks wait, so memory stays
/// bounded while both cores work (export: packing on one, compressing on
/// the other).
final class ChunkPipe: Sendable {
    private let free: DispatchSemaphore
    private let ready = DispatchSemaphore(value: 0)
    private let queue = Locked<[[UInt8]?]>([])

    init(capacity: Int) {
        // Start at 0 and signal up: libdispatch traps when a semaphore is
        // freed below its initial value, which an early exit would leave.
        free = DispatchSemaphore(value: 0)
        for _ in 0..<capacity { free.signal() }
    }

    func push(_ chunk: [UInt8]) {
        free.wait()
        queue.withLock { $0.append(chunk) }
        ready.signal()
    }

    /// Marks the end: `pop` then returns nil.
    func close() {
        free.wait()
        queue.withLock { $0.append(nil) }
        ready.signal()
    }

    func pop() -> [UInt8]? {
        ready.wait()
        let chunk = queue.withLock { $0.removeFirst() }
        free.signal()
        return chunk
    }
}
