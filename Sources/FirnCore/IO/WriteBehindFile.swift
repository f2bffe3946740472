import Dispatch

/// A new file written front to back by one producer (a compaction's packed
/// image): each write is copied into one of a few buffers and written by
/// another thread, which then starts the range's writeback, so the kernel's
/// copy and the device's writes overlap with building the next pages, and
/// the final `sync()` finds little left to flush (issue 28's compact row).
///
/// The first failed write is kept and thrown by the next call that waits
/// for the writer (`write` once the buffers are full, `sync`, `read`,
/// `size`, `extend`, `finish`). Reads, sizes and extensions first wait for
/// every write handed over: they see the file as written so far.
package final class WriteBehindFile: FileIO, @unchecked Sendable {
    package var path: String { file.path }
    package var descriptor: Int32 { file.descriptor }
    private let file: POSIXFile
    /// A write handed to the writer thread: its buffer and where it goes.
    private struct Job {
        let buffer: Int
        let count: Int
        let offset: UInt64
    }
    private struct State {
        var queue: [Job] = []
        var freeBuffers: [Int]
        var pending = 0
        var failure: FirnError? = nil
        var finished = false
    }
    private let state: Locked<State>
    private let buffers: [UnsafeMutableRawBufferPointer]
    /// Signalled once per job queued (and once at the end).
    private let queued = DispatchSemaphore(value: 0)
    /// Signalled once per buffer given back.
    private let returned = DispatchSemaphore(value: 0)
    private var writer: SideThread<Void>?

    /// How many buffers, and their size: a write larger than a buffer is
    /// split. Three 1 MiB buffers: the producer fills one while the kernel
    /// copies another.
    static let bufferCount = 3
    static let bufferBytes = 1 << 20

    /// Takes over `file` (closed by `close()`). Nil when no writer thread
    /// could be started: the caller writes `file` directly.
    package init?(_ file: POSIXFile) {
        self.file = file
        buffers = (0..<Self.bufferCount).map { _ in
            UnsafeMutableRawBufferPointer.allocate(byteCount: Self.bufferBytes, alignment: 4096)
        }
        state = Locked(State(freeBuffers: Array(0..<Self.bufferCount)))
        guard let thread = SideThread({ [unowned self] in self.writeQueued() }) else {
            for buffer in buffers { buffer.deallocate() }
            return nil
        }
        writer = thread
    }

    deinit {
        finishWriter()
        for buffer in buffers { buffer.deallocate() }
    }

    package func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(FirnError) {
        var done = 0
        while done < bytes.count {
            let buffer = try takeBuffer()
            let count = min(Self.bufferBytes, bytes.count - done)
            if let base = bytes.baseAddress { buffers[buffer].baseAddress?.copyMemory(from: base + done, byteCount: count) }
            state.withLock { s in
                s.queue.append(Job(buffer: buffer, count: count, offset: offset + UInt64(done)))
                s.pending += 1
            }
            queued.signal()
            done += count
        }
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(FirnError) -> Int {
        try drain()
        return try file.read(into: buffer, at: offset)
    }

    package func sync() throws(FirnError) {
        try drain()
        try file.sync()
    }

    package func extend(to size: UInt64) throws(FirnError) {
        try drain()
        try file.extend(to: size)
    }

    package func size() throws(FirnError) -> UInt64 {
        try drain()
        return try file.size()
    }

    package func close() {
        finishWriter()
        file.close()
    }

    /// A free buffer, waiting for the writer to give one back; throws the
    /// writer's failure.
    private func takeBuffer() throws(FirnError) -> Int {
        while true {
            let taken = state.withLock { s -> Result<Int?, FirnError> in
                if let failure = s.failure { return .failure(failure) }
                return .success(s.freeBuffers.popLast())
            }
            switch taken {
            case let .failure(error): throw error
            case let .success(buffer?): return buffer
            case .success(nil): returned.wait()
            }
        }
    }

    /// Waits until every write handed over is written; throws the first failure.
    private func drain() throws(FirnError) {
        while true {
            let (pending, failure) = state.withLock { ($0.pending, $0.failure) }
            if let failure { throw failure }
            if pending == 0 { return }
            returned.wait()
        }
    }

    /// Stops the writer thread after the writes queued (idempotent).
    private func finishWriter() {
        guard let writer else { return }
        self.writer = nil
        state.withLock { $0.finished = true }
        queued.signal()
        writer.join()
    }

    /// The writer thread: writes each job, starts its writeback, gives its
    /// buffer back; after a failure it only gives buffers back.
    private func writeQueued() {
        while true {
            queued.wait()
            let next = state.withLock { s -> Job? in s.queue.isEmpty ? nil : s.queue.removeFirst() }
            guard let job = next else {
                if state.withLock({ $0.finished && $0.queue.isEmpty }) { return }
                continue
            }
            let failed = state.withLock { $0.failure != nil }
            var failure: FirnError? = nil
            if !failed {
                do throws(FirnError) {
                    try file.write(UnsafeRawBufferPointer(rebasing: buffers[job.buffer][0..<job.count]), at: job.offset)
                    // Only a hint: a file system without it still syncs at the end.
                    _ = SystemCall.startWriteback(file.descriptor, offset: job.offset, count: UInt64(job.count))
                } catch {
                    failure = error
                }
            }
            state.withLock { s in
                if s.failure == nil, let failure { s.failure = failure }
                s.freeBuffers.append(job.buffer)
                s.pending -= 1
            }
            returned.signal()
        }
    }
}
